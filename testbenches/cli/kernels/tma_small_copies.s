; One thread issues 16 tma.load copies of one 16-byte row each, back to back, all completing
; on one mbarrier, and waits for them: a ring of small copies, bound by the unit's per-copy
; issue cost.
.kernel tma_small_copies
        mov   r1, %tid
        setp.ne.s32 p0, r1, 0
   @p0  exit
        mov   r2, 16384                 ; barrier
        mbarrier.init [r2], 1
        mbarrier.arrive.expect_tx [r2], 256
        mov   r3, 0                     ; element 0 of row r4
        mov   r4, 0
        mov   r5, 1024                  ; shared destination, 16 bytes per copy
loop:   tma.load [r5], 0, [r2], r3
        add   r4, r4, 1
        add   r5, r5, 16
        setp.ne.s32 p1, r4, 16
   @p1  bra   loop
        mbarrier.wait [r2], 0
        exit

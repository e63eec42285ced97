; A tma.load whose destination lies beyond shared memory.
.kernel tma_shared_oob
        mov   r1, 64
        mov   r2, 0x100000
        mov   r3, 0
        mov   r4, %tid
        setp.eq.s32 p0, r4, 0
   @p0  mbarrier.init [r1], 1
        bar.sync
   @p0  tma.load [r2], 0, [r1], r3
   @p0  mbarrier.wait [r1], 0
        exit

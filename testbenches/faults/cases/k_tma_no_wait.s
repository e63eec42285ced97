; A block that starts a tma.load and finishes without waiting on the copy's barrier: the
; rows would land in shared memory after the block is gone.
.kernel tma_no_wait
        mov   r1, 64
        mov   r2, 1024
        mov   r3, 0
        mov   r4, %tid
        setp.eq.s32 p0, r4, 0
   @p0  mbarrier.init [r1], 1
        bar.sync
   @p0  mbarrier.arrive.expect_tx [r1], 8192
   @p0  tma.load [r2], 0, [r1], r3
        exit

; One of two expected arrivals: the phase never completes.
.kernel mbarrier_never
        mov   r1, 64
        mov   r2, %tid
        setp.eq.s32 p0, r2, 0
   @p0  mbarrier.init [r1], 2
   @p0  mbarrier.arrive [r1]
        bar.sync
        mbarrier.wait [r1], 0
        exit

; Warp 1 exits; warp 0 waits at the barrier for it forever.
.kernel barrier_deadlock
        mov   r1, %tid
        setp.ge.s32 p0, r1, 32
   @p0  exit
        bar.sync
        exit

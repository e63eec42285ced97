; Half of each warp branches over the barrier and exits; the other half waits there.
.kernel div_bar
        mov   r1, %tid
        setp.ge.s32 p0, r1, 16
   @p0  bra   skip
        bar.sync
skip:
        exit

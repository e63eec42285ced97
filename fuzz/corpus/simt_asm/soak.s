; A long-running loop for soak runs: every thread reads, updates and writes back its own
; word of global memory, `iterations` times (parameter 0).
.kernel soak
        ldparam r1, 0                   ; iterations
        mov   r2, %tid
        shl   r3, r2, 2                 ; this thread's word
        mov   r4, 0
loop:
        ld.global.32 r5, [r3]
        add   r4, r4, r5
        add   r4, r4, 1
        st.global.32 [r3], r4
        sub   r1, r1, 1
        setp.ne.s32 p0, r1, 0
   @p0  bra   loop
        exit

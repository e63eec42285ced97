; Pointer chase: one thread follows the chain that starts at parameter 0 for parameter 1
; hops (each word holds the address of the next), then stores where it ended at parameter
; 2. Each load waits for the one before: the run is hops x the load-to-use latency.
        .kernel chase
        ldparam r1, 0             ; current address
        ldparam r2, 1             ; hops left
        ldparam r3, 2             ; result address
loop:   ld.global.32 r1, [r1]
        sub   r2, r2, 1
        setp.ne.s32 p0, r2, 0
        @p0 bra loop
        st.global.32 [r3], r1
        exit

; Pointer chase through the global level of the memory hierarchy: one thread follows the
; chain that starts at parameter 0 for parameter 1 hops with ld.global.cg (cached in the
; L2, not in the L1), then stores where it ended at parameter 2. Each load waits for the one
; before: top.sm.global_load_latency is the load-to-use latency of the level the chain
; lives in.
        .kernel chase_cg
        ldparam r1, 0             ; current address
        ldparam r2, 1             ; hops left
        ldparam r3, 2             ; result address
loop:   ld.global.cg.32 r1, [r1]
        sub   r2, r2, 1
        setp.ne.s32 p0, r2, 0
        @p0 bra loop
        st.global.32 [r3], r1
        exit

; A memory-bound loop: each iteration loads one word per thread (coalesced), then does a
; block of arithmetic on it. sum = sum(f(A[i + k * stride])) over `iterations` k.
        .kernel load_compute
        mov   r0, %ctaid
        mov   r1, %ntid
        mov   r2, %tid
        mad   r3, r0, r1, r2      ; global thread index
        shl   r5, r3, 2
        ldparam r6, 1             ; A
        add   r9, r6, r5
        ldparam r7, 0             ; iterations
        ldparam r8, 2             ; stride in bytes between iterations
        mov   r12, 0
loop:   ld.global.32 r10, [r9]
        add   r12, r12, r10
        mul   r12, r12, 3
        add   r12, r12, 7
        xor   r12, r12, r3
        mul   r12, r12, 5
        add   r12, r12, 11
        xor   r12, r12, r2
        mul   r12, r12, 7
        add   r12, r12, 13
        add   r9, r9, r8
        sub   r7, r7, 1
        setp.ne.s32 p0, r7, 0
        @p0 bra loop
        ldparam r6, 3             ; out
        add   r9, r6, r5
        st.global.32 [r9], r12
        exit

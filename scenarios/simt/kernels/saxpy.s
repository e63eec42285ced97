; y[i] = a * x[i] + y[i] for i < n, in binary32 (one rounding: ffma).
; Parameters: n, a (a binary32 bit pattern), X, Y (byte addresses in global memory).
        .kernel saxpy
        mov   r0, %ctaid
        mov   r1, %ntid
        mov   r2, %tid
        mad   r3, r0, r1, r2      ; global thread index
        ldparam r4, 0             ; n
        setp.ge.s32 p0, r3, r4
        @p0 exit
        shl   r5, r3, 2           ; byte offset
        ldparam r6, 1             ; a
        ldparam r7, 2
        ldparam r8, 3
        add   r9, r7, r5
        ld.global.32 r10, [r9]    ; x[i]
        add   r9, r8, r5
        ld.global.32 r11, [r9]    ; y[i]
        ffma  r12, r6, r10, r11
        st.global.32 [r9], r12
        exit

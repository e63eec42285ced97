; An if/else on the thread index: lanes 0-15 take one path, lanes 16-31 the other, then
; both reconverge. out[i] = (tid % 32 < 16) ? 3 * x + 1 : x / 2 + 100, then + tid.
        .kernel divergence
        mov   r0, %ctaid
        mov   r1, %ntid
        mov   r2, %tid
        mad   r3, r0, r1, r2      ; global thread index
        shl   r5, r3, 2
        ldparam r6, 0             ; in
        ldparam r7, 1             ; out
        add   r9, r6, r5
        ld.global.32 r10, [r9]
        mov   r4, %laneid
        setp.lt.s32 p0, r4, 16
        @!p0 bra else
        mul   r11, r10, 3         ; then-path
        add   r11, r11, 1
        xor   r11, r11, 0
        bra   join
else:   sra   r11, r10, 1         ; else-path
        add   r11, r11, 100
        or    r11, r11, 0
join:   add   r11, r11, r2        ; reconverged: all lanes again
        add   r9, r7, r5
        st.global.32 [r9], r11
        exit

; Two divergent regions. In the first, lane l of warp w takes the then-path when l + w is
; even: consecutive warps diverge into complementary lanes, so dynamic warp formation can
; merge their paths into full warps. In the second, the even lanes of every warp take the
; then-path: the threads at one PC all want the same lanes, so they cannot be merged.
        .kernel dwf
        mov   r0, %ctaid
        mov   r1, %ntid
        mov   r2, %tid
        mad   r3, r0, r1, r2
        shl   r5, r3, 2
        ldparam r6, 0
        add   r9, r6, r5
        ld.global.32 r10, [r9]
        mov   r4, %laneid
        mov   r7, %warpid
        add   r8, r4, r7
        and   r8, r8, 1
        setp.eq.s32 p0, r8, 0
        @!p0 bra else1
        mul   r11, r10, 3
        add   r11, r11, 1
        mul   r11, r11, 5
        add   r11, r11, 2
        mul   r11, r11, 7
        add   r11, r11, 3
        bra   join1
else1:  sra   r11, r10, 1
        add   r11, r11, 100
        mul   r11, r11, 3
        add   r11, r11, 4
        mul   r11, r11, 5
        add   r11, r11, 6
join1:  and   r8, r4, 1
        setp.eq.s32 p1, r8, 0
        @!p1 bra else2
        add   r11, r11, 1000
        mul   r11, r11, 3
        bra   join2
else2:  sub   r11, r11, 1000
        mul   r11, r11, 5
join2:  ldparam r6, 1
        add   r9, r6, r5
        st.global.32 [r9], r11
        exit

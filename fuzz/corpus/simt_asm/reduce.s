; Block-wide sum in shared memory: each thread loads one element, then a tree reduction
; with bar.sync between the steps; thread 0 writes the block's sum. Parameters: in, out.
        .kernel reduce
        mov   r0, %ctaid
        mov   r1, %ntid
        mov   r2, %tid
        mad   r3, r0, r1, r2
        shl   r5, r3, 2
        ldparam r6, 0
        add   r9, r6, r5
        ld.global.32 r10, [r9]
        shl   r11, r2, 2          ; this thread's shared slot
        st.shared.32 [r11], r10
        bar.sync
        shr   r12, r1, 1          ; s = ntid / 2
loop:   setp.lt.s32 p0, r2, r12
        @!p0 bra skip
        shl   r13, r12, 2
        add   r13, r11, r13
        ld.shared.32 r14, [r13]   ; partner at tid + s
        ld.shared.32 r15, [r11]
        add   r15, r15, r14
        st.shared.32 [r11], r15
skip:   bar.sync
        shr   r12, r12, 1
        setp.ne.s32 p1, r12, 0
        @p1 bra loop
        setp.ne.s32 p2, r2, 0
        @p2 exit
        ld.shared.32 r14, [r11]
        ldparam r7, 1
        shl   r16, r0, 2
        add   r16, r7, r16
        st.global.32 [r16], r14
        exit

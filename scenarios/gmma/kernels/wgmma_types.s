; The fp8 and tf32 warpgroup MMAs, checked bit for bit against the golden interpreter: the
; block's 128 threads copy 8 KB of operands from global to shared memory (A and B of each
; MMA, K-major core matrices of 8 rows x 16 bytes, no swizzle: the second 16-byte chunk of a
; row 128 bytes on, the next 8 rows 256 bytes on), then
;   D8 (r0 .. r31)  = A (64 x 32 e4m3, shared 0) x B (32 x 64 e5m2, shared 2048)
;   Dt (r32 .. r63) = A (64 x 8 tf32, shared 4096) x B (8 x 64 tf32, shared 6144), twice
;                     (the second adds to the first: D = 2 A x B, rounded at each step)
; and each thread stores its 64 accumulator registers at parameter 0 + 256 x tid.
.kernel wgmma_types
        mov   r200, %tid
        shl   r201, r200, 2             ; this thread's first word
        mov   r202, 0
copy:   ld.global.32 r203, [r201]
        st.shared.32 [r201], r203
        add   r201, r201, 512
        add   r202, r202, 1
        setp.ne.s32 p0, r202, 16
   @p0  bra   copy
        bar.sync
        mov   r240, 0x80000             ; A e4m3 at 0 (start address / 16 in bits 0-13, LBO 128 / 16 = 8 in bits 16-29)
        mov   r241, 16                  ; SBO 256 / 16
        mov   r242, 0x80080             ; B e5m2 at 2048
        mov   r243, 16
        mov   r244, 0x80100             ; A tf32 at 4096
        mov   r245, 16
        mov   r246, 0x80180             ; B tf32 at 6144
        mov   r247, 16
        wgmma.m64n64k32.f32.e4m3.e5m2 r0, r240, r242, 0
        wgmma.m64n64k8.f32.tf32 r32, r244, r246, 0
        wgmma.m64n64k8.f32.tf32 r32, r244, r246, 1
        wgmma.commit_group
        wgmma.wait_group 0
        ldparam r250, 0
        shl   r251, r200, 8
        add   r250, r250, r251
        st.global.32 [r250+0], r0
        st.global.32 [r250+4], r1
        st.global.32 [r250+8], r2
        st.global.32 [r250+12], r3
        st.global.32 [r250+16], r4
        st.global.32 [r250+20], r5
        st.global.32 [r250+24], r6
        st.global.32 [r250+28], r7
        st.global.32 [r250+32], r8
        st.global.32 [r250+36], r9
        st.global.32 [r250+40], r10
        st.global.32 [r250+44], r11
        st.global.32 [r250+48], r12
        st.global.32 [r250+52], r13
        st.global.32 [r250+56], r14
        st.global.32 [r250+60], r15
        st.global.32 [r250+64], r16
        st.global.32 [r250+68], r17
        st.global.32 [r250+72], r18
        st.global.32 [r250+76], r19
        st.global.32 [r250+80], r20
        st.global.32 [r250+84], r21
        st.global.32 [r250+88], r22
        st.global.32 [r250+92], r23
        st.global.32 [r250+96], r24
        st.global.32 [r250+100], r25
        st.global.32 [r250+104], r26
        st.global.32 [r250+108], r27
        st.global.32 [r250+112], r28
        st.global.32 [r250+116], r29
        st.global.32 [r250+120], r30
        st.global.32 [r250+124], r31
        st.global.32 [r250+128], r32
        st.global.32 [r250+132], r33
        st.global.32 [r250+136], r34
        st.global.32 [r250+140], r35
        st.global.32 [r250+144], r36
        st.global.32 [r250+148], r37
        st.global.32 [r250+152], r38
        st.global.32 [r250+156], r39
        st.global.32 [r250+160], r40
        st.global.32 [r250+164], r41
        st.global.32 [r250+168], r42
        st.global.32 [r250+172], r43
        st.global.32 [r250+176], r44
        st.global.32 [r250+180], r45
        st.global.32 [r250+184], r46
        st.global.32 [r250+188], r47
        st.global.32 [r250+192], r48
        st.global.32 [r250+196], r49
        st.global.32 [r250+200], r50
        st.global.32 [r250+204], r51
        st.global.32 [r250+208], r52
        st.global.32 [r250+212], r53
        st.global.32 [r250+216], r54
        st.global.32 [r250+220], r55
        st.global.32 [r250+224], r56
        st.global.32 [r250+228], r57
        st.global.32 [r250+232], r58
        st.global.32 [r250+236], r59
        st.global.32 [r250+240], r60
        st.global.32 [r250+244], r61
        st.global.32 [r250+248], r62
        st.global.32 [r250+252], r63

; GEMM C = A x B on one SM with a TMA-fed shared-memory ring and warpgroup MMAs (bf16 in,
; fp32 out), in the style of a Hopper warp-specialised kernel. Block of 160 threads:
; warps 0-3 are the consumer warpgroup, warp 4 the producer.
;
; A: M x K bf16, row-major (K-major), tensor map 0 with a 64 (K) x 64 (M) box, 128B swizzle.
; B: given transposed, N x K bf16 (K-major), tensor map 1 with a 64 (K) x 256 (N) box.
; C: M x N fp32, row-major. Parameters: M, N, K (multiples of 64, 256, 64), C's address and
; the ring's stages S (2 .. 5: with one, the consumer would wait for the next fill while it
; still holds the only stage; six would not fit the 228 KB). Each output tile is 64 x 256;
; K goes in steps of 64 through the ring in shared memory: stage s (40960 bytes) holds A at
; 40960 s and B at 40960 s + 8192 (both 1024-byte aligned). full[s] (shared 204800 + 8s)
; completes when a stage's bytes have landed; empty[s] (204848 + 8s) when the 128 consumer
; threads have finished reading it.
.kernel gemm_tma_gmma
        mov   r200, %tid
        mov   r201, %warpid
        mov   r202, 204800              ; full barriers
        mov   r203, 204848              ; empty barriers
        ldparam r218, 4                 ; stages
        setp.eq.s32 p0, r200, 0
   @p0  bra   init
        bra   inited
init:   mov   r204, 0
init_s: shl   r205, r204, 3
        add   r206, r202, r205
        mbarrier.init [r206], 1
        add   r206, r203, r205
        mbarrier.init [r206], 128
        add   r204, r204, 1
        setp.lt.s32 p1, r204, r218
   @p1  bra   init_s
inited:
        bar.sync
        ldparam r211, 0                 ; M
        ldparam r212, 1                 ; N
        ldparam r213, 2                 ; K
        mov   r220, 0                   ; ring stage
        mov   r214, 0                   ; m0
        setp.eq.s32 p1, r201, 4
   @p1  bra   producer

; ---- consumers: warpgroup MMAs out of the ring, then the tile's epilogue ----------------
        ldparam r217, 3                 ; C
        mov   r221, 0                   ; parity of the full-barrier phase awaited
c_mloop:
        mov   r215, 0                   ; n0
c_nloop:
        mov   r216, 0                   ; k0
        mov   r228, 0                   ; a previous stage is still held
c_kloop:
        shl   r222, r220, 3
        add   r224, r202, r222          ; full[s]
        mbarrier.wait [r224], r221
        mul   r225, r220, 40960         ; A stage
        add   r226, r225, 8192          ; B stage
        shr   r240, r225, 4             ; descriptors: start >> 4, LBO 16 B (unused when swizzled),
        or    r240, r240, 65536         ; SBO 1024 B (8 rows of 128 B), 128B swizzle
        mov   r241, 0x40000040
        shr   r242, r226, 4
        or    r242, r242, 65536
        mov   r243, 0x40000040
        setp.eq.s32 p5, r216, 0
   @p5  bra   c_first
        wgmma.m64n256k16.f32.bf16 r0, r240, r242, 1
        bra   c_rest
c_first:
        wgmma.m64n256k16.f32.bf16 r0, r240, r242, 0   ; the tile's first MMA: D = A x B
c_rest:
        .rept 3
        add   r240, r240, 2             ; next 16 K: 32 bytes further along the row
        add   r242, r242, 2
        wgmma.m64n256k16.f32.bf16 r0, r240, r242, 1
        .endr
        wgmma.commit_group
        wgmma.wait_group 1              ; the previous stage's MMAs are done:
        setp.ne.s32 p6, r228, 0
        shl   r222, r229, 3
        add   r223, r203, r222
   @p6  mbarrier.arrive [r223]          ; release it to the producer
        mov   r229, r220
        mov   r228, 1
        add   r220, r220, 1
        setp.eq.s32 p3, r220, r218
   @p3  mov   r220, 0
   @p3  xor   r221, r221, 1
        add   r216, r216, 64
        setp.lt.s32 p4, r216, r213
   @p4  bra   c_kloop
        wgmma.wait_group 0
        shl   r222, r229, 3
        add   r223, r203, r222
        mbarrier.arrive [r223]
        ; epilogue: register 4j+q holds row 16*warp + lane/4 + 8*(q/2), column 8j + 2*(lane%4) + q%2
        mov   r250, %laneid
        shl   r252, r201, 4
        shr   r253, r250, 2
        add   r252, r252, r253
        add   r252, r252, r214          ; row
        mul   r252, r252, r212
        and   r254, r250, 3
        shl   r254, r254, 1
        add   r254, r254, r215          ; column
        add   r252, r252, r254
        shl   r252, r252, 2
        add   r252, r252, r217          ; &C[row][column]
        shl   r249, r212, 5
        add   r249, r249, r252          ; &C[row + 8][column]
        st.global.64 [r252+0], r0
        st.global.64 [r249+0], r2
        st.global.64 [r252+32], r4
        st.global.64 [r249+32], r6
        st.global.64 [r252+64], r8
        st.global.64 [r249+64], r10
        st.global.64 [r252+96], r12
        st.global.64 [r249+96], r14
        st.global.64 [r252+128], r16
        st.global.64 [r249+128], r18
        st.global.64 [r252+160], r20
        st.global.64 [r249+160], r22
        st.global.64 [r252+192], r24
        st.global.64 [r249+192], r26
        st.global.64 [r252+224], r28
        st.global.64 [r249+224], r30
        st.global.64 [r252+256], r32
        st.global.64 [r249+256], r34
        st.global.64 [r252+288], r36
        st.global.64 [r249+288], r38
        st.global.64 [r252+320], r40
        st.global.64 [r249+320], r42
        st.global.64 [r252+352], r44
        st.global.64 [r249+352], r46
        st.global.64 [r252+384], r48
        st.global.64 [r249+384], r50
        st.global.64 [r252+416], r52
        st.global.64 [r249+416], r54
        st.global.64 [r252+448], r56
        st.global.64 [r249+448], r58
        st.global.64 [r252+480], r60
        st.global.64 [r249+480], r62
        st.global.64 [r252+512], r64
        st.global.64 [r249+512], r66
        st.global.64 [r252+544], r68
        st.global.64 [r249+544], r70
        st.global.64 [r252+576], r72
        st.global.64 [r249+576], r74
        st.global.64 [r252+608], r76
        st.global.64 [r249+608], r78
        st.global.64 [r252+640], r80
        st.global.64 [r249+640], r82
        st.global.64 [r252+672], r84
        st.global.64 [r249+672], r86
        st.global.64 [r252+704], r88
        st.global.64 [r249+704], r90
        st.global.64 [r252+736], r92
        st.global.64 [r249+736], r94
        st.global.64 [r252+768], r96
        st.global.64 [r249+768], r98
        st.global.64 [r252+800], r100
        st.global.64 [r249+800], r102
        st.global.64 [r252+832], r104
        st.global.64 [r249+832], r106
        st.global.64 [r252+864], r108
        st.global.64 [r249+864], r110
        st.global.64 [r252+896], r112
        st.global.64 [r249+896], r114
        st.global.64 [r252+928], r116
        st.global.64 [r249+928], r118
        st.global.64 [r252+960], r120
        st.global.64 [r249+960], r122
        st.global.64 [r252+992], r124
        st.global.64 [r249+992], r126
        add   r215, r215, 256
        setp.lt.s32 p4, r215, r212
   @p4  bra   c_nloop
        add   r214, r214, 64
        setp.lt.s32 p4, r214, r211
   @p4  bra   c_mloop
        exit

; ---- producer: one thread fills the ring with TMA copies -------------------------------
producer:
        mov   r210, %laneid
        setp.eq.s32 p2, r210, 0
        mov   r221, 1                   ; parity awaited on empty[s]: a fresh barrier passes
p_mloop:
        mov   r215, 0
p_nloop:
        mov   r216, 0
p_kloop:
        shl   r222, r220, 3
        add   r223, r203, r222          ; empty[s]
        add   r224, r202, r222          ; full[s]
        mbarrier.wait [r223], r221
   @p2  mbarrier.arrive.expect_tx [r224], 40960
        mul   r225, r220, 40960
        add   r226, r225, 8192
        mov   r230, r216                ; A box at (k0, m0)
        mov   r231, r214
   @p2  tma.load [r225], 0, [r224], r230
        mov   r232, r216                ; B box at (k0, n0)
        mov   r233, r215
   @p2  tma.load [r226], 1, [r224], r232
        add   r220, r220, 1
        setp.eq.s32 p3, r220, r218
   @p3  mov   r220, 0
   @p3  xor   r221, r221, 1
        add   r216, r216, 64
        setp.lt.s32 p4, r216, r213
   @p4  bra   p_kloop
        add   r215, r215, 256
        setp.lt.s32 p4, r215, r212
   @p4  bra   p_nloop
        add   r214, r214, 64
        setp.lt.s32 p4, r214, r211
   @p4  bra   p_mloop
        exit

; GEMM C = A x B on one SM as CUTLASS's cooperative warp-specialised kernels do it: C
; consumer warpgroups (parameter 5: 1 or 2) share each (64 C) x TN output tile (parameter 6:
; TN 128 or 256, wgmma.m64n128k16 or m64n256k16), 64 rows each, and one producer warp fills a
; TMA-fed shared-memory ring for them (bf16 in, fp32 out). Block of 128 C + 32 threads: warps
; 0 .. 4C-1 the consumers (warpgroup c = warps 4c .. 4c+3), warp 4C the producer.
;
; A: M x K bf16, row-major (K-major), tensor map 0 with a 64 (K) x 64 C (M) box, 128B swizzle.
; B: given transposed, N x K bf16 (K-major), tensor map 1 with a 64 (K) x TN (N) box.
; C: M x N fp32, row-major. Parameters: M, N, K (multiples of 64 C, TN, 64), C's address, the
; ring's stages S, the consumer warpgroups C and TN. A stage holds A (8192 C bytes, warpgroup
; c's 64 rows 8192 c in) and then B (128 TN bytes): 8192 C + 128 TN bytes, stage s at s times
; that; S stages must fit below shared 196608. full[s] (shared 196608 + 8s) completes when a
; stage's bytes have landed, empty[s] (196672 + 8s) when the 128 C consumer threads have
; finished reading it. With C = 2 each B box feeds twice the rows of A: the ring carries
; 8192 C + 128 TN bytes per (64 C) x TN x 64 step.
.kernel gemm_ws_cooperative
        mov   r128, %tid
        mov   r129, %warpid
        mov   r130, 196608              ; full barriers
        mov   r131, 196672              ; empty barriers
        ldparam r146, 4                 ; stages
        ldparam r147, 5                 ; consumer warpgroups
        ldparam r169, 6                 ; tile N
        shl   r158, r147, 13            ; stage bytes: 8192 C + 128 TN
        shl   r135, r169, 7
        add   r158, r158, r135
        shl   r159, r147, 7             ; consumer threads: 128 C
        setp.eq.s32 p7, r169, 128       ; m64n128 (else m64n256)
        setp.eq.s32 p0, r128, 0
   @p0  bra   init
        bra   inited
init:   mov   r132, 0
init_s: shl   r133, r132, 3
        add   r134, r130, r133
        mbarrier.init [r134], 1
        add   r134, r131, r133
        mbarrier.init [r134], r159
        add   r132, r132, 1
        setp.lt.s32 p1, r132, r146
   @p1  bra   init_s
inited:
        bar.sync
        ldparam r139, 0                 ; M
        ldparam r140, 1                 ; N
        ldparam r141, 2                 ; K
        shl   r167, r147, 6             ; tile rows: 64 C
        mov   r148, 0                   ; ring stage
        mov   r142, 0                   ; m0
        shl   r135, r147, 2             ; the producer warp: 4 C
        setp.eq.s32 p1, r129, r135
   @p1  bra   producer

; ---- consumers: warpgroup MMAs out of the ring, then the tile's epilogue ----------------
        ldparam r145, 3                 ; C
        mov   r149, 0                   ; parity of the full-barrier phase awaited
        shr   r164, r129, 2             ; this warpgroup
        shl   r165, r164, 13            ; its A rows: 8192 bytes a warpgroup into the stage
        shl   r168, r147, 13            ; B: after the stage's A
c_mloop:
        mov   r143, 0                   ; n0
c_nloop:
        mov   r144, 0                   ; k0
        mov   r156, 0                   ; a previous stage is still held
c_kloop:
        shl   r150, r148, 3
        add   r152, r130, r150          ; full[s]
        mbarrier.wait [r152], r149
        mul   r153, r148, r158          ; A stage
        add   r154, r153, r168          ; B stage
        add   r153, r153, r165          ; this warpgroup's A rows
        shr   r160, r153, 4             ; descriptors: start >> 4, LBO 16 B (unused when swizzled),
        or    r160, r160, 65536         ; SBO 1024 B (8 rows of 128 B), 128B swizzle
        mov   r161, 0x40000040
        shr   r162, r154, 4
        or    r162, r162, 65536
        mov   r163, 0x40000040
        setp.eq.s32 p5, r144, 0         ; the tile's first MMA: D = A x B
   @p7  bra   c_n128
   @p5  wgmma.m64n256k16.f32.bf16 r0, r160, r162, 0
  @!p5  wgmma.m64n256k16.f32.bf16 r0, r160, r162, 1
        .rept 3
        add   r160, r160, 2             ; next 16 K: 32 bytes further along the row
        add   r162, r162, 2
        wgmma.m64n256k16.f32.bf16 r0, r160, r162, 1
        .endr
        bra   c_commit
c_n128:
   @p5  wgmma.m64n128k16.f32.bf16 r0, r160, r162, 0
  @!p5  wgmma.m64n128k16.f32.bf16 r0, r160, r162, 1
        .rept 3
        add   r160, r160, 2             ; next 16 K: 32 bytes further along the row
        add   r162, r162, 2
        wgmma.m64n128k16.f32.bf16 r0, r160, r162, 1
        .endr
c_commit:
        wgmma.commit_group
        wgmma.wait_group 1              ; the previous stage's MMAs are done:
        setp.ne.s32 p6, r156, 0
        shl   r150, r157, 3
        add   r151, r131, r150
   @p6  mbarrier.arrive [r151]          ; release it to the producer
        mov   r157, r148
        mov   r156, 1
        add   r148, r148, 1
        setp.eq.s32 p3, r148, r146
   @p3  mov   r148, 0
   @p3  xor   r149, r149, 1
        add   r144, r144, 64
        setp.lt.s32 p4, r144, r141
   @p4  bra   c_kloop
        wgmma.wait_group 0
        shl   r150, r157, 3
        add   r151, r131, r150
        mbarrier.arrive [r151]
        ; epilogue: register 4j+q holds row 64*warpgroup + 16*(warp%4) + lane/4 + 8*(q/2),
        ; column 8j + 2*(lane%4) + q%2 (j < TN / 8)
        mov   r170, %laneid
        shl   r172, r129, 4             ; 16 * warp = 64 * warpgroup + 16 * (warp % 4)
        shr   r173, r170, 2
        add   r172, r172, r173
        add   r172, r172, r142          ; row
        mul   r172, r172, r140
        and   r174, r170, 3
        shl   r174, r174, 1
        add   r174, r174, r143          ; column
        add   r172, r172, r174
        shl   r172, r172, 2
        add   r172, r172, r145          ; &C[row][column]
        shl   r171, r140, 5
        add   r171, r171, r172          ; &C[row + 8][column]
        st.global.64 [r172+0], r0
        st.global.64 [r171+0], r2
        st.global.64 [r172+32], r4
        st.global.64 [r171+32], r6
        st.global.64 [r172+64], r8
        st.global.64 [r171+64], r10
        st.global.64 [r172+96], r12
        st.global.64 [r171+96], r14
        st.global.64 [r172+128], r16
        st.global.64 [r171+128], r18
        st.global.64 [r172+160], r20
        st.global.64 [r171+160], r22
        st.global.64 [r172+192], r24
        st.global.64 [r171+192], r26
        st.global.64 [r172+224], r28
        st.global.64 [r171+224], r30
        st.global.64 [r172+256], r32
        st.global.64 [r171+256], r34
        st.global.64 [r172+288], r36
        st.global.64 [r171+288], r38
        st.global.64 [r172+320], r40
        st.global.64 [r171+320], r42
        st.global.64 [r172+352], r44
        st.global.64 [r171+352], r46
        st.global.64 [r172+384], r48
        st.global.64 [r171+384], r50
        st.global.64 [r172+416], r52
        st.global.64 [r171+416], r54
        st.global.64 [r172+448], r56
        st.global.64 [r171+448], r58
        st.global.64 [r172+480], r60
        st.global.64 [r171+480], r62
   @p7  bra   c_stored                ; (m64n128: 64 registers)
        st.global.64 [r172+512], r64
        st.global.64 [r171+512], r66
        st.global.64 [r172+544], r68
        st.global.64 [r171+544], r70
        st.global.64 [r172+576], r72
        st.global.64 [r171+576], r74
        st.global.64 [r172+608], r76
        st.global.64 [r171+608], r78
        st.global.64 [r172+640], r80
        st.global.64 [r171+640], r82
        st.global.64 [r172+672], r84
        st.global.64 [r171+672], r86
        st.global.64 [r172+704], r88
        st.global.64 [r171+704], r90
        st.global.64 [r172+736], r92
        st.global.64 [r171+736], r94
        st.global.64 [r172+768], r96
        st.global.64 [r171+768], r98
        st.global.64 [r172+800], r100
        st.global.64 [r171+800], r102
        st.global.64 [r172+832], r104
        st.global.64 [r171+832], r106
        st.global.64 [r172+864], r108
        st.global.64 [r171+864], r110
        st.global.64 [r172+896], r112
        st.global.64 [r171+896], r114
        st.global.64 [r172+928], r116
        st.global.64 [r171+928], r118
        st.global.64 [r172+960], r120
        st.global.64 [r171+960], r122
        st.global.64 [r172+992], r124
        st.global.64 [r171+992], r126
c_stored:
        add   r143, r143, r169
        setp.lt.s32 p4, r143, r140
   @p4  bra   c_nloop
        add   r142, r142, r167
        setp.lt.s32 p4, r142, r139
   @p4  bra   c_mloop
        exit

; ---- producer: one thread fills the ring with TMA copies -------------------------------
producer:
        mov   r166, %laneid
        setp.eq.s32 p2, r166, 0
        mov   r149, 1                   ; parity awaited on empty[s]: a fresh barrier passes
        shl   r168, r147, 13            ; B: after the stage's A
p_mloop:
        mov   r143, 0
p_nloop:
        mov   r144, 0
p_kloop:
        shl   r150, r148, 3
        add   r151, r131, r150          ; empty[s]
        add   r152, r130, r150          ; full[s]
        mbarrier.wait [r151], r149
   @p2  mbarrier.arrive.expect_tx [r152], r158
        mul   r153, r148, r158
        add   r154, r153, r168
        mov   r180, r144                ; A box at (k0, m0)
        mov   r181, r142
   @p2  tma.load [r153], 0, [r152], r180
        mov   r182, r144                ; B box at (k0, n0)
        mov   r183, r143
   @p2  tma.load [r154], 1, [r152], r182
        add   r148, r148, 1
        setp.eq.s32 p3, r148, r146
   @p3  mov   r148, 0
   @p3  xor   r149, r149, 1
        add   r144, r144, 64
        setp.lt.s32 p4, r144, r141
   @p4  bra   p_kloop
        add   r143, r143, r169
        setp.lt.s32 p4, r143, r140
   @p4  bra   p_nloop
        add   r142, r142, r167
        setp.lt.s32 p4, r142, r139
   @p4  bra   p_mloop
        exit

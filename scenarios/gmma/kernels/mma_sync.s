; The warp-level MMA mma.sync.aligned.m16n8k16, checked bit for bit against the golden
; interpreter: warp 0 on f16, warp 1 on bf16 operands. Warp w's operands lie at 2048 w in
; global memory: A (16 x 16, row-major) at +0, B (16 x 8, column by column: K contiguous)
; at +512, C (16 x 8 fp32, row-major) at +1024. Each lane loads its fragments (g = lane / 4,
; t = lane % 4: A register i holds row g + 8 (i % 2), columns 2t + 8 (i / 2) and + 1; B
; register i rows 2t + 8i and + 1 of column g; C register i row g + 8 (i / 2), column
; 2t + (i % 2)), then
;   D1 (r12 .. r15) = A x B + C
;   D2 (r16 .. r19) = A x B + D1   (the second waits on the first's D)
; and each thread stores D1 and D2 at parameter 0 + 32 x tid.
.kernel mma_sync
        mov   r200, %tid
        mov   r201, %laneid
        mov   r202, %warpid
        shl   r203, r202, 11            ; this warp's operands: 2048 bytes a warp
        shr   r204, r201, 2             ; g
        and   r205, r201, 3             ; t
        shl   r206, r204, 5             ; 32 g
        add   r206, r206, r203
        shl   r207, r205, 2             ; 4 t
        add   r208, r206, r207          ; A, B: base + 32 g + 4 t
        ld.global.32 r0, [r208+0]       ; A: row g, columns 2t, 2t+1
        ld.global.32 r1, [r208+256]     ;    row g + 8
        ld.global.32 r2, [r208+16]      ;    row g, columns 2t + 8, 2t + 9
        ld.global.32 r3, [r208+272]     ;    row g + 8
        ld.global.32 r4, [r208+512]     ; B: column g, rows 2t, 2t+1
        ld.global.32 r5, [r208+528]     ;    rows 2t + 8, 2t + 9
        shl   r209, r205, 3             ; 8 t
        add   r209, r206, r209          ; C: base + 32 g + 8 t
        ld.global.32 r8, [r209+1024]    ; row g, column 2t
        ld.global.32 r9, [r209+1028]    ;        column 2t + 1
        ld.global.32 r10, [r209+1280]   ; row g + 8
        ld.global.32 r11, [r209+1284]
        setp.eq.s32 p0, r202, 0
   @p0  bra   f16
        mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 r12, r0, r4, r8
        mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 r16, r0, r4, r12
        bra   store
f16:    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r12, r0, r4, r8
        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r16, r0, r4, r12
store:  ldparam r250, 0
        shl   r251, r200, 5
        add   r250, r250, r251
        st.global.32 [r250+0], r12
        st.global.32 [r250+4], r13
        st.global.32 [r250+8], r14
        st.global.32 [r250+12], r15
        st.global.32 [r250+16], r16
        st.global.32 [r250+20], r17
        st.global.32 [r250+24], r18
        st.global.32 [r250+28], r19
        exit

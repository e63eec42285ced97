; One register file for the ALU and the tensor path: warp 0 runs parameter 1 rounds of 8
; independent mma.sync.aligned.m16n8k16 chains through its sub-partition's register file,
; while warp parameter 0 (4: the same sub-partition, 5: another; any other: none) runs a loop
; of multiply-adds whose operands are read, and results written, through its own
; sub-partition's register file. Every other warp exits. The operands are zeros.
.kernel mma_sync_beside_alu
        mov   r111, %warpid
        ldparam r110, 1
        ldparam r112, 0
        setp.eq.s32 p0, r111, 0
   @p0  bra   mma
        setp.ne.s32 p1, r111, r112
   @p1  exit
        mov   r109, 0
        shl   r113, r110, 3             ; as many iterations as mma.sync
alu:    mad   r1, r2, r3, r1
        mad   r4, r5, r6, r4
        mad   r7, r8, r9, r7
        mad   r10, r11, r12, r10
        add   r109, r109, 1
        setp.ne.s32 p2, r109, r113
   @p2  bra   alu
        exit
mma:    mov   r109, 0
round:  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r72, r64, r68, r72
        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r76, r64, r68, r76
        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r80, r64, r68, r80
        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r84, r64, r68, r84
        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r88, r64, r68, r88
        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r92, r64, r68, r92
        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r96, r64, r68, r96
        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r100, r64, r68, r100
        add   r109, r109, 1
        setp.ne.s32 p1, r109, r110
   @p1  bra   round
        exit

; The warp-level against the warpgroup MMA's rate on one SM (f16 in, f32 accumulators):
; warpgroup 0 first runs 16 dependent wgmma.m64n128k16 (the GMMA unit's mma_fma_rate), then
; after a barrier every warp of the block (4 per sub-partition) runs parameter 0 rounds of
; 8 independent mma.sync.aligned.m16n8k16 chains, each accumulating into its own D (the
; GMMA unit's mma_sync_fma_rate). The operands are zeros: a timing benchmark.
.kernel calibrate_mma_sync
        mov   r111, %warpid
        setp.ge.s32 p0, r111, 4
   @p0  bra   sync
        mov   r104, 0x80000             ; A at 0: LBO 128 B, SBO 256 B, no swizzle
        mov   r105, 16
        mov   r106, 0x80080             ; B at 2048
        mov   r107, 16
        wgmma.m64n128k16.f32.f16 r0, r104, r106, 0
        .rept 15
        wgmma.m64n128k16.f32.f16 r0, r104, r106, 1
        .endr
        wgmma.commit_group
        wgmma.wait_group 0
sync:   bar.sync
        ldparam r110, 0
        mov   r109, 0
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

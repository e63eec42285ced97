; Each warp of a warpgroup stores a 64 x 64 bf16 box (8 KB) with one thread's tma.store and
; waits for it (tma.wait), then the warpgroup runs one wgmma.m64n64k16 on the shared memory:
; the tensor cores' idle time before it is the stores' (tc_idle_other_wait).
.kernel tc_idle_tma_wait
        mov   r100, %laneid
        mov   r101, %warpid
        setp.eq.s32 p0, r100, 0
        mov   r103, 0
        shl   r104, r101, 6             ; box at row 64 x warp
        shl   r105, r101, 13            ; shared source: 8 KB per warp
   @p0  tma.store [r105], 0, r103
        tma.wait
        mov   r106, 0x80000             ; A at 0: LBO 128 B, SBO 256 B, no swizzle
        mov   r107, 16
        mov   r108, 0x80080             ; B at 2048
        mov   r109, 16
        wgmma.m64n64k16.f32.f16 r0, r106, r108, 0
        wgmma.commit_group
        wgmma.wait_group 0
        exit

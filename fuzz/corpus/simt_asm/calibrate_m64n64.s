; Calibration microbenchmarks of the GMMA SM, as one would time them on the hardware:
;  1. a chain of 32 dependent shared-memory loads (each address is the previous load's data):
;     the core's shared_load_latency;
;  2. one TMA copy of a 64 x 8 bf16 box (8 rows of 128 bytes) and the wait on its barrier:
;     the core's tma_round_trip;
;  3. 16 dependent wgmma.m64n64k16 accumulating into one D: the GMMA unit's mma_interval.
; Warpgroup of 4 warps; thread 0 does 1 and 2.
.kernel calibrate_m64n64
        mov   r200, %tid
        setp.eq.s32 p0, r200, 0
        mov   r201, 0
        mov   r210, 16384               ; barrier
   @p0  bra   chain
        bra   mma
chain:
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        mbarrier.init [r210], 1
        mbarrier.arrive.expect_tx [r210], 1024
        mov   r211, 0                   ; box at (0, 0)
        mov   r212, 0
        mov   r213, 12288               ; destination
        tma.load [r213], 0, [r210], r211
        mbarrier.wait [r210], 0
mma:
        bar.sync
        mov   r240, 0                   ; A at 0 and B at 2048, no swizzle: LBO 128 B, SBO 256 B
        mov   r241, 16
        mov   r242, 128
        mov   r243, 16
        or    r240, r240, 0x80000       ; LBO 128 >> 4 = 8 in bits 16-29
        or    r242, r242, 0x80000
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 0
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 1
        wgmma.commit_group
        wgmma.wait_group 0
        exit

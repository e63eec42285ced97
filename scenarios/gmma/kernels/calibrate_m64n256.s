; Calibration microbenchmarks of the GMMA SM, as one would time them on the hardware:
;  1. a chain of 32 dependent shared-memory loads (each address is the previous load's data):
;     the core's shared_load_latency;
;  2. TMA copies of the 64 x 8 bf16 boxes of the tensor one after the other (parameter 0 of
;     them: 8 rows of 128 bytes each, box k at rows 8k), each waited on through the mbarrier
;     before the next is issued: the core's tma_round_trip is their mean. With parameter 1
;     set, thread 0 first reads every 32-byte sector of those boxes with ld.global.cg, so
;     that the copies find their data in the L2; otherwise the data comes from DRAM;
;  3. 16 dependent wgmma.m64n256k16 accumulating into one D: the GMMA unit's mma_interval.
; Warpgroup of 4 warps; thread 0 does 1 and 2.
.kernel calibrate_m64n256
        mov   r200, %tid
        setp.eq.s32 p0, r200, 0
        mov   r201, 0
        mov   r210, 16384               ; barrier
   @p0  bra   chain
        bra   mma
chain:
        .rept 32
        ld.shared.32 r201, [r201]       ; shared memory is zero: every load reads address 0
        .endr
        ldparam r214, 0                 ; copies
        ldparam r215, 1                 ; 1: the data in the L2 first
        mbarrier.init [r210], 1
        setp.eq.s32 p1, r215, 0
   @p1  bra copies
        mov   r220, 0
        shl   r221, r214, 10            ; 1 KB per box
warm:   ld.global.cg.32 r222, [r220]
        add   r220, r220, 32
        setp.ne.s32 p1, r220, r221
   @p1  bra   warm
        add   r222, r222, 0             ; (waits for the last sector)
copies: mov   r211, 0                   ; box at (0, 8k)
        mov   r212, 0
        mov   r213, 12288               ; destination
        mov   r216, 0                   ; phase parity
copy:   mbarrier.arrive.expect_tx [r210], 1024
        tma.load [r213], 0, [r210], r211
        mbarrier.wait [r210], r216
        xor   r216, r216, 1
        add   r212, r212, 8
        sub   r214, r214, 1
        setp.ne.s32 p1, r214, 0
   @p1  bra   copy
mma:
        bar.sync
        mov   r240, 0                   ; A at 0 and B at 2048, no swizzle: LBO 128 B, SBO 256 B
        mov   r241, 16
        mov   r242, 128
        mov   r243, 16
        or    r240, r240, 0x80000       ; LBO 128 >> 4 = 8 in bits 16-29
        or    r242, r242, 0x80000
        wgmma.m64n256k16.f32.bf16 r0, r240, r242, 0
        .rept 15
        wgmma.m64n256k16.f32.bf16 r0, r240, r242, 1
        .endr
        wgmma.commit_group
        wgmma.wait_group 0
        exit

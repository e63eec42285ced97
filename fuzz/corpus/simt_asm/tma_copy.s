; A box of 64 x 8 bf16 (8 rows of 128 bytes) from the bottom edge of tensor 0 through shared
; memory into tensor 1: the box overhangs the tensor by 4 rows, which load as zeros and are
; not stored. One thread issues both copies; the store completes before the kernel ends.
.kernel tma_copy
        mov   r1, %tid
        setp.ne.s32 p0, r1, 0
   @p0  exit
        mov   r2, 16384                 ; barrier
        mbarrier.init [r2], 1
        mbarrier.arrive.expect_tx [r2], 1024
        mov   r3, 0                     ; box at element 0 of row 60
        mov   r4, 60
        mov   r5, 1024                  ; shared destination (128B swizzled)
        tma.load [r5], 0, [r2], r3
        mbarrier.wait [r2], 0
        tma.store [r5], 1, r3
        tma.wait
        exit

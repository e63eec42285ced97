; 16 dependent m64n256k8 tf32 warpgroup MMAs accumulating into one D (the
; operands are shared memory's zeros: a timing benchmark): the GMMA unit's mma_interval and
; mma_fma_rate. Warpgroup of 4 warps.
.kernel calibrate_tf32
        mov   r240, 0x80000             ; A at 0: LBO 128 B, SBO 256 B, no swizzle
        mov   r241, 16
        mov   r242, 0x80080             ; B at 2048
        mov   r243, 16
        wgmma.m64n256k8.f32.tf32 r0, r240, r242, 0
        .rept 15
        wgmma.m64n256k8.f32.tf32 r0, r240, r242, 1
        .endr
        wgmma.commit_group
        wgmma.wait_group 0

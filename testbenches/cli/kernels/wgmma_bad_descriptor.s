; A's descriptor starts 128 bytes into a 128B swizzle pattern: a simulated fault.
.kernel wgmma_bad_descriptor
        mov   r240, 0x148               ; start address 0x1480 >> 4
        or    r240, r240, 65536
        mov   r241, 0x40000040          ; SBO 1024, 128B swizzle
        mov   r242, 0
        mov   r243, 0x40000040
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 0
        wgmma.commit_group
        wgmma.wait_group 0
        exit

.kernel k
        wgmma.m64n64k32.f32.bf16 r0, r240, r242, 1
        exit

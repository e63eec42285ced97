.kernel k
        wgmma.m64n12k16.f32.bf16 r0, r240, r242, 1
        exit

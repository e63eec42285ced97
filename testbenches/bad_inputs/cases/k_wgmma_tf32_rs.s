.kernel k
        wgmma.m64n64k8.f32.tf32.rs r0, r240, r242, 1
        exit

; Warp 3 of the warpgroup exits instead of issuing the wgmma: the others wait forever.
.kernel wgmma_missing_warp
        mov   r200, %warpid
        setp.eq.s32 p0, r200, 3
   @p0  exit
        mov   r240, 64                  ; A at 1024, B at 0, both 128B swizzled
        or    r240, r240, 65536
        mov   r241, 0x40000040
        mov   r242, 0
        or    r242, r242, 65536
        mov   r243, 0x40000040
        wgmma.m64n64k16.f32.bf16 r0, r240, r242, 0
        wgmma.commit_group
        wgmma.wait_group 0
        exit

.kernel k
        mov   r240, 0x80000
        mov   r241, 16
        mov   r242, 0x80080
        mov   r243, 16
        mov   r1, %laneid
        setp.lt.s32 p0, r1, 16
   @p0  wgmma.m64n64k16.f32.bf16 r0, r240, r242, 0
        wgmma.commit_group
        wgmma.wait_group 0
        exit

.kernel k
        mov   r1, %laneid
        setp.ge.s32 p0, r1, 16
   @p0  exit
        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r12, r0, r4, r8
        exit

.kernel k
        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r12, r0, r4, r8
        exit

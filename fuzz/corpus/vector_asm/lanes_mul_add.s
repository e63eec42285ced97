; Chained load -> multiply -> add on 32-element registers: acc += X[i] * r4 over 8 strips
; per loop iteration (unrolled so that the issue stage keeps the units busy), 16 iterations.
        li    r1, 16          ; loop iterations (16 x 8 strips x 32 elements = 4096)
        li    r2, X
        li    r4, 3           ; multiplier
        setvl 32
        setvs 1
loop:   vld   v0, [r2]
        vmul  v1, v0, r4
        vadd  v7, v7, v1
        vld   v2, [r2+256]
        vmul  v3, v2, r4
        vadd  v7, v7, v3
        vld   v4, [r2+512]
        vmul  v5, v4, r4
        vadd  v7, v7, v5
        vld   v0, [r2+768]
        vmul  v1, v0, r4
        vadd  v7, v7, v1
        vld   v2, [r2+1024]
        vmul  v3, v2, r4
        vadd  v7, v7, v3
        vld   v4, [r2+1280]
        vmul  v5, v4, r4
        vadd  v7, v7, v5
        vld   v0, [r2+1536]
        vmul  v1, v0, r4
        vadd  v7, v7, v1
        vld   v2, [r2+1792]
        vmul  v3, v2, r4
        vadd  v7, v7, v3
        add   r2, r2, 2048
        dbnz  r1, loop
        vst   SUM, v7

        .data 0
X:      .space 4096
SUM:    .space 32

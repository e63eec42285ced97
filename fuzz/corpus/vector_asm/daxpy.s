; DAXPY, strip-mined: Y[i] = a * X[i] + Y[i] (binary64) for i < N. N, a and the address
; of Y come from memory, so one program serves every size.
        ld    r1, N
        ld    r6, ALPHA
        ld    r3, YADDR
        li    r2, X
        setvs 1
loop:   setvl r4, r1          ; VL = min(remaining, max_vl)
        vld   v0, [r2]
        vfmul v1, v0, r6
        vld   v2, [r3]
        vfadd v3, v1, v2
        vst   [r3], v3
        sub   r1, r1, r4
        shl   r5, r4, 3
        add   r2, r2, r5
        add   r3, r3, r5
        bnez  r1, loop

        .data 0
N:      .word 1024
ALPHA:  .double 2.5
YADDR:  .word 8216
X:      .space 0

; Strip mining: B[i] = 2 * A[i] + 1 over N = 527 elements with 64-element registers.
; setvl r4, r1 takes VL = min(remaining, 64): 8 strips of 64, then one of 15.
        li    r1, 527         ; remaining elements
        li    r2, A
        li    r3, B
        setvs 1
loop:   setvl r4, r1
        vld   v0, [r2]
        vshl  v1, v0, 1
        vadd  v2, v1, 1
        vst   [r3], v2
        sub   r1, r1, r4
        shl   r5, r4, 3       ; bytes in this strip
        add   r2, r2, r5
        add   r3, r3, r5
        bnez  r1, loop

        .data 0
A:      .space 527
B:      .space 527

; The lecture's 4-element example: load, add 1, multiply by 2, store.
        setvl 4
        vld   v0, A
        vadd  v1, v0, 1
        vmul  v2, v1, 2
        vst   B, v2

        .data 0
A:      .word 5, 6, 7, 8
B:      .space 4

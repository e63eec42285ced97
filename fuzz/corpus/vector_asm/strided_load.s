; A strided vector load (stride in elements taken from STRIDE) copied out with stride 1.
        ld    r1, STRIDE
        setvl 64
        setvs r1
        vld   v0, A
        setvs 1
        vst   B, v0

        .data 0
STRIDE: .word 16
A:      .space 1100
B:      .space 64

; Masked execution (the lecture's loop): for (i = 0; i < 64; i++) if (A[i] != 0) B[i] = A[i] * B[i]
        setvl 64
        setvs 1
        vld   v0, A
        vld   v1, B
        vcmpne v0, 0          ; VM[i] = A[i] != 0
        vmul.m v1, v0, v1     ; only where VM is set
        vst.m B, v1

        .data 0
A:      .space 64
B:      .space 64

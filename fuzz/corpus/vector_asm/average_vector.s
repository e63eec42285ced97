; C[i] = (A[i] + B[i]) >> 1 for 50 elements, vector code (the lecture's code): 7 instructions.
        setvl 50              ; VLEN = 50
        setvs 1               ; VSTR = 1 element
        vld   v0, A
        vld   v1, B
        vadd  v2, v0, v1
        vshr  v3, v2, 1
        vst   C, v3

        .data 0
A:      .space 50
B:      .space 50
C:      .space 50

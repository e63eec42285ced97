; One instruction for each of the vector unit's functional units and two for its memory
; port, at VL 8 (parameter-free: the statistics audit runs it with 1 and 4 lanes).
        setvl 8
        setvs 1
        vld   v0, A
        vand  v1, v0, 3
        vshl  v2, v0, 1
        vmul  v3, v0, 3
        vdiv  v4, v0, 3
        vfadd v5, v0, v0
        vfmul v6, v0, v0
        vcmplt v0, 5
        vst   C, v1

        .data 0
A:      .space 8
C:      .space 8

; Gather/scatter (the lecture's example): scatter 3.14, 6.5, 71.2, 2.71 to base + 0, 2, 6, 7,
; leaving the other words untouched, then gather them back through the same index vector.
        setvl 4
        setvs 1
        vld   v0, IDX         ; index vector
        vld   v1, VAL
        vstx  OUT, v0, v1     ; scatter: OUT[IDX[i]] = VAL[i]
        vldx  v2, OUT, v0     ; gather:  v2[i] = OUT[IDX[i]]
        vst   BACK, v2

        .data 0
IDX:    .word 0, 2, 6, 7
VAL:    .double 3.14, 6.5, 71.2, 2.71
OUT:    .space 8
BACK:   .space 4

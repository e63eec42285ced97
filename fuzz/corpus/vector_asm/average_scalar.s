; C[i] = (A[i] + B[i]) >> 1 for 50 elements, scalar loop (the lecture's code).
; 4 set-up instructions + 50 iterations x 6 = 304 dynamic instructions.
        li    r0, 50          ; element count
        li    r1, A
        li    r2, B
        li    r3, C
loop:   ld    r4, [r1]+       ; A[i], post-increment
        ld    r5, [r2]+       ; B[i]
        add   r6, r4, r5
        shr   r7, r6, 1
        st    [r3]+, r7
        dbnz  r0, loop        ; decrement and branch if not zero

        .data 0
A:      .space 50
B:      .space 50
C:      .space 50

; Blue-screen compositing, scalar: OUT = (X == key) ? Y : X one 8-bit pixel at a time.
        li    r0, 32          ; words (8 pixels each)
        li    r1, X
        li    r2, Y
        li    r3, OUT
word:   ld    r4, [r1]+
        ld    r5, [r2]+
        li    r9, 0           ; result word
        li    r10, 0          ; bit position of the pixel
        li    r11, 8          ; pixels left in the word
pixel:  shr   r6, r4, r10
        and   r6, r6, 255     ; foreground pixel
        seq   r8, r6, 0x42    ; key colour?
        beqz  r8, keep
        shr   r6, r5, r10
        and   r6, r6, 255     ; background pixel instead
keep:   shl   r6, r6, r10
        or    r9, r9, r6
        add   r10, r10, 8
        dbnz  r11, pixel
        st    [r3]+, r9
        dbnz  r0, word

        .data 0
KEY:    .word 0x4242424242424242
X:      .space 32
Y:      .space 32
OUT:    .space 32

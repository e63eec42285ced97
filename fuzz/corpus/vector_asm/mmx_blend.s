; Blue-screen compositing with packed SIMD: OUT = (X == key) ? Y : X, 8 pixels per word.
        li    r0, 32          ; words (8 pixels each)
        li    r1, X           ; foreground
        li    r2, Y           ; background
        li    r3, OUT
        ld    r8, KEY         ; key colour replicated in all 8 bytes
loop:   ld    r4, [r1]+
        ld    r5, [r2]+
        pcmpeq.b r6, r4, r8   ; 0xff where the foreground pixel is the key colour
        pand  r7, r6, r5      ; background where blue
        pandn r9, r6, r4      ; foreground elsewhere
        por   r9, r9, r7
        st    [r3]+, r9
        dbnz  r0, loop

        .data 0
KEY:    .word 0x4242424242424242
X:      .space 32
Y:      .space 32
OUT:    .space 32

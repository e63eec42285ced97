; A loop that never ends.
.kernel runaway
        mov   r1, 0
loop:   add   r1, r1, 1
        bra   loop

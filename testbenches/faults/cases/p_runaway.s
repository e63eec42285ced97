; A loop that never ends.
loop:   add   r1, r1, r2
        br    loop

; A scalar load at an address that is not a multiple of 8.
        li    r3, 12
        ld    r1, [r3]

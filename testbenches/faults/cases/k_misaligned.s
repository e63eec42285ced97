; A 32-bit load at an address that is not a multiple of 4.
.kernel misaligned
        mov   r1, %tid
        shl   r2, r1, 2
        add   r2, r2, 2
        ld.global.32 r4, [r2]
        exit

; A vector load from beyond the end of memory.
        li    r1, 8
        setvl r2, r1
        setvs 1
        li    r3, 0x7fff000
        vld   v0, [r3]

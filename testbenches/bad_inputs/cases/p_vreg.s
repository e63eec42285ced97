        vadd v9, v1, v2
        halt

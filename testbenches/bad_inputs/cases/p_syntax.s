        vaddd v1, v2, v3
        halt

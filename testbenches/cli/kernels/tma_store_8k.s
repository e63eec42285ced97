; One thread stores a 64 x 64 bf16 box (64 rows of 128 bytes, 8 KB) from shared memory to
; tensor 0 with one tma.store and waits for it: the kernel's time is the store's.
.kernel tma_store_8k
        mov   r1, %tid
        setp.ne.s32 p0, r1, 0
   @p0  exit
        mov   r3, 0                     ; box at element 0 of row 0
        mov   r4, 0
        mov   r5, 1024                  ; shared source
        tma.store [r5], 0, r3
        tma.wait
        exit

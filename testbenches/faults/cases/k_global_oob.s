; Warp 1 of the block loads from far beyond the end of global memory.
.kernel global_oob
        mov   r1, %tid
        shl   r2, r1, 2
        setp.ge.s32 p0, r1, 32
   @p0  mov   r3, 0x7fff0000
  @!p0  mov   r3, 0
        add   r2, r2, r3
        ld.global.32 r4, [r2]
        exit

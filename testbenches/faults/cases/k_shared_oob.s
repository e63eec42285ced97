; A shared-memory store beyond the block's shared region.
.kernel shared_oob
        mov   r1, %tid
        shl   r2, r1, 2
        add   r2, r2, 0x100000
        st.shared.32 [r2], r1
        exit

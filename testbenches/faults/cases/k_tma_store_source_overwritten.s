; tma_copy.s with a race: right after the tma.store, the thread overwrites the first word of
; the store's source in shared memory, before tma.wait. The copy reads its rows from shared
; memory at their own cycles, after the overwrite has landed, so global memory receives the
; new word; the golden interpreter, which copies at the tma.store, has the old one.
.kernel tma_store_source_overwritten
        mov   r1, %tid
        setp.ne.s32 p0, r1, 0
   @p0  exit
        mov   r2, 16384                 ; barrier
        mbarrier.init [r2], 1
        mbarrier.arrive.expect_tx [r2], 1024
        mov   r3, 0                     ; box at element 0 of row 60
        mov   r4, 60
        mov   r5, 1024                  ; shared destination (128B swizzled)
        tma.load [r5], 0, [r2], r3
        mbarrier.wait [r2], 0
        tma.store [r5], 1, r3
        mov   r6, 12345
        st.shared.32 [r5], r6           ; too early: the store may still read this word
        tma.wait
        exit

; A vector store streams its 50 elements to memory one per cycle after its latency; the
; scalar load of the last element, issued right after it, reaches memory first and reads the
; old word (as on a machine without interlocks between the units' memory accesses);
; race_test.sh also runs it with a delay loop before the load, which then reads the new word.
        setvl 50
        setvs 1
        vld   v0, A
        vadd  v1, v0, 1
        vst   C, v1
        ld    r4, C+392
        st    D, r4

        .data 0
A:      .space 50
C:      .space 50
D:      .space 1

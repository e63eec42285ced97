.kernel k
        bra nowhere
        exit

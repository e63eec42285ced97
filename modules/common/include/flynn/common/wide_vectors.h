// FLYNN_WIDE_VECTORS before a function built around GCC vector-extension arithmetic: on
// x86-64 hosts with AVX2 it runs a 256-bit build of the function, elsewhere the baseline
// one (chosen once, when the program loads). Element-wise IEEE fp32 operations give the
// same bits either way, and the build never fuses a * b + c (-ffp-contract=off), so results
// do not depend on the host. Off under the sanitizers and clang (fuzzing builds), where
// load-time selection is not worth the risk.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define FLYNN_WIDE_VECTORS __attribute__((target_clones("avx2", "default")))
#else
#define FLYNN_WIDE_VECTORS
#endif

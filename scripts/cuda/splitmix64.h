// The GMMA microbenchmark's input generator, one definition for both sides: the kernel's
// host code (gmma_microbench.cu, built by nvcc) and the comparator that rebuilds the same
// inputs to check every D element (tools/gmma_compare). splitmix64 (Steele, Lea and Flood,
// OOPSLA 2014), one call per value, u = (int64(z >> 40) - 2^23) / 2^23: exact in fp32,
// uniform in [-1, 1).
#pragma once

#include <cstdint>

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    state += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform() {
    const std::int64_t v = static_cast<std::int64_t>(next() >> 40) - 8388608;
    return static_cast<float>(static_cast<double>(v) / 8388608.0);
  }
};

// A kernel launch on the SIMT ISA: the one description the timed core (simt_core::load) and
// the golden interpreter both take.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "flynn/tma/tensor_descriptor.h"

namespace flynn::simt {

// `grid` blocks of `block` threads each, with the kernel's parameters, the shared memory
// each block gets and the tensor maps its tma instructions name.
// A launch's per-thread instruction counts in one number: the sum (wrapping) over its
// threads of thread_count_term(block, thread, instructions), whatever order they finish in;
// the timed core and the golden interpreters each compute it, and every run compares them.
inline std::uint64_t thread_count_term(std::uint64_t block, std::uint64_t thread, std::uint64_t count) {
  // (counts modulo 2^32, as the timed core keeps them)
  std::uint64_t x = ((block << 32) ^ thread) * 0xd6e8feb86659fd93ull + (count & 0xffffffffu) * 0x9e3779b97f4a7c15ull;
  x ^= x >> 30;  // (splitmix64's finaliser)
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct launch {
  unsigned grid = 1, block = 32;
  // The grid's and block's x, y, z extents (their products are grid and block); left at 0,
  // the launch is one-dimensional: {grid, 1, 1} and {block, 1, 1}.
  std::array<unsigned, 3> grid_xyz{0, 0, 0}, block_xyz{0, 0, 0};
  std::array<unsigned, 3> grid_dims() const { return grid_xyz[0] ? grid_xyz : std::array<unsigned, 3>{grid, 1, 1}; }
  std::array<unsigned, 3> block_dims() const { return block_xyz[0] ? block_xyz : std::array<unsigned, 3>{block, 1, 1}; }
  std::vector<std::uint32_t> params;           // ldparam N reads params[N]
  std::uint64_t shared_bytes = 0;              // shared memory per block
  // Each resident block's shared memory starts at a multiple of this many bytes of the
  // core's (a PTX kernel's largest .shared alignment: `.extern .shared .align 1024` for a
  // 128B swizzle, whose pattern follows the address bits), 1 or a power of two.
  std::uint64_t shared_align = 1;
  // The distance between resident blocks' shared memories.
  std::uint64_t shared_stride() const {
    const std::uint64_t a = shared_align ? shared_align : 1;
    return (shared_bytes + a - 1) / a * a;
  }
  std::vector<tensor_descriptor> tensor_maps;  // tma.load / tma.store MAP operands
  // A PTX launch: the parameter byte offset each tensor map is passed at (a CUtensorMap
  // parameter's address names its map).
  std::vector<std::uint64_t> tensor_map_offsets;
};

}  // namespace flynn::simt

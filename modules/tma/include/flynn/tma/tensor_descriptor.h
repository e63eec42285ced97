// A TMA tensor descriptor (the CUtensorMap of the CUDA driver API, as far as a copy needs
// it): rank 1-5, element size, global base, dimensions and byte strides, box dimensions and
// the shared-memory swizzle. A launch lists them, a warp's tma.load or tma.store names one
// and the TMA loader (tma_if) copies by it. Defined in tma_loader.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "flynn/tma/swizzle.h"

namespace flynn {

struct tensor_descriptor {
  unsigned rank = 2;                        // 1 .. 5
  unsigned elem_bytes = 2;                  // 1, 2, 4 or 8
  std::uint64_t global_base = 0;            // 16-byte aligned
  std::array<std::uint64_t, 5> dims{};      // elements per dimension (dims[0] innermost)
  std::array<std::uint64_t, 5> strides{};   // bytes between consecutive indices of dimension
                                            // d >= 1 (multiples of 16); strides[0] unused
  std::array<std::uint32_t, 5> box{};       // box elements per dimension (1 .. 256)
  swizzle_mode swizzle = swizzle_mode::none;

  // "" when valid, else what is wrong ("box[1] = 300: expected 1 .. 256").
  std::string validate() const;
  std::uint64_t box_bytes() const;          // bytes the box occupies in shared memory
  std::uint64_t row_bytes() const { return std::uint64_t(box[0]) * elem_bytes; }
};

}  // namespace flynn

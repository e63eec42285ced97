// Matrix descriptor of a warpgroup MMA operand in shared memory, in the 64-bit encoding
// the public PTX documentation gives for wgmma (sm_90): start address, leading and stride
// dimension byte offsets (all in 16-byte units), base offset and swizzle mode.
//
//   bits  0-13  start address >> 4        bits 32-45  stride byte offset >> 4
//   bits 16-29  leading byte offset >> 4  bits 49-51  base offset
//   bits 62-63  swizzle: 0 none, 1 128B, 2 64B, 3 32B (other bits zero)
#pragma once

#include <cstdint>
#include <string>

#include "flynn/tma/swizzle.h"

namespace flynn {

struct matrix_descriptor {
  std::uint32_t start_address = 0;        // shared-memory byte address (multiple of 16, < 256 KiB)
  std::uint32_t leading_byte_offset = 0;  // bytes between core matrices along K (multiple of 16)
  std::uint32_t stride_byte_offset = 0;   // bytes between core matrices along M or N (multiple of 16)
  unsigned base_offset = 0;               // 0 .. 7
  swizzle_mode swizzle = swizzle_mode::none;

  std::uint64_t encode() const;
  // Decodes a 64-bit descriptor; returns "" or what is wrong (reserved bits set).
  static std::string decode(std::uint64_t bits, matrix_descriptor& out);
  // "" when the fields can be encoded and fit the swizzle mode, else the first problem.
  std::string validate() const;
};

}  // namespace flynn

// Shared-memory layouts of the TMA-style loader: rows of 128 bytes in 16-byte chunks; the
// swizzled layouts XOR the chunk index within a row with the row index modulo the pattern
// (2, 4 or 8 rows for 32-, 64- and 128-byte swizzle), as in the public Hopper layouts, so
// that a column of chunks spreads over all banks instead of landing in one.
#pragma once

#include <cstdint>
#include <string>

#include "flynn/common/params.h"

namespace flynn {

enum class swizzle_mode { none, b32, b64, b128 };

// The swizzle_mode values with the names scenarios spell them with (the traffic generator's
// `swizzle` parameter, a SIMT workload's tensor maps) and descriptions.
inline constexpr named_choice<swizzle_mode> swizzle_modes[] = {
    {swizzle_mode::none, "none", "unswizzled"},
    {swizzle_mode::b32, "32B", "chunk XOR row mod 2"},
    {swizzle_mode::b64, "64B", "chunk XOR row mod 4"},
    {swizzle_mode::b128, "128B", "chunk XOR row mod 8"},
};

// Byte offset of `offset` (an offset into a tile of 128-byte rows, tile base aligned to
// 1024 bytes) in the swizzled layout: bits [4, 4+k) ^= bits [7, 7+k), k = 1, 2, 3.
inline std::uint64_t swizzle_offset(std::uint64_t offset, swizzle_mode m) {
  const unsigned k = m == swizzle_mode::b32 ? 1 : m == swizzle_mode::b64 ? 2 : m == swizzle_mode::b128 ? 3 : 0;
  if (k == 0) return offset;
  const std::uint64_t mask = (std::uint64_t(1) << k) - 1;
  return offset ^ (((offset >> 7) & mask) << 4);
}

// Bytes of one swizzle pattern row span (the largest row the mode fits: 32, 64, 128).
inline unsigned swizzle_span(swizzle_mode m) {
  return m == swizzle_mode::b32 ? 32 : m == swizzle_mode::b64 ? 64 : m == swizzle_mode::b128 ? 128 : 0;
}

// The mode's name in swizzle_modes.
const char* to_string(swizzle_mode m);

}  // namespace flynn

// The golden interpreters' own reading of the shared-memory and register layouts of the
// asynchronous instructions: the wgmma matrix descriptor, the K-major operand layouts with
// and without swizzling, the wgmma register fragments and the TMA swizzle. Written from the
// public PTX ISA (sm_90: "Matrix Descriptor Format", "Shared Memory Matrix Layout",
// "Register Fragments" of wgmma.mma_async) and shares no code with the timed units (the
// GMMA unit, the TMA loader), so that a mistake in theirs is not repeated here and is caught
// when a run is compared with the golden result.
#pragma once

#include <cstdint>
#include <string>

#include "flynn/common/format.h"

namespace flynn::simt::golden_layout {

// A wgmma operand's matrix descriptor, decoded.
struct operand_desc {
  std::uint64_t start = 0;   // byte address in shared memory
  std::uint64_t leading = 0; // bytes from one 8x16-byte core matrix to the next along K
  std::uint64_t stride = 0;  // bytes from one group of 8 rows to the next (along M or N)
  unsigned base = 0;         // base offset, bits 49-51
  unsigned swizzle_bytes = 0;  // 0 (none), 32, 64 or 128: the swizzle atom's row
};

// Decodes the 64-bit descriptor `bits`: "" or what is wrong with it. Fields (PTX ISA):
// bits 0-13 start address / 16, 16-29 leading byte offset / 16, 32-45 stride byte offset
// / 16, 49-51 base offset, 62-63 swizzle (0 none, 1 128B, 2 64B, 3 32B); bits 14-15,
// 30-31, 46-48 and 52-61 are reserved and must be zero.
inline std::string decode(std::uint64_t bits, operand_desc& d) {
  constexpr std::uint64_t reserved = (std::uint64_t(0x3) << 14) | (std::uint64_t(0x3) << 30) |
                                     (std::uint64_t(0x7) << 46) | (std::uint64_t(0x3ff) << 52);
  if (bits & reserved) return "reserved bits " + hex(bits & reserved) + " set";
  const auto field14 = [bits](unsigned lsb) { return ((bits >> lsb) & 0x3fff) * 16; };
  d.start = field14(0);
  d.leading = field14(16);
  d.stride = field14(32);
  d.base = static_cast<unsigned>((bits >> 49) & 0x7);
  switch (bits >> 62) {
    case 0: d.swizzle_bytes = 0; break;
    case 1: d.swizzle_bytes = 128; break;
    case 2: d.swizzle_bytes = 64; break;
    default: d.swizzle_bytes = 32; break;
  }
  // A swizzle atom is 8 rows of swizzle_bytes; the stride steps whole atoms, and an operand
  // starts in the atom's first row (a K slice into it), unless a base offset places it.
  if (d.swizzle_bytes) {
    const std::uint64_t atom = 8 * d.swizzle_bytes;
    if (d.stride % d.swizzle_bytes)
      return "stride byte offset " + std::to_string(d.stride) + " is not a whole number of " +
             std::to_string(d.swizzle_bytes) + "-byte swizzle rows";
    if (d.base == 0 && (d.start % atom) / d.swizzle_bytes != 0)
      return "start address " + hex(d.start) + " is past the first row of its " + std::to_string(atom) +
             "-byte swizzle atom";
  }
  return {};
}

// The swizzle of a byte address (or of an offset from an atom-aligned base): the 16-byte
// chunk's index within its 128-byte line is XORed with the line's index within its group of
// 8 lines, keeping as many low bits as the atom's row has chunks beyond the first (32B: 1
// bit, 64B: 2, 128B: 3).
inline std::uint64_t swizzle(std::uint64_t a, unsigned swizzle_bytes) {
  if (swizzle_bytes == 0) return a;
  const std::uint64_t keep = swizzle_bytes / 16 - 1;  // 1, 3, 7
  const std::uint64_t chunk = (a >> 4) & 7, line = (a >> 7) & 7;
  return (a & ~std::uint64_t(0x70)) | (((chunk ^ (line & keep)) & 7) << 4);
}

// Address of byte kb (0 .. 31) of operand row r (a row of A, a column of B; K-major) with
// descriptor d. Unswizzled: 8x16-byte core matrices, rows of one 16 bytes apart, the next
// core matrix along K `leading` bytes on, the next 8 rows `stride` bytes on. Swizzled: rows
// of an atom swizzle_bytes apart (the K slice within the row given by the start address),
// the next 8 rows `stride` bytes on, the address then swizzled.
inline std::uint64_t operand_address(const operand_desc& d, unsigned r, unsigned kb) {
  const std::uint64_t group = r / 8, in_group = r % 8;
  if (d.swizzle_bytes == 0)
    return d.start + group * d.stride + (kb / 16) * d.leading + in_group * 16 + (kb % 16);
  return swizzle(d.start + group * d.stride + in_group * d.swizzle_bytes + kb, d.swizzle_bytes);
}

// The f32 accumulator fragment: register i (0 .. N/2-1) of lane `lane` of a warp holds the
// element at `row` (0 .. 15, within the warp's 16 rows) and `col` (0 .. N-1). Lanes go in
// quads: lane / 4 picks the row, lane % 4 a pair of columns in each 8-column block; the
// registers walk the blocks four at a time (two columns, then the row 8 further down).
inline void accumulator(unsigned lane, unsigned i, unsigned& row, unsigned& col) {
  const unsigned quad = lane >> 2, pair = lane & 3, block = i >> 2, slot = i & 3;
  row = quad + (slot >= 2 ? 8 : 0);
  col = block * 8 + pair * 2 + (slot & 1);
}

// The A fragment of a 16-bit type (wgmma with A in registers): register i (0 .. 3) of lane
// `lane` holds two elements of one row, columns col and col + 1 (the low half first).
inline void a_fragment(unsigned lane, unsigned i, unsigned& row, unsigned& col) {
  const unsigned quad = lane >> 2, pair = lane & 3;
  row = quad + ((i & 1) ? 8 : 0);
  col = (i >> 1) * 8 + pair * 2;
}

}  // namespace flynn::simt::golden_layout

// The golden interpreters' own wgmma and TMA layouts (golden_layout.h): hand-checked values
// from the PTX ISA's descriptor format and layout figures, closed-form warpgroup MMAs for
// each swizzle mode with A from shared memory and from registers, closed-form fp8 and tf32
// MMAs, and agreement with the timed units' layout code, written separately (a mistake in
// either one fails here).
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <vector>

#include "flynn/gmma/matrix_descriptor.h"
#include "flynn/gmma/wgmma.h"
#include "flynn/platform/simt_interp.h"
#include "flynn/tensor/numeric.h"
#include "golden_layout.h"

namespace gl = flynn::simt::golden_layout;

namespace {

// A descriptor as the PTX ISA encodes it; mode 0 none, 1 128B, 2 64B, 3 32B.
std::uint64_t encode(std::uint64_t start, std::uint64_t lbo, std::uint64_t sbo, std::uint64_t mode, std::uint64_t base = 0) {
  return (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | base << 49 | mode << 62;
}

std::uint16_t bf16_of(float f) {  // (exact for the small integers used here)
  std::uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  return static_cast<std::uint16_t>(u >> 16);
}

// Where the canonical K-major layout puts byte kb (0 .. 31) of operand row r, written out
// per mode as the PTX ISA draws it: core matrices of 8 rows x 16 bytes; with a swizzle, rows
// of an 8-row atom `span` bytes apart and the 16-byte chunk index XORed with the row's
// place in the atom (128B: row % 8; 64B: (row % 8) / 2; 32B: (row % 8) / 4). The base is
// aligned to the atom.
std::uint64_t place(unsigned span, std::uint64_t base, std::uint64_t lbo, std::uint64_t sbo, unsigned r, unsigned kb) {
  const unsigned in = r % 8;
  if (span == 0) return base + (r / 8) * sbo + (kb / 16) * lbo + in * 16 + kb % 16;
  const unsigned phase = span == 128 ? in : span == 64 ? in / 2 : in / 4;
  return base + (r / 8) * sbo + in * span + ((kb / 16) ^ phase) * 16 + kb % 16;
}

// Every accumulator register of a warpgroup's D fragments (PTX ISA: thread t of warp w = t / 32,
// lane l, register i holds row 16w + l/4 + 8 ((i % 4) / 2), column 8 (i / 4) + 2 (l % 4) + i % 2)
// equals expect(row, column).
void require_d(const std::vector<flynn::simt::wgmma_part>& parts, unsigned n,
               const std::function<float(unsigned, unsigned)>& expect) {
  for (unsigned t = 0; t < 128; ++t) {
    const unsigned w = t / 32, l = t % 32;
    REQUIRE(parts[t].d.size() == n / 2);
    for (unsigned i = 0; i < n / 2; ++i) {
      const unsigned m = 16 * w + l / 4 + 8 * ((i % 4) / 2), j = 8 * (i / 4) + 2 * (l % 4) + i % 2;
      float got = 0;
      std::memcpy(&got, &parts[t].d[i], 4);
      INFO("thread " << t << " register " << i);
      REQUIRE(got == expect(m, j));
    }
  }
}

}  // namespace

TEST_CASE("golden descriptor decode: the PTX ISA fields, reserved bits and the swizzle atom") {
  gl::operand_desc d;
  REQUIRE(gl::decode(encode(0x1020, 0x80, 0x400, 1), d).empty());
  CHECK(d.start == 0x1020);
  CHECK(d.leading == 0x80);
  CHECK(d.stride == 0x400);
  CHECK(d.swizzle_bytes == 128);
  REQUIRE(gl::decode(encode(0x400, 16, 512, 2), d).empty());
  CHECK(d.swizzle_bytes == 64);
  REQUIRE(gl::decode(encode(0x400, 16, 256, 3), d).empty());
  CHECK(d.swizzle_bytes == 32);
  REQUIRE(gl::decode(encode(0x3fff0, 0x3fff0, 0x3fff0, 0), d).empty());  // the largest fields
  CHECK(d.start == 0x3fff0);
  CHECK(d.swizzle_bytes == 0);
  // Reserved bits: 14-15, 30-31, 46-48, 52-61.
  for (unsigned bit : {14u, 15u, 30u, 31u, 46u, 48u, 52u, 61u})
    CHECK(gl::decode(encode(0, 0, 0, 0) | std::uint64_t(1) << bit, d).find("reserved bits") != std::string::npos);
  // Swizzled: the stride steps whole rows of the atom; the start lies in the atom's first row.
  CHECK(gl::decode(encode(0x400, 16, 1040, 1), d).find("stride byte offset 1040") != std::string::npos);
  CHECK(gl::decode(encode(0x480, 16, 1024, 1), d).find("past the first row") != std::string::npos);
  CHECK(gl::decode(encode(0x460, 16, 1024, 1), d).empty());       // a K slice into the first row
  CHECK(gl::decode(encode(0x480, 16, 1024, 1, 1), d).empty());    // placed by a base offset
}

TEST_CASE("golden operand addresses: hand-computed from the PTX ISA layouts") {
  gl::operand_desc d;
  // No swizzle, LBO 128, SBO 256: row 9 = core row 1, row 1 in it; byte 20 = chunk 1, byte 4.
  REQUIRE(gl::decode(encode(0x1000, 128, 256, 0), d).empty());
  CHECK(gl::operand_address(d, 9, 20) == 0x1000 + 256 + 128 + 16 + 4);
  CHECK(gl::operand_address(d, 0, 0) == 0x1000);
  CHECK(gl::operand_address(d, 7, 31) == 0x1000 + 128 + 7 * 16 + 15);
  // 128B: row 3 byte 16 sits at 0x400 + 3 * 128 + 16 = 0x590 unswizzled: chunk 1 of line 3,
  // moved to chunk 1 ^ 3 = 2.
  REQUIRE(gl::decode(encode(0x400, 16, 1024, 1), d).empty());
  CHECK(gl::operand_address(d, 3, 16) == 0x5a0);
  CHECK(gl::operand_address(d, 0, 5) == 0x405);    // row 0: unmoved
  CHECK(gl::operand_address(d, 8, 0) == 0x800);    // the next atom, its row 0
  CHECK(gl::operand_address(d, 7, 31) == 0x400 + 7 * 128 + (1 ^ 7) * 16 + 15);
  // A K slice 32 bytes into the row (the next k16 step): chunk 2 of row 5 -> 2 ^ 5 = 7.
  REQUIRE(gl::decode(encode(0x420, 16, 1024, 1), d).empty());
  CHECK(gl::operand_address(d, 5, 0) == 0x400 + 5 * 128 + 7 * 16);
  // 64B: rows 64 bytes apart, pairs of rows share a phase: row 3 -> phase 1.
  REQUIRE(gl::decode(encode(0x200, 16, 512, 2), d).empty());
  CHECK(gl::operand_address(d, 3, 0) == 0x200 + 3 * 64 + 1 * 16);
  CHECK(gl::operand_address(d, 6, 16) == 0x200 + 6 * 64 + (1 ^ 3) * 16);
  // 32B: rows 32 bytes apart, four rows share a phase: row 5 -> phase 1.
  REQUIRE(gl::decode(encode(0x100, 16, 256, 3), d).empty());
  CHECK(gl::operand_address(d, 5, 0) == 0x100 + 5 * 32 + 16);
  CHECK(gl::operand_address(d, 2, 16) == 0x100 + 2 * 32 + 16);
  // TMA offsets: the same XOR on an offset from an aligned base.
  CHECK(gl::swizzle(3 * 128 + 16, 128) == 3 * 128 + 2 * 16);
  CHECK(gl::swizzle(3 * 128 + 16, 0) == 3 * 128 + 16);
}

TEST_CASE("golden wgmma fragments: spot values from the PTX ISA figures") {
  unsigned row = 0, col = 0;
  gl::accumulator(0, 0, row, col);
  CHECK((row == 0 && col == 0));
  gl::accumulator(5, 6, row, col);  // lane 5: row 1, columns 2-3; register 6: block 1, the lower half
  CHECK((row == 9 && col == 10));
  gl::accumulator(31, 127, row, col);  // the last register of N = 256
  CHECK((row == 15 && col == 255));
  gl::a_fragment(6, 3, row, col);  // lane 6: row 1, columns 4-5; register 3: row + 8, columns + 8
  CHECK((row == 9 && col == 12));
}

TEST_CASE("the timed units' layout code agrees with the golden layouts") {
  // Registers: every lane and register of N = 256.
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned i = 0; i < 128; ++i) {
      unsigned tr = 0, tc = 0, gr = 0, gc = 0;
      flynn::wgmma_d_position(lane, i, tr, tc);
      gl::accumulator(lane, i, gr, gc);
      INFO("D lane " << lane << " register " << i);
      REQUIRE((tr == gr && tc == gc));
    }
    for (unsigned i = 0; i < 4; ++i) {
      unsigned tr = 0, tc = 0, gr = 0, gc = 0;
      flynn::wgmma_a_position(lane, i, tr, tc);
      gl::a_fragment(lane, i, gr, gc);
      INFO("A lane " << lane << " register " << i);
      REQUIRE((tr == gr && tc == gc));
    }
  }
  // Shared memory: descriptors of each mode, each row of 256 and each byte of a row.
  const std::uint64_t descs[] = {encode(0x1000, 128, 256, 0),  encode(0x2000, 2048, 128, 0), encode(0x400, 16, 1024, 1),
                                 encode(0x460, 16, 2048, 1),   encode(0x200, 16, 512, 2),    encode(0x230, 16, 1024, 2),
                                 encode(0x100, 16, 256, 3),    encode(0x110, 16, 512, 3)};
  for (const std::uint64_t bits : descs) {
    flynn::matrix_descriptor td;
    gl::operand_desc gd;
    REQUIRE(flynn::matrix_descriptor::decode(bits, td).empty());
    REQUIRE(td.validate().empty());
    REQUIRE(gl::decode(bits, gd).empty());
    for (unsigned r = 0; r < 256; ++r)
      for (unsigned kb = 0; kb < 32; ++kb) {
        INFO("descriptor " << std::hex << bits << std::dec << " row " << r << " byte " << kb);
        REQUIRE(flynn::wgmma_operand_address(td, r, kb) == gl::operand_address(gd, r, kb));
      }
  }
}

TEST_CASE("closed-form wgmma: each swizzle mode, N, and A from shared memory and from registers") {
  using flynn::element_type;
  constexpr unsigned k = 16;
  const auto a_val = [](unsigned m, unsigned kk) { return float(int((m + 2 * kk) % 5) - 2); };
  const auto b_val = [](unsigned kk, unsigned j) { return float(int((3 * j + kk) % 7) - 3); };
  // The expected D, from the definition D = A x B.
  float expect[64][256] = {};
  for (unsigned m = 0; m < 64; ++m)
    for (unsigned j = 0; j < 256; ++j)
      for (unsigned kk = 0; kk < k; ++kk) expect[m][j] += a_val(m, kk) * b_val(kk, j);
  struct mode_case {
    unsigned span, mode;
    std::uint64_t lbo, sbo;
  };
  for (const mode_case mc : {mode_case{0, 0, 128, 256}, mode_case{128, 1, 16, 1024}, mode_case{64, 2, 16, 512},
                             mode_case{32, 3, 16, 256}}) {
    for (const unsigned n : {8u, 16u, 64u, 256u})
    for (const bool a_regs : {false, true}) {
      INFO("swizzle " << mc.span << " N " << n << " A in " << (a_regs ? "registers" : "shared memory"));
      std::vector<unsigned char> shared(65536, 0);
      const std::uint64_t a_base = 0x1000, b_base = 0x4000;  // (B: up to 256 rows, 32 KiB with a 128B swizzle)
      const auto put = [&](std::uint64_t addr, float v) {
        const std::uint16_t h = bf16_of(v);
        std::memcpy(&shared[addr], &h, 2);
      };
      for (unsigned m = 0; m < 64; ++m)
        for (unsigned kk = 0; kk < k; ++kk) put(place(mc.span, a_base, mc.lbo, mc.sbo, m, 2 * kk), a_val(m, kk));
      for (unsigned j = 0; j < n; ++j)
        for (unsigned kk = 0; kk < k; ++kk) put(place(mc.span, b_base, mc.lbo, mc.sbo, j, 2 * kk), b_val(kk, j));
      std::vector<flynn::simt::wgmma_part> parts(128);
      for (unsigned t = 0; t < 128; ++t) {
        const unsigned w = t / 32, l = t % 32;
        parts[t].a_desc = encode(a_base, mc.lbo, mc.sbo, mc.mode);  // (the whole 64-row tile)
        parts[t].b_desc = encode(b_base, mc.lbo, mc.sbo, mc.mode);
        for (unsigned i = 0; i < 4; ++i) {  // row l/4 + 8 (i % 2), columns 2 (l % 4) + 8 (i / 2) and + 1
          const unsigned m = 16 * w + l / 4 + 8 * (i % 2), c = 2 * (l % 4) + 8 * (i / 2);
          parts[t].a_frag[i] = std::uint32_t(bf16_of(a_val(m, c))) | std::uint32_t(bf16_of(a_val(m, c + 1))) << 16;
        }
      }
      REQUIRE(flynn::simt::golden_wgmma(n, element_type::bf16, element_type::bf16, a_regs, false, shared, parts).empty());
      require_d(parts, n, [&](unsigned m, unsigned j) { return expect[m][j]; });
    }
  }
}

namespace {

// The encoding of a small integer v (|v| <= 3) in an fp8 format with `mbits` mantissa bits
// and exponent bias `bias` (e4m3: 3, 7; e5m2: 2, 15), from the OCP FP8 definition: sign,
// biased exponent, mantissa; 0 is all zeros.
std::uint8_t fp8_of(int v, unsigned mbits, unsigned bias) {
  if (v == 0) return 0;
  const unsigned mag = unsigned(v < 0 ? -v : v);
  const unsigned e = mag >= 2 ? 1 : 0;                           // 1 = 1.0 x 2^0; 2, 3 = 1.0, 1.5 x 2^1
  const unsigned frac = (mag << mbits >> e) - (1u << mbits);      // 3: 1.5 -> half of the mantissa range
  return static_cast<std::uint8_t>((v < 0 ? 0x80 : 0) | (e + bias) << mbits | frac);
}

}  // namespace

TEST_CASE("closed-form wgmma: fp8 (e4m3 x e5m2, K 32) and tf32 (K 8) operands") {
  using flynn::element_type;
  CHECK(fp8_of(1, 3, 7) == 0x38);  // (the OCP FP8 tables: e4m3 1.0, 3.0, -2.0; e5m2 1.0, 3.0)
  CHECK(fp8_of(3, 3, 7) == 0x44);
  CHECK(fp8_of(-2, 3, 7) == 0xc0);
  CHECK(fp8_of(1, 2, 15) == 0x3c);
  CHECK(fp8_of(3, 2, 15) == 0x42);
  const auto a_val = [](unsigned m, unsigned kk) { return int((m + 2 * kk) % 7) - 3; };
  const auto b_val = [](unsigned kk, unsigned j) { return int((3 * j + kk) % 5) - 2; };
  struct type_case {
    element_type a, b;
    unsigned k;
  };
  constexpr unsigned n = 64;
  for (const type_case tc : {type_case{element_type::e4m3, element_type::e5m2, 32}, type_case{element_type::tf32, element_type::tf32, 8}}) {
    for (const unsigned span : {0u, 128u}) {
      INFO(flynn::element_name(tc.a) << " x " << flynn::element_name(tc.b) << ", swizzle " << span);
      const unsigned bytes = 32 / tc.k;
      const std::uint64_t lbo = span ? 16 : 128, sbo = span ? 1024 : 256, mode = span ? 1 : 0;
      std::vector<unsigned char> shared(65536, 0);
      const std::uint64_t a_base = 0x1000, b_base = 0x4000;
      const auto put = [&](element_type t, std::uint64_t addr, int v) {
        if (t == element_type::tf32) {  // a binary32 container; small integers are exact in tf32's 10 mantissa bits
          const float f = float(v);
          std::memcpy(&shared[addr], &f, 4);
        } else {
          shared[addr] = t == element_type::e4m3 ? fp8_of(v, 3, 7) : fp8_of(v, 2, 15);
        }
      };
      for (unsigned m = 0; m < 64; ++m)
        for (unsigned kk = 0; kk < tc.k; ++kk) put(tc.a, place(span, a_base, lbo, sbo, m, bytes * kk), a_val(m, kk));
      for (unsigned j = 0; j < n; ++j)
        for (unsigned kk = 0; kk < tc.k; ++kk) put(tc.b, place(span, b_base, lbo, sbo, j, bytes * kk), b_val(kk, j));
      std::vector<flynn::simt::wgmma_part> parts(128);
      for (auto& p : parts) {
        p.a_desc = encode(a_base, lbo, sbo, mode);
        p.b_desc = encode(b_base, lbo, sbo, mode);
      }
      REQUIRE(flynn::simt::golden_wgmma(n, tc.a, tc.b, false, false, shared, parts).empty());
      require_d(parts, n, [&](unsigned m, unsigned j) {
        int d = 0;  // D = A x B, exact in binary32 for these integers
        for (unsigned kk = 0; kk < tc.k; ++kk) d += a_val(m, kk) * b_val(kk, j);
        return float(d);
      });
    }
  }
}

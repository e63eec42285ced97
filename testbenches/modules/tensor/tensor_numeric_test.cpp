// Tensor-core arithmetic, swizzled layouts and transaction barriers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "flynn/common/bits.h"
#include "flynn/sync/tx_barrier.h"
#include "flynn/tensor/numeric.h"
#include "flynn/tma/swizzle.h"

using namespace flynn;

namespace {
// Independent fp16 rounding oracle: the nearest of all finite half values, ties to the
// even encoding; magnitudes at or beyond 65520 (halfway past the largest half) go to infinity.
std::uint16_t nearest_half(float f) {
  static const std::vector<std::pair<float, std::uint16_t>> table = [] {
    std::vector<std::pair<float, std::uint16_t>> t;
    for (std::uint32_t h = 0; h < 0x7c00; ++h) {  // +0 .. largest finite
      t.emplace_back(f16_to_f32(static_cast<std::uint16_t>(h)), static_cast<std::uint16_t>(h));
    }
    return t;
  }();
  const std::uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(double(f));
  if (a >= 65520.0) return sign | 0x7c00;
  auto hi = std::lower_bound(table.begin(), table.end(), a,
                             [](const std::pair<float, std::uint16_t>& e, double v) { return e.first < v; });
  if (hi == table.end()) return sign | 0x7bff;  // between the largest half and the halfway point
  if (hi->first == a) return sign | hi->second;
  auto lo = hi - 1;
  const double dl = a - lo->first, dh = hi->first - a;
  if (dl < dh) return sign | lo->second;
  if (dh < dl) return sign | hi->second;
  return sign | ((lo->second & 1) == 0 ? lo->second : hi->second);
}
}  // namespace

TEST_CASE("fp16 conversions round to nearest even") {
  // Every half value survives the round trip through fp32.
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = f16_to_f32(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    REQUIRE(f32_to_f16(f) == h);
#ifdef __FLT16_MANT_DIG__  // the compiler has _Float16 on this target: cross-check with it
    const std::uint16_t h16 = static_cast<std::uint16_t>(h);
    _Float16 c;
    std::memcpy(&c, &h16, 2);
    REQUIRE(f == static_cast<float>(c));
#endif
  }
  // Random fp32 values (normal, subnormal, overflow range) against the oracle and, where the
  // compiler has it, against _Float16.
  std::mt19937 rng(7);
  for (int i = 0; i < 500000; ++i) {
    const float f = bits_to_float(rng());
    if (std::isnan(f)) continue;
    INFO("f = " << f << " bits " << float_to_bits(f));
    REQUIRE(f32_to_f16(f) == nearest_half(f));
#ifdef __FLT16_MANT_DIG__
    const _Float16 c = static_cast<_Float16>(f);
    std::uint16_t cb;
    std::memcpy(&cb, &c, 2);
    REQUIRE(f32_to_f16(f) == cb);
#endif
  }
  // Ties and the overflow boundary, by construction.
  CHECK(f32_to_f16(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);       // tie, even stays
  CHECK(f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);   // tie, odd rounds up
  CHECK(f32_to_f16(65519.0f) == 0x7bff);
  CHECK(f32_to_f16(65520.0f) == 0x7c00);
  CHECK(f32_to_f16(std::ldexp(1.0f, -25)) == 0x0000);              // half the smallest subnormal: tie to 0
  CHECK(f32_to_f16(std::ldexp(1.5f, -25)) == 0x0001);
}

TEST_CASE("bf16 conversions keep the high half with round to nearest even") {
  CHECK(f32_to_bf16(1.0f) == 0x3f80);
  CHECK(f32_to_bf16(bits_to_float(0x3f808000)) == 0x3f80);  // tie, even stays
  CHECK(f32_to_bf16(bits_to_float(0x3f818000)) == 0x3f82);  // tie, odd rounds up
  CHECK(f32_to_bf16(bits_to_float(0x3f808001)) == 0x3f81);  // above the tie
  CHECK(f32_to_bf16(bits_to_float(0x7f7fffff)) == 0x7f80);  // rounds up to inf
  CHECK(std::isnan(bf16_to_f32(f32_to_bf16(std::nanf("")))));
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = bf16_to_f32(static_cast<std::uint16_t>(h));
    if (!std::isnan(f)) REQUIRE(f32_to_bf16(f) == h);
  }
}

TEST_CASE("fp8: e4m3 and e5m2 decode to their values; conversions round to nearest even") {
  using flynn::e4m3_to_f32;
  using flynn::e5m2_to_f32;
  // e4m3: bias 7, 3 mantissa bits, no infinities, S.1111.111 the only NaN.
  CHECK(e4m3_to_f32(0x00) == 0.0f);
  CHECK(e4m3_to_f32(0x38) == 1.0f);                          // exponent 7
  CHECK(e4m3_to_f32(0x01) == std::ldexp(1.0f, -9));          // smallest subnormal
  CHECK(e4m3_to_f32(0x08) == std::ldexp(1.0f, -6));          // smallest normal
  CHECK(e4m3_to_f32(0x7e) == 448.0f);                        // largest finite
  CHECK(e4m3_to_f32(0xbc) == -1.5f);
  CHECK(e4m3_to_f32(0x78) == 256.0f);                        // exponent 15 is finite
  CHECK(std::isnan(e4m3_to_f32(0x7f)));
  CHECK(std::isnan(e4m3_to_f32(0xff)));
  // e5m2: bias 15, 2 mantissa bits, IEEE specials.
  CHECK(e5m2_to_f32(0x3c) == 1.0f);
  CHECK(e5m2_to_f32(0x01) == std::ldexp(1.0f, -16));
  CHECK(e5m2_to_f32(0x7b) == 57344.0f);
  CHECK(e5m2_to_f32(0x7c) == INFINITY);
  CHECK(e5m2_to_f32(0xfc) == -INFINITY);
  CHECK(std::isnan(e5m2_to_f32(0x7d)));
  // Every finite code converts back to itself.
  for (unsigned c = 0; c < 256; ++c) {
    const auto v = static_cast<std::uint8_t>(c);
    if (!std::isnan(e4m3_to_f32(v)) && (v & 0x7f) != 0) CHECK(flynn::f32_to_e4m3(e4m3_to_f32(v)) == v);
    if (std::isfinite(e5m2_to_f32(v)) && (v & 0x7f) != 0) CHECK(flynn::f32_to_e5m2(e5m2_to_f32(v)) == v);
  }
  // Ties go to the even code: 1 + 1/16 lies between 1 (0x38) and 1.125 (0x39).
  CHECK(flynn::f32_to_e4m3(1.0625f) == 0x38);
  CHECK(flynn::f32_to_e4m3(1.1875f) == 0x3a);  // between 1.125 (0x39) and 1.25 (0x3a)
  CHECK(flynn::f32_to_e4m3(1.07f) == 0x39);
  // e4m3 saturates, e5m2 overflows to infinity from 61440 (half a step past 57344).
  CHECK(flynn::f32_to_e4m3(1e6f) == 0x7e);
  CHECK(flynn::f32_to_e4m3(-1e6f) == 0xfe);
  CHECK(flynn::f32_to_e5m2(61439.0f) == 0x7b);
  CHECK(flynn::f32_to_e5m2(61440.0f) == 0x7c);
}

TEST_CASE("tf32: the top 19 bits of the 32-bit element, the rest not read") {
  const float x = 1.0f + std::ldexp(1.0f, -10) + std::ldexp(1.0f, -11);  // one bit beyond tf32's 10
  CHECK(flynn::tf32_to_f32(flynn::float_to_bits(x)) == 1.0f + std::ldexp(1.0f, -10));
  CHECK(flynn::tf32_to_f32(flynn::float_to_bits(-3.0f)) == -3.0f);
  unsigned char bytes[4];
  const std::uint32_t b = flynn::float_to_bits(x);
  std::memcpy(bytes, &b, 4);
  CHECK(flynn::element_to_f32(flynn::element_type::tf32, bytes) == 1.0f + std::ldexp(1.0f, -10));
  CHECK(flynn::element_to_f32(flynn::element_type::f32, bytes) == x);
  CHECK(flynn::element_bytes(flynn::element_type::tf32) == 4);
  CHECK(flynn::element_bytes(flynn::element_type::e5m2) == 1);
}

TEST_CASE("reference GEMM: fp32 accumulation in k order within tolerance of exact arithmetic") {
  const unsigned m = 16, n = 8, k = 64;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (element_type t : {element_type::f16, element_type::bf16}) {
    std::vector<std::uint16_t> a(m * k), b(k * n);
    std::vector<float> c(m * n), d;
    std::vector<double> e;
    for (auto& x : a) x = from_f32(t, u(rng));
    for (auto& x : b) x = from_f32(t, u(rng));
    for (auto& x : c) x = u(rng);
    reference_gemm(t, m, n, k, a, b, c, d);
    reference_gemm_f64(t, m, n, k, a, b, c, e);
    for (std::size_t i = 0; i < d.size(); ++i) {
      // k fp32 additions of terms bounded by 1: error at most k * 2^-24 * (sum of |terms|).
      REQUIRE(std::fabs(double(d[i]) - e[i]) <= k * std::ldexp(1.0, -24) * (k + 1));
    }
  }
}

TEST_CASE("swizzled layouts XOR the chunk index with the row index modulo the pattern") {
  // 128B: chunk c of row r lands in chunk c ^ (r % 8).
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned c = 0; c < 8; ++c)
      CHECK(swizzle_offset(r * 128 + c * 16 + 4, swizzle_mode::b128) == r * 128 + ((c ^ (r % 8)) * 16) + 4);
  CHECK(swizzle_offset(3 * 128 + 1 * 16, swizzle_mode::b64) == 3 * 128 + ((1 ^ 3) * 16));
  CHECK(swizzle_offset(5 * 128 + 0 * 16, swizzle_mode::b32) == 5 * 128 + 16);
  CHECK(swizzle_offset(777, swizzle_mode::none) == 777);
  // A column of chunks touches 8 distinct chunk positions under 128B swizzle.
  unsigned seen = 0;
  for (unsigned r = 0; r < 8; ++r) seen |= 1u << ((swizzle_offset(r * 128 + 2 * 16, swizzle_mode::b128) % 128) / 16);
  CHECK(seen == 0xff);
}

TEST_CASE("transaction barrier: the phase completes when arrivals and bytes are both done") {
  tx_barrier bar(2);
  unsigned phases = 0;
  bar.on_phase([&](unsigned) { ++phases; });
  CHECK(bar.arrive_expect_tx(1024).empty());  // producer: one arrival, 1024 bytes expected
  CHECK_FALSE(bar.try_wait(0));
  CHECK(bar.arrive().empty());                 // the consumer's arrival
  CHECK_FALSE(bar.try_wait(0));                // bytes still pending
  CHECK(bar.pending_bytes() == 1024);
  CHECK(bar.complete_tx(512).empty());
  CHECK_FALSE(bar.try_wait(0));
  CHECK(bar.complete_tx(512).empty());
  CHECK(bar.try_wait(0));                      // phase 0 completed
  CHECK_FALSE(bar.try_wait(1));
  CHECK(bar.parity() == 1);
  CHECK(bar.pending_arrivals() == 2);          // re-armed
  CHECK(phases == 1);
}

TEST_CASE("transaction barrier: protocol errors are reported and change nothing") {
  tx_barrier bar(1);
  CHECK_FALSE(bar.arrive(2).empty());
  CHECK(bar.pending_arrivals() == 1);
  CHECK(bar.phase() == 0);
  CHECK_THROWS(tx_barrier(0));
}

TEST_CASE("transaction barrier: bytes may complete before they are expected") {
  tx_barrier bar(1);
  CHECK(bar.complete_tx(8, 40).empty());  // a copy landing before the expect_tx, as PTX allows
  CHECK(bar.pending_bytes() == -8);
  CHECK(bar.phase() == 0);
  CHECK(bar.arrive_expect_tx(8, 50).empty());
  CHECK(bar.phase() == 1);
  CHECK(bar.completed_at() == 50);
  CHECK(bar.pending_bytes() == 0);
}

// Tensor-core arithmetic: fp16 and bf16 storage formats, conversions with round to
// nearest even, and the datapath's defined order of operations.
//
// Order of operations (docs/tensor_arithmetic.md): for each output element
//   acc = C[i][j] (fp32)
//   for k in 0 .. K-1 (ascending):  acc = fl32(acc + fl32(A[i][k] * B[k][j]))
// where A and B are widened exactly to fp32 (fp16 and bf16 products are exact in fp32, so
// fl32(a * b) = a * b) and every addition rounds to nearest even in fp32. An fp16
// accumulator rounds the final fp32 result to fp16. The reference GEMM below follows the
// same definition and is bit-exact with the datapath.
#pragma once

#include <cstdint>
#include <vector>

#include "flynn/common/bits.h"

namespace flynn {

enum class element_type { f16, bf16, f32, tf32, e4m3, e5m2 };

// Bytes of one element in memory: 2 (f16, bf16), 4 (f32, tf32: a 32-bit container), 1 (fp8).
unsigned element_bytes(element_type t);
const char* element_name(element_type t);  // "f16", "bf16", "f32", "tf32", "e4m3", "e5m2"

// fp8 (OCP 8-bit floating point, as PTX's .e4m3 and .e5m2): e4m3 has 1 sign, 4 exponent
// (bias 7), 3 mantissa bits, subnormals, no infinities, NaN = S.1111.111 (largest finite
// 448); e5m2 has 1 sign, 5 exponent (bias 15), 2 mantissa bits, IEEE-style infinities and
// NaNs (largest finite 57344). Widening to fp32 is exact.
float e4m3_to_f32(std::uint8_t v);
float e5m2_to_f32(std::uint8_t v);
// Round to nearest even; e4m3 saturates to +-448 beyond it (NaN stays NaN), e5m2 overflows
// to infinity.
std::uint8_t f32_to_e4m3(float f);
std::uint8_t f32_to_e5m2(float f);
// tf32: the top 19 bits of a 32-bit element (sign, 8 exponent, 10 mantissa bits); the low
// 13 bits are not read (data made with cvt.rna.tf32.f32 has them zero).
inline float tf32_to_f32(std::uint32_t bits) { return bits_to_float(bits & 0xffffe000u); }
// One element at p (little-endian, element_bytes(t) bytes) widened to fp32.
float element_to_f32(element_type t, const unsigned char* p);

std::uint16_t f32_to_f16(float f);   // round to nearest even; overflow -> inf; NaN kept
float f16_to_f32(std::uint16_t h);
std::uint16_t f32_to_bf16(float f);  // round to nearest even; NaN kept quiet
inline float bf16_to_f32(std::uint16_t h) { return bits_to_float(std::uint32_t(h) << 16); }

inline float to_f32(element_type t, std::uint16_t bits) {
  return t == element_type::bf16 ? bf16_to_f32(bits) : f16_to_f32(bits);
}
std::uint16_t from_f32(element_type t, float f);

// Reference D = A x B + C (row-major; A M x K, B K x N, C and D M x N in fp32) with the
// datapath's order of operations.
void reference_gemm(element_type in, unsigned m, unsigned n, unsigned k, const std::vector<std::uint16_t>& a,
                    const std::vector<std::uint16_t>& b, const std::vector<float>& c, std::vector<float>& d);

// The same product in double precision (for tolerance checks against exact arithmetic).
void reference_gemm_f64(element_type in, unsigned m, unsigned n, unsigned k, const std::vector<std::uint16_t>& a,
                        const std::vector<std::uint16_t>& b, const std::vector<float>& c, std::vector<double>& d);

}  // namespace flynn

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

enum class element_type { f16, bf16, f32 };

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

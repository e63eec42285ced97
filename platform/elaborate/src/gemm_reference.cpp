// A workload's host GEMM reference: C = A x B computed on the host from the initial memory
// image, against which the run's result is checked (gemm_reference.h).
#include "gemm_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/scenario.h"
#include "flynn/tensor/numeric.h"

using nlohmann::json;

namespace flynn {

// {"gemm": {"a": A, "b": B, "c": C, "m": M, "n": N, "k": K, "lda": .., "ldb": .., "ldc": ..,
// "tolerance": REL, "type": "f32" | "bf16", "b_transposed": false}}: C = A x B, row-major, C
// binary32, A and B binary32 or bf16 (B as N x K when b_transposed), rows lda, ldb and ldc
// elements apart (K, K or N, and N by default), against a plain host GEMM (k ascending, one
// fused multiply-add each in binary32).
gemm_reference parse_gemm_reference(const json& r, const gemm_operand_fn& operand, const gemm_fail_fn& fail) {
  gemm_reference out;
  if (!r.is_object() || !r.contains("gemm") || r.size() != 1)
    fail("workload.reference", "{\"gemm\": {...}} (the host references)", json_kind(r));
  const json& g = r["gemm"];
  if (!g.is_object()) fail("workload.reference.gemm", "an object", json_kind(g));
  static const std::vector<std::string> keys = {"a", "b", "c", "m", "n", "k", "lda", "ldb", "ldc", "tolerance", "type", "b_transposed"};
  for (auto it = g.begin(); it != g.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
      fail("workload.reference.gemm." + it.key(), "a, b, c, m, n, k, lda, ldb, ldc, tolerance, type or b_transposed",
           "unknown key " + excerpt(it.key()));
  if (g.contains("type")) {
    if (!g["type"].is_string() || (g["type"] != "f32" && g["type"] != "bf16"))
      fail("workload.reference.gemm.type", "\"f32\" or \"bf16\" (the type of A and B)", json_kind(g["type"]));
    out.bf16 = g["type"] == "bf16";
  }
  if (g.contains("b_transposed")) {
    if (!g["b_transposed"].is_boolean()) fail("workload.reference.gemm.b_transposed", "true or false", json_kind(g["b_transposed"]));
    out.b_transposed = g["b_transposed"].get<bool>();
  }
  auto dim = [&](const char* key) {
    const std::string p = std::string("workload.reference.gemm.") + key;
    if (!g.contains(key) || !g[key].is_number_unsigned() || g[key].get<std::uint64_t>() == 0 || g[key].get<std::uint64_t>() > 65536)
      fail(p, "an extent in [1, 65536]", g.contains(key) ? json_kind(g[key]) : "nothing (missing)");
    return g[key].get<unsigned>();
  };
  out.m = dim("m");
  out.n = dim("n");
  out.k = dim("k");
  // Row pitches: at least a row's elements.
  auto pitch = [&](const char* key, const char* matrix, unsigned row) -> std::uint64_t {
    const std::string p = std::string("workload.reference.gemm.") + key;
    if (!g.contains(key)) return row;
    if (!g[key].is_number_unsigned() || g[key].get<std::uint64_t>() < row || g[key].get<std::uint64_t>() > (std::uint64_t(1) << 32))
      fail(p, std::string("elements from one row of ") + matrix + " to the next, at least the row's " + std::to_string(row),
           json_kind(g[key]));
    return g[key].get<std::uint64_t>();
  };
  const unsigned b_rows = out.b_transposed ? out.n : out.k, b_row = out.b_transposed ? out.k : out.n;
  out.lda = pitch("lda", "A", out.k);
  out.ldb = pitch("ldb", "B", b_row);
  out.ldc = pitch("ldc", "C", out.n);
  const unsigned in_bytes = out.bf16 ? 2 : 4;
  out.a = operand("a", ((out.m - 1) * out.lda + out.k) * in_bytes);
  out.b = operand("b", ((b_rows - 1) * out.ldb + b_row) * in_bytes);
  out.c = operand("c", ((out.m - 1) * out.ldc + out.n) * 4);
  if (g.contains("tolerance")) {
    if (!g["tolerance"].is_number() || g["tolerance"].get<double>() < 0)
      fail("workload.reference.gemm.tolerance", "a relative tolerance (a non-negative number)", json_kind(g["tolerance"]));
    out.tolerance = g["tolerance"].get<double>();
  }
  out.on = true;
  return out;
}

std::string check_gemm_reference(const gemm_reference& g, const backdoor_memory& mem, const std::vector<unsigned char>& image) {
  auto word = [&](std::uint64_t addr) {
    std::uint32_t x = 0;
    mem.peek(addr, reinterpret_cast<unsigned char*>(&x), 4);
    return x;
  };
  auto initial = [&](std::uint64_t base, std::uint64_t element) {  // an element of A or B as it was
    if (g.bf16) {
      std::uint16_t x = 0;
      std::memcpy(&x, &image[base + 2 * element], 2);
      return bf16_to_f32(x);
    }
    std::uint32_t x = 0;
    std::memcpy(&x, &image[base + 4 * element], 4);
    return bits_to_float(x);
  };
  for (unsigned i = 0; i < g.m; ++i)
    for (unsigned j = 0; j < g.n; ++j) {
      float acc = 0.0f;
      for (unsigned k = 0; k < g.k; ++k)
        acc = std::fma(initial(g.a, i * g.lda + k), initial(g.b, g.b_transposed ? j * g.ldb + k : k * g.ldb + j), acc);
      const float got = bits_to_float(word(g.c + 4 * (i * g.ldc + j)));
      const double err = std::fabs(double(got) - double(acc)) / std::max(1.0, std::fabs(double(acc)));
      if (!(err <= g.tolerance))
        return "C[" + std::to_string(i) + "][" + std::to_string(j) + "] is " + std::to_string(got) + ", the host GEMM gives " +
               std::to_string(acc) + " (relative error " + std::to_string(err) + " above " + std::to_string(g.tolerance) + ")";
    }
  return {};
}

std::string gemm_reference_summary(const gemm_reference& g) {
  return "C equals the host GEMM (" + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) +
         ") within " + std::to_string(g.tolerance);
}

}  // namespace flynn

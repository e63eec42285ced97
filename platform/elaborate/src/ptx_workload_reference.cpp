// A PTX workload's host reference: a GEMM computed on the host from the initial memory
// image, against which the run's result is checked.
#include "ptx_workload.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "flynn/tensor/numeric.h"

using nlohmann::json;

namespace flynn {

// {"gemm": {"a": BUF, "b": BUF, "c": BUF, "m": M, "n": N, "k": K, "tolerance": REL,
// "type": "f32" | "bf16", "b_transposed": false}}: C = A x B, row-major, C binary32, A and B
// binary32 or bf16 (B as N x K when b_transposed), against a plain host GEMM (k ascending, one
// fused multiply-add each in binary32).
void ptx_workload::parse_reference(const json& spec) {
  if (!spec.contains("reference")) return;
  const json& r = spec["reference"];
  if (!r.is_object() || !r.contains("gemm") || r.size() != 1)
    fail("workload.reference", "{\"gemm\": {...}} (the host references)", json_kind(r));
  const json& g = r["gemm"];
  if (!g.is_object()) fail("workload.reference.gemm", "an object", json_kind(g));
  static const std::vector<std::string> keys = {"a", "b", "c", "m", "n", "k", "tolerance", "type", "b_transposed"};
  for (auto it = g.begin(); it != g.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
      fail("workload.reference.gemm." + it.key(), "a, b, c, m, n, k, tolerance, type or b_transposed",
           "unknown key " + excerpt(it.key()));
  if (g.contains("type")) {
    if (!g["type"].is_string() || (g["type"] != "f32" && g["type"] != "bf16"))
      fail("workload.reference.gemm.type", "\"f32\" or \"bf16\" (the type of A and B)", json_kind(g["type"]));
    gemm_.bf16 = g["type"] == "bf16";
  }
  if (g.contains("b_transposed")) {
    if (!g["b_transposed"].is_boolean()) fail("workload.reference.gemm.b_transposed", "true or false", json_kind(g["b_transposed"]));
    gemm_.b_transposed = g["b_transposed"].get<bool>();
  }
  auto dim = [&](const char* key) {
    const std::string p = std::string("workload.reference.gemm.") + key;
    if (!g.contains(key) || !g[key].is_number_unsigned() || g[key].get<std::uint64_t>() == 0 || g[key].get<std::uint64_t>() > 65536)
      fail(p, "an extent in [1, 65536]", g.contains(key) ? json_kind(g[key]) : "nothing (missing)");
    return g[key].get<unsigned>();
  };
  gemm_.m = dim("m");
  gemm_.n = dim("n");
  gemm_.k = dim("k");
  auto buf = [&](const char* key, std::uint64_t elems, unsigned elem_bytes) {
    const std::string p = std::string("workload.reference.gemm.") + key;
    if (!g.contains(key) || !g[key].is_string()) fail(p, "a buffer name", g.contains(key) ? json_kind(g[key]) : "nothing (missing)");
    const buffer* b = buffer_named(g[key].get<std::string>());
    if (!b) fail(p, "the name of a buffer in workload.buffers", "'" + g[key].get<std::string>() + "'");
    if (b->bytes < elems * elem_bytes)
      fail(p, "a buffer of at least " + std::to_string(elems * elem_bytes) + " bytes", std::to_string(b->bytes) + " bytes");
    return b->address;
  };
  const unsigned in_bytes = gemm_.bf16 ? 2 : 4;
  gemm_.a = buf("a", std::uint64_t(gemm_.m) * gemm_.k, in_bytes);
  gemm_.b = buf("b", std::uint64_t(gemm_.k) * gemm_.n, in_bytes);
  gemm_.c = buf("c", std::uint64_t(gemm_.m) * gemm_.n, 4);
  if (g.contains("tolerance")) {
    if (!g["tolerance"].is_number() || g["tolerance"].get<double>() < 0)
      fail("workload.reference.gemm.tolerance", "a relative tolerance (a non-negative number)", json_kind(g["tolerance"]));
    gemm_.tolerance = g["tolerance"].get<double>();
  }
  gemm_.on = true;
}

std::string ptx_workload::check_gemm() const {
  const gemm_reference& g = gemm_;
  auto word = [&](std::uint64_t addr) {
    std::uint32_t x = 0;
    mem_->peek(addr, reinterpret_cast<unsigned char*>(&x), 4);
    return x;
  };
  auto initial = [&](std::uint64_t base, std::uint64_t element) {  // an element of A or B as it was
    if (g.bf16) {
      std::uint16_t x = 0;
      std::memcpy(&x, &image_[base + 2 * element], 2);
      return bf16_to_f32(x);
    }
    std::uint32_t x = 0;
    std::memcpy(&x, &image_[base + 4 * element], 4);
    return bits_to_float(x);
  };
  for (unsigned i = 0; i < g.m; ++i)
    for (unsigned j = 0; j < g.n; ++j) {
      float acc = 0.0f;
      for (unsigned k = 0; k < g.k; ++k)
        acc = std::fma(initial(g.a, std::uint64_t(i) * g.k + k),
                       initial(g.b, g.b_transposed ? std::uint64_t(j) * g.k + k : std::uint64_t(k) * g.n + j), acc);
      const float got = bits_to_float(word(g.c + 4 * (std::uint64_t(i) * g.n + j)));
      const double err = std::fabs(double(got) - double(acc)) / std::max(1.0, std::fabs(double(acc)));
      if (!(err <= g.tolerance))
        return "C[" + std::to_string(i) + "][" + std::to_string(j) + "] is " + std::to_string(got) + ", the host GEMM gives " +
               std::to_string(acc) + " (relative error " + std::to_string(err) + " above " + std::to_string(g.tolerance) + ")";
    }
  return {};
}

}  // namespace flynn

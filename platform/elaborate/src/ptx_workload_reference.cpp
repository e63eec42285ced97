// A PTX workload's host reference: a GEMM computed on the host from the initial memory image
// (gemm_reference.h), its operands named by buffer.
#include "ptx_workload.h"

#include "flynn/platform/scenario.h"

using nlohmann::json;

namespace flynn {

void ptx_workload::parse_reference(const json& spec) {
  if (!spec.contains("reference")) return;
  const json& g = spec["reference"].is_object() && spec["reference"].contains("gemm") ? spec["reference"]["gemm"] : json();
  const auto operand = [&](const std::string& key, std::uint64_t bytes) -> std::uint64_t {
    const std::string p = "workload.reference.gemm." + key;
    if (!g.contains(key) || !g[key].is_string()) fail(p, "a buffer name", g.contains(key) ? json_kind(g[key]) : "nothing (missing)");
    const buffer* b = buffer_named(g[key].get<std::string>());
    if (!b) fail(p, "the name of a buffer in workload.buffers", "'" + g[key].get<std::string>() + "'");
    if (b->bytes < bytes) fail(p, "a buffer of at least " + std::to_string(bytes) + " bytes", std::to_string(b->bytes) + " bytes");
    return b->address;
  };
  gemm_ = parse_gemm_reference(spec["reference"], operand,
                               [this](const std::string& p, const std::string& e, const std::string& f) { fail(p, e, f); });
}

}  // namespace flynn

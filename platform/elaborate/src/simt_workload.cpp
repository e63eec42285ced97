// The SIMT core's workload: a kernel, its launch, global-memory images, and the check
// against the golden thread-by-thread interpreter.
#include <cmath>
#include <filesystem>

#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/memory_image.h"
#include "flynn/platform/simt_asm.h"
#include "flynn/platform/simt_interp.h"
#include "flynn/platform/workload.h"
#include "flynn/simt/simt_program.h"
#include "gemm_reference.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace flynn {

namespace {

class simt_workload final : public workload {
 public:
  simt_workload(module& core, const instance_lookup& modules, const scenario_doc& sd, const json& spec);
  void check(run_result& r) const override;

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& expected, const std::string& found) const {
    throw input_error(sd_.origin_of(path), path, expected, found);
  }
  // {"global": ADDR, "element_bytes": 2, "dims": [d0, ..], "strides": [s1, ..] (bytes, one per
  //  dimension after the first), "box": [b0, ..], "swizzle": a name in swizzle_modes}
  tensor_descriptor tensor_map(const json& e, const std::string& path) const {
    static const std::vector<std::string> keys = {"global", "element_bytes", "dims", "strides", "box", "swizzle"};
    if (!e.is_object()) fail(path, "a tensor descriptor object", json_kind(e));
    reject_unknown_keys(e, keys, path + ".", "a tensor descriptor key (global, element_bytes, dims, strides, box, swizzle)",
                        sd_);
    tensor_descriptor d;
    auto number = [&](const json& v, const std::string& at) {
      if (!v.is_number_unsigned()) fail(at, "a non-negative integer", json_kind(v));
      return v.get<std::uint64_t>();
    };
    if (!e.contains("global")) fail(path + ".global", "the tensor's global byte address", "nothing (missing)");
    d.global_base = number(e["global"], path + ".global");
    d.elem_bytes = e.contains("element_bytes") ? static_cast<unsigned>(number(e["element_bytes"], path + ".element_bytes")) : 2;
    if (!e.contains("dims") || !e["dims"].is_array() || e["dims"].empty() || e["dims"].size() > 5)
      fail(path + ".dims", "an array of 1 to 5 dimensions (innermost first)", e.contains("dims") ? json_kind(e["dims"]) : "nothing (missing)");
    d.rank = static_cast<unsigned>(e["dims"].size());
    for (unsigned k = 0; k < d.rank; ++k) d.dims[k] = number(e["dims"][k], index_path(path + ".dims", k));
    const json strides = e.contains("strides") ? e["strides"] : json::array();
    if (!strides.is_array() || strides.size() != d.rank - 1)
      fail(path + ".strides", std::to_string(d.rank - 1) + " byte strides (one per dimension after the first)", json_kind(strides));
    for (unsigned k = 1; k < d.rank; ++k) d.strides[k] = number(strides[k - 1], index_path(path + ".strides", k - 1));
    if (!e.contains("box") || !e["box"].is_array() || e["box"].size() != d.rank)
      fail(path + ".box", std::to_string(d.rank) + " box dimensions", e.contains("box") ? json_kind(e["box"]) : "nothing (missing)");
    for (unsigned k = 0; k < d.rank; ++k) {
      const std::uint64_t b = number(e["box"][k], index_path(path + ".box", k));
      if (b > 256) fail(index_path(path + ".box", k), "1 .. 256 elements", std::to_string(b));
      d.box[k] = static_cast<std::uint32_t>(b);
    }
    if (e.contains("swizzle")) {
      const std::string sw = e["swizzle"].is_string() ? e["swizzle"].get<std::string>() : "";
      const auto* c = choice_named(swizzle_modes, sw);
      if (!c) fail(path + ".swizzle", choice_names(swizzle_modes, "\""), json_kind(e["swizzle"]));
      d.swizzle = c->value;
    }
    if (const std::string why = d.validate(); !why.empty()) fail(path, "a valid tensor descriptor", why);
    if (d.global_base + d.dims[d.rank - 1] * (d.rank > 1 ? d.strides[d.rank - 1] : d.elem_bytes) > mem_->backdoor_bytes())
      fail(path + ".global", "a tensor inside the global memory (" + std::to_string(mem_->backdoor_bytes()) + " bytes)",
           hex(d.global_base));
    return d;
  }
  unsigned count(const json& spec, const char* key, unsigned def, unsigned max) const {
    if (!spec.contains(key)) return def;
    const json& v = spec[key];
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() < 1 || v.get<std::uint64_t>() > max)
      fail(std::string("workload.") + key, "an integer in [1, " + std::to_string(max) + "]", json_kind(v));
    return v.get<unsigned>();
  }

  const scenario_doc& sd_;
  simt_program program_;
  simt::kernel& kernel_ = program_.kernel;
  simt::launch& launch_ = program_.launch;
  module& core_;
  backdoor_memory* mem_ = nullptr;
  std::vector<unsigned char> image_;
  std::vector<std::pair<std::string, memory_image>> expect_;
  gemm_reference gemm_;
  void parse_reference(const json& ref);
};

simt_workload::simt_workload(module& core, const instance_lookup& modules, const scenario_doc& sd, const json& spec)
    : sd_(sd), core_(core) {
  static const std::vector<std::string> keys = {"kernel", "core", "memory", "grid", "block",
                                                "shared_bytes", "params", "init", "expect", "tensor_maps", "reference"};
  reject_unknown_keys(spec, keys, "workload.",
                      "a SIMT workload key (kernel, core, memory, grid, block, shared_bytes, params, init, expect, "
                      "tensor_maps, reference)",
                      sd_);
  for (const char* k : {"kernel", "memory"})
    if (!spec.contains(k) || !spec[k].is_string())
      fail(std::string("workload.") + k, "a string", spec.contains(k) ? json_kind(spec[k]) : "nothing (missing)");
  mem_ = &workload_memory(modules, sd, spec);
  const fs::path file = workload_file(sd, "workload.kernel", spec["kernel"].get<std::string>());
  std::error_code exists_ec;
  if (!fs::exists(file, exists_ec)) fail("workload.kernel", "a kernel assembly file", "'" + file.string() + "' (no such file)");
  kernel_ = simt::assemble_file(file.string());
  launch_.grid = count(spec, "grid", 1, 1u << 20);
  launch_.block = count(spec, "block", 32, 2048);
  if (spec.contains("shared_bytes")) {
    const json& v = spec["shared_bytes"];
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() % 4 || v.get<std::uint64_t>() > (1u << 24))
      fail("workload.shared_bytes", "a multiple of 4 up to 16 MiB", json_kind(v));
    launch_.shared_bytes = v.get<std::uint64_t>();
  }
  if (spec.contains("params")) {
    const json& ps = spec["params"];
    if (!ps.is_array()) fail("workload.params", "an array of 32-bit integers and binary32 numbers", json_kind(ps));
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const json& v = ps[i];
      if (v.is_number_float()) {  // written with a '.' or an exponent: a binary32 bit pattern
        const float f = static_cast<float>(v.get<double>());
        if (std::isinf(f) || (f == 0.0f && v.get<double>() != 0.0))
          fail(index_path("workload.params", i), "a number in binary32's range (rounding to neither infinity nor zero)",
               json_kind(v));
        launch_.params.push_back(float_to_bits(f));
        continue;
      }
      if (!v.is_number_integer() || v.get<std::int64_t>() < INT32_MIN || v.get<std::int64_t>() > UINT32_MAX)
        fail(index_path("workload.params", i), "a 32-bit integer or a binary32 number", json_kind(v));
      launch_.params.push_back(static_cast<std::uint32_t>(v.get<std::int64_t>()));
    }
  }
  if (spec.contains("tensor_maps")) {
    const json& ms = spec["tensor_maps"];
    if (!ms.is_array()) fail("workload.tensor_maps", "an array of tensor descriptors", json_kind(ms));
    for (std::size_t i = 0; i < ms.size(); ++i) launch_.tensor_maps.push_back(tensor_map(ms[i], index_path("workload.tensor_maps", i)));
  }
  for (const auto& in : kernel_.code)  // every tma.load / tma.store names a tensor map of the launch
    if ((in.code == simt::op::tma_load || in.code == simt::op::tma_store) && in.rd >= launch_.tensor_maps.size())
      fail("workload.tensor_maps", "a tensor map " + std::to_string(in.rd) + " for line " + std::to_string(in.line) + " (" +
                                       in.text + ")",
           std::to_string(launch_.tensor_maps.size()) + " tensor maps");
  try {
    core_.as_core()->load_program(program_);
  } catch (const std::invalid_argument& e) {
    fail("workload.block", "a launch that fits the core", e.what());
  }
  workload_images images = load_workload_images(
      spec, *mem_, 4, sd_, [](const std::string&, std::uint64_t&) { return false; }, {});
  image_ = std::move(images.start);
  expect_ = std::move(images.expect);
  if (spec.contains("reference")) parse_reference(spec["reference"]);
}

// The host GEMM reference, its operands given by byte address in the workload's memory.
void simt_workload::parse_reference(const json& ref) {
  const json& g = ref.is_object() && ref.contains("gemm") ? ref["gemm"] : json();
  const auto operand = [&](const std::string& key, std::uint64_t bytes) -> std::uint64_t {
    const std::string p = "workload.reference.gemm." + key;
    if (!g.contains(key) || !g[key].is_number_unsigned())
      fail(p, "a byte address in " + mem_->backdoor_name(), g.contains(key) ? json_kind(g[key]) : "nothing (missing)");
    const std::uint64_t a = g[key].get<std::uint64_t>();
    if (a > mem_->backdoor_bytes() || bytes > mem_->backdoor_bytes() - a)
      fail(p, "an operand of " + std::to_string(bytes) + " bytes inside the " + std::to_string(mem_->backdoor_bytes()) +
                  " bytes of " + mem_->backdoor_name(),
           "address " + std::to_string(a));
    return a;
  };
  gemm_ = parse_gemm_reference(ref, operand, [this](const std::string& p, const std::string& e, const std::string& f) { fail(p, e, f); });
}

void simt_workload::check(run_result& r) const {
  const bool ok = check_simt_run(
      core_, *mem_, image_, expect_, "the golden interpreter",
      [this](std::vector<unsigned char>& g, const simt::interp_config& c) { return simt::interpret(kernel_, launch_, g, c); },
      r);
  if (!ok || !gemm_.on) return;
  const std::string why = check_gemm_reference(gemm_, *mem_, image_);
  if (!why.empty()) {
    r.state = run_result::status::mismatch;
    r.message = std::string(core_.name()) + ": the host GEMM reference: " + why;
    return;
  }
  r.checks.push_back(std::string(core_.name()) + ": " + gemm_reference_summary(gemm_));
}

}  // namespace

bool check_simt_run(const module& core, const backdoor_memory& mem, std::vector<unsigned char> global,
                    const std::vector<std::pair<std::string, memory_image>>& expect, const std::string& golden,
                    const std::function<simt::interp_result(std::vector<unsigned char>&, const simt::interp_config&)>& interpret,
                    run_result& r) {
  const core_limits limits = core.as_core()->limits();
  const core_counts counts = core.as_core()->counts();
  simt::interp_config cfg;
  cfg.max_instructions = limits.max_instructions * limits.warp_size;
  cfg.warp_size = limits.warp_size;
  const simt::interp_result g = interpret(global, cfg);
  const std::string who = core.name();
  if (!g.ok) {
    r.state = run_result::status::mismatch;
    r.message = who + ": " + golden + " faulted where the timed run did not: " + g.fault;
    return false;
  }
  if (g.thread_instructions != counts.thread_instructions) {
    r.state = run_result::status::mismatch;
    r.message = who + ": executed " + std::to_string(counts.thread_instructions) + " thread instructions, " + golden + " " +
                std::to_string(g.thread_instructions);
    return false;
  }
  if (g.thread_digest != counts.thread_digest) {
    r.state = run_result::status::mismatch;
    r.message = who + ": the threads executed " + std::to_string(g.thread_instructions) +
                " instructions in all, as in " + golden + ", but not the same number each";
    return false;
  }
  r.checks.push_back(who + ": thread instructions equal " + golden + "'s, thread by thread (" +
                     std::to_string(g.thread_instructions) + " in all)");
  check_memory_results(mem, global, 4, expect, r);
  return r.state == run_result::status::ok;
}

std::unique_ptr<workload> load_simt_workload(module& core, const instance_lookup& modules, const scenario_doc& sd,
                                             const json& spec) {
  return std::make_unique<simt_workload>(core, modules, sd, spec);
}

}  // namespace flynn

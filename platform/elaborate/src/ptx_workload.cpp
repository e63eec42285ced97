// A PTX kernel as the SIMT core's workload: the nvcc-generated PTX file, the entry, its
// launch (3D grid and block, dynamic shared memory), named buffers in global memory, the
// parameters by name, and the checks against the golden PTX interpreter and, where the
// scenario gives one, a host reference.
//
//   "workload": {
//     "ptx": "../../workloads/cuda/ptx/vecadd.ptx", "kernel": "vecadd",
//     "core": "sm", "memory": "gmem",
//     "grid": [32, 1, 1], "block": 256, "dynamic_shared_bytes": 0,
//     "buffers": {"a": 32768, "b": 32768, "c": 32768},            // bytes, 256-byte aligned
//     "params": {"vecadd_param_0": "a", "vecadd_param_1": "b",    // pointers to buffers
//                "vecadd_param_2": {"buffer": "c", "offset": 0}, "vecadd_param_3": 8192},
//     "init": [{"symbol": "a", "random_floats": 8192, "seed": 1}],
//     "expect": [...], "reference": {"gemm": {...}}
//   }
// A CUtensorMap parameter (read by cp.async.bulk.tensor) takes the fields of
// cuTensorMapEncodeTiled: {"tensor_map": {"data_type": "bfloat16", "rank": 2,
// "global_address": BUF, "global_dim": [..], "global_strides": [..], "box_dim": [..],
// "element_strides": [1, 1], "interleave": "none", "swizzle": "128B", "l2_promotion": "none",
// "oob_fill": "none"}}.
#include "ptx_workload.h"

#include <algorithm>
#include <filesystem>

#include "flynn/common/format.h"
#include "flynn/platform/ptx_interp.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace flynn {

namespace {

constexpr std::uint64_t buffer_align = 256;  // as cudaMalloc's

}  // namespace

std::array<unsigned, 3> ptx_workload::extents(const json& spec, const char* key, unsigned max_total) const {
  const std::string path = std::string("workload.") + key;
  std::array<unsigned, 3> d{1, 1, 1};
  if (!spec.contains(key)) return d;
  const json& v = spec[key];
  auto one = [&](const json& x, const std::string& at) {
    if (!x.is_number_unsigned() || x.get<std::uint64_t>() < 1 || x.get<std::uint64_t>() > max_total)
      fail(at, "an integer in [1, " + std::to_string(max_total) + "]", json_kind(x));
    return x.get<unsigned>();
  };
  if (v.is_array()) {
    if (v.empty() || v.size() > 3) fail(path, "1 to 3 extents [x, y, z]", json_kind(v));
    for (std::size_t i = 0; i < v.size(); ++i) d[i] = one(v[i], index_path(path, i));
  } else {
    d[0] = one(v, path);
  }
  if (std::uint64_t(d[0]) * d[1] * d[2] > max_total)
    fail(path, "at most " + std::to_string(max_total) + " in all", std::to_string(std::uint64_t(d[0]) * d[1] * d[2]));
  return d;
}

void ptx_workload::place_buffers(const json& spec) {
  if (!spec.contains("buffers")) return;
  const json& bs = spec["buffers"];
  if (!bs.is_object()) fail("workload.buffers", "an object of buffer names and sizes in bytes", json_kind(bs));
  std::uint64_t at = buffer_align;  // (address 0 stays unused: a null pointer faults)
  for (auto it = bs.begin(); it != bs.end(); ++it) {
    const std::string path = "workload.buffers." + it.key();
    if (!it.value().is_number_unsigned() || it.value().get<std::uint64_t>() == 0)
      fail(path, "the buffer's size in bytes (a positive integer)", json_kind(it.value()));
    const std::uint64_t bytes = it.value().get<std::uint64_t>();
    if (at + bytes > mem_->backdoor_bytes())
      fail(path, "buffers that fit the global memory (" + std::to_string(mem_->backdoor_bytes()) + " bytes)",
           std::to_string(bytes) + " bytes at " + hex(at));
    buffers_.push_back({it.key(), at, bytes});
    at = (at + bytes + buffer_align - 1) / buffer_align * buffer_align;
  }
}

ptx_workload::ptx_workload(module& core, const instance_lookup& modules, const scenario_doc& sd, const json& spec)
    : sd_(sd), core_(core) {
  static const std::vector<std::string> keys = {"ptx",     "kernel", "core", "memory", "grid",  "block",
                                                "dynamic_shared_bytes", "buffers", "params", "init", "expect", "reference"};
  reject_unknown_keys(spec, keys, "workload.",
                      "a PTX workload key (ptx, kernel, core, memory, grid, block, dynamic_shared_bytes, buffers, "
                      "params, init, expect, reference)",
                      sd_);
  for (const char* k : {"ptx", "kernel", "memory"})
    if (!spec.contains(k) || !spec[k].is_string())
      fail(std::string("workload.") + k, "a string", spec.contains(k) ? json_kind(spec[k]) : "nothing (missing)");
  mem_ = &workload_memory(modules, sd, spec);
  const fs::path file = fs::path(workload_file(sd, "workload.ptx", spec["ptx"].get<std::string>())).lexically_normal();
  std::error_code ec;
  if (!fs::exists(file, ec)) fail("workload.ptx", "a PTX file", "'" + file.string() + "' (no such file)");
  if (fs::is_directory(file, ec)) fail("workload.ptx", "a PTX file", "'" + file.string() + "' (a directory)");
  module_ = ptx::read_file(file.string());
  {
    const std::string want = spec["kernel"].get<std::string>();
    std::vector<std::string> names;
    for (const auto& k : module_.kernels) {
      if (k.name == want) kernel_ = &k;
      names.push_back(k.name);
    }
    if (!kernel_) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      const std::string hint = did_you_mean(want, names);
      fail("workload.kernel", "a kernel entry of " + file.string() + " (" + list + ")" + (hint.empty() ? "" : "; " + hint),
           "'" + want + "'");
    }
  }
  lowered_ = ptx::lower(module_, *kernel_);
  launch_.grid_xyz = extents(spec, "grid", 1u << 20);
  launch_.block_xyz = extents(spec, "block", 2048);
  launch_.grid = launch_.grid_xyz[0] * launch_.grid_xyz[1] * launch_.grid_xyz[2];
  launch_.block = launch_.block_xyz[0] * launch_.block_xyz[1] * launch_.block_xyz[2];
  std::uint64_t dynamic = 0;
  if (spec.contains("dynamic_shared_bytes")) {
    const json& v = spec["dynamic_shared_bytes"];
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > (1u << 24))
      fail("workload.dynamic_shared_bytes", "a byte count up to 16 MiB", json_kind(v));
    dynamic = v.get<std::uint64_t>();
  }
  launch_.shared_bytes = (kernel_->static_shared + dynamic + 3) / 4 * 4;
  for (const auto& v : kernel_->shared) launch_.shared_align = std::max<std::uint64_t>(launch_.shared_align, v.align);
  place_buffers(spec);
  set_params(spec);
  parse_reference(spec);
  try {
    program_.kernel = lowered_.code;
    core_.as_core()->load_program(program_);
  } catch (const std::invalid_argument& e) {
    fail("workload.block", "a launch that fits the core", e.what());
  }
  const auto resolve = [this](const std::string& n, std::uint64_t& a) {
    const buffer* b = buffer_named(n);
    if (b) a = b->address;
    return b != nullptr;
  };
  workload_images images = load_workload_images(spec, *mem_, 4, sd_, resolve, buffer_names());
  image_ = std::move(images.start);
  expect_ = std::move(images.expect);
}

void ptx_workload::check(run_result& r) const {
  const bool ok = check_simt_run(
      core_, *mem_, image_, expect_, "the golden PTX interpreter",
      [this](std::vector<unsigned char>& g, const simt::interp_config& c) { return ptx::interpret(module_, *kernel_, launch_, g, c); },
      r);
  if (!ok || !gemm_.on) return;
  const std::string who = core_.name();
  const std::string why = check_gemm_reference(gemm_, *mem_, image_);
  if (!why.empty()) {
    r.state = run_result::status::mismatch;
    r.message = who + ": the host GEMM reference: " + why;
    return;
  }
  r.checks.push_back(who + ": " + gemm_reference_summary(gemm_));
}

std::unique_ptr<workload> load_ptx_workload(module& core, const instance_lookup& modules, const scenario_doc& sd,
                                            const json& spec) {
  return std::make_unique<ptx_workload>(core, modules, sd, spec);
}

}  // namespace flynn

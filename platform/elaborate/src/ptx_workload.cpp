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
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/memory_image.h"
#include "flynn/platform/ptx.h"
#include "flynn/platform/ptx_interp.h"
#include "flynn/platform/ptx_lower.h"
#include "flynn/platform/workload.h"
#include "flynn/simt/simt_program.h"
#include "flynn/tensor/numeric.h"
#include "flynn/tma/swizzle.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace flynn {

namespace {

constexpr std::uint64_t buffer_align = 256;  // as cudaMalloc's

class ptx_workload final : public workload {
 public:
  ptx_workload(module& core, const instance_lookup& modules, const scenario_doc& sd, const json& spec);
  void check(run_result& r) const override;

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& expected, const std::string& found) const {
    throw input_error(sd_.origin_of(path), path, expected, found);
  }
  std::array<unsigned, 3> extents(const json& spec, const char* key, unsigned max_total) const;
  void place_buffers(const json& spec);
  void set_params(const json& spec);
  tensor_descriptor tensor_map(const json& v, const std::string& path) const;
  void parse_reference(const json& spec);
  std::string check_gemm() const;

  const scenario_doc& sd_;
  ptx::module module_;
  const ptx::kernel* kernel_ = nullptr;
  ptx::lowered lowered_;
  simt_program program_;  // the lowered kernel and its launch
  simt::launch& launch_ = program_.launch;
  module& core_;
  backdoor_memory* mem_ = nullptr;
  std::vector<unsigned char> image_;
  std::vector<std::pair<std::string, memory_image>> expect_;
  struct buffer {
    std::string name;
    std::uint64_t address = 0, bytes = 0;
  };
  std::vector<buffer> buffers_;
  const buffer* buffer_named(const std::string& n) const {
    for (const auto& b : buffers_)
      if (b.name == n) return &b;
    return nullptr;
  }
  std::vector<std::string> buffer_names() const {
    std::vector<std::string> v;
    for (const auto& b : buffers_) v.push_back(b.name);
    return v;
  }
  struct gemm_reference {
    bool on = false;
    std::uint64_t a = 0, b = 0, c = 0;
    unsigned m = 0, n = 0, k = 0;
    double tolerance = 1e-5;
    bool bf16 = false;          // A and B bf16 (else binary32)
    bool b_transposed = false;  // B given as N x K (K-major), else K x N
  } gemm_;
};

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

void ptx_workload::set_params(const json& spec) {
  const ptx::kernel& k = *kernel_;
  std::vector<unsigned char> bytes((k.param_bytes + 3) / 4 * 4, 0);
  const json ps = spec.contains("params") ? spec["params"] : json::object();
  if (!ps.is_object()) fail("workload.params", "an object of the kernel's parameters by name", json_kind(ps));
  std::vector<std::string> names;
  for (const auto& p : k.params) names.push_back(p.name);
  std::vector<tensor_descriptor> maps(lowered_.tensor_map_params.size());
  for (auto it = ps.begin(); it != ps.end(); ++it)
    if (std::find(names.begin(), names.end(), it.key()) == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      const std::string hint = did_you_mean(it.key(), names);
      fail("workload.params." + it.key(), "a parameter of " + k.name + " (" + list + ")" + (hint.empty() ? "" : "; " + hint),
           "unknown parameter '" + it.key() + "'");
    }
  for (const auto& p : k.params) {
    const std::string path = "workload.params." + p.name;
    if (!ps.contains(p.name))
      fail(path, "a value for ." + std::string(ptx::name_of(p.type)) + " parameter " + p.name + " (the kernel has " +
                     std::to_string(k.params.size()) + " parameters)",
           "nothing (missing)");
    const json& v = ps[p.name];
    const bool is_map = std::find(lowered_.tensor_map_params.begin(), lowered_.tensor_map_params.end(),
                                  static_cast<unsigned>(&p - k.params.data())) != lowered_.tensor_map_params.end();
    if (is_map || (v.is_object() && v.contains("tensor_map"))) {
      if (!is_map) fail(path, "a value for ." + std::string(ptx::name_of(p.type)) + " parameter " + p.name +
                                  " (cp.async.bulk.tensor does not read it as a tensor map)", "a tensor map");
      if (!v.is_object() || !v.contains("tensor_map") || v.size() != 1)
        fail(path, "{\"tensor_map\": {...}} (cp.async.bulk.tensor reads " + p.name + " as a CUtensorMap)", json_kind(v));
      if (p.bytes != 128 || p.align < 64)
        fail(path, "a 128-byte .b8 parameter aligned to 64 bytes for a CUtensorMap", std::to_string(p.bytes) + " bytes");
      maps[static_cast<std::size_t>(std::find(lowered_.tensor_map_params.begin(), lowered_.tensor_map_params.end(),
                                              static_cast<unsigned>(&p - k.params.data())) -
                                    lowered_.tensor_map_params.begin())] = tensor_map(v["tensor_map"], path + ".tensor_map");
      continue;  // (the parameter's bytes: opaque; its address names the map)
    }
    std::uint64_t x = 0;
    const bool pointer_type = p.bytes == 8 && !ptx::is_float(p.type);
    if (v.is_string() || v.is_object()) {
      if (!pointer_type) fail(path, "a number for ." + std::string(ptx::name_of(p.type)) + " (a buffer needs a .u64 parameter)", json_kind(v));
      std::string name;
      std::uint64_t offset = 0;
      if (v.is_string()) {
        name = v.get<std::string>();
      } else {
        for (auto f = v.begin(); f != v.end(); ++f)
          if (f.key() != "buffer" && f.key() != "offset") fail(path + "." + f.key(), "\"buffer\" or \"offset\"", "unknown key " + excerpt(f.key()));
        if (!v.contains("buffer") || !v["buffer"].is_string())
          fail(path + ".buffer", "a buffer name", v.contains("buffer") ? json_kind(v["buffer"]) : "nothing (missing)");
        name = v["buffer"].get<std::string>();
        if (v.contains("offset")) {
          if (!v["offset"].is_number_unsigned()) fail(path + ".offset", "a byte offset", json_kind(v["offset"]));
          offset = v["offset"].get<std::uint64_t>();
        }
      }
      const buffer* b = buffer_named(name);
      if (!b) {
        const std::string hint = did_you_mean(name, buffer_names());
        fail(path, "the name of a buffer in workload.buffers" + (hint.empty() ? "" : "; " + hint), "'" + name + "'");
      }
      if (offset > b->bytes) fail(path + ".offset", "an offset inside buffer " + name + " (" + std::to_string(b->bytes) + " bytes)", std::to_string(offset));
      x = b->address + offset;
    } else if (v.is_number()) {
      const std::string t = ptx::name_of(p.type);
      if (p.type == ptx::dtype::f32) {
        x = float_to_bits(static_cast<float>(v.get<double>()));
      } else if (p.type == ptx::dtype::f64) {
        x = double_to_bits(v.get<double>());
      } else {
        if (!v.is_number_integer())
          fail(path, "an integer for ." + t + " parameter " + p.name + " (only .f32 and .f64 parameters take non-integers)",
               json_kind(v));
        const unsigned bits = 8 * p.bytes;
        const bool neg = v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0;
        if (neg && !ptx::is_signed(p.type) && p.type != ptx::dtype::b32 && p.type != ptx::dtype::b64)
          fail(path, "a non-negative integer for ." + t, json_kind(v));
        x = neg ? static_cast<std::uint64_t>(v.get<std::int64_t>()) : v.get<std::uint64_t>();
        if (bits < 64) {
          const std::int64_t lo = neg ? -(std::int64_t(1) << (bits - 1)) : 0;
          const bool fits = neg ? v.get<std::int64_t>() >= lo : x <= ((std::uint64_t(1) << bits) - 1);
          if (!fits) fail(path, "an integer that fits ." + t, json_kind(v));
          x &= (std::uint64_t(1) << bits) - 1;
        }
      }
    } else {
      fail(path, "a number, a buffer name or {\"buffer\": NAME, \"offset\": BYTES}", json_kind(v));
    }
    if (p.bytes > 8) fail(path, "a parameter of at most 8 bytes (or a tensor map that cp.async.bulk.tensor reads)", std::to_string(p.bytes) + "-byte ." + std::string(ptx::name_of(p.type)) + " array");
    std::memcpy(&bytes[p.offset], &x, p.bytes);
  }
  launch_.params.resize(bytes.size() / 4);
  for (std::size_t i = 0; i < launch_.params.size(); ++i) std::memcpy(&launch_.params[i], &bytes[4 * i], 4);
  launch_.tensor_maps = maps;
  launch_.tensor_map_offsets.clear();
  for (const unsigned i : lowered_.tensor_map_params) launch_.tensor_map_offsets.push_back(k.params[i].offset);
  // Each copy names as many coordinates as its map has dimensions.
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    const ptx::instruction& in = k.code[i];
    if (in.op != ptx::opcode::tma_load) continue;
    const unsigned map = lowered_.code.code[i].rd;
    if (maps[map].rank != in.rank) {
      const std::string name = k.params[lowered_.tensor_map_params[map]].name;
      fail("workload.params." + name + ".tensor_map.rank",
           "rank " + std::to_string(in.rank) + " (" + k.file + ":" + std::to_string(in.line) + " copies a " +
               std::to_string(in.rank) + "d box with it)",
           std::to_string(maps[map].rank));
    }
  }
}

// The fields of cuTensorMapEncodeTiled (CUDA driver API) as a tensor descriptor; the ones the
// copy does not model must hold their plain values (element strides 1, no interleave, no
// out-of-bounds NaN fill); L2 promotion is a cache hint, taken and without effect here.
tensor_descriptor ptx_workload::tensor_map(const json& e, const std::string& path) const {
  static const std::vector<std::string> keys = {"data_type", "rank", "global_address", "global_dim", "global_strides",
                                                "box_dim", "element_strides", "interleave", "swizzle", "l2_promotion",
                                                "oob_fill"};
  if (!e.is_object()) fail(path, "an object of cuTensorMapEncodeTiled fields", json_kind(e));
  for (auto it = e.begin(); it != e.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      const std::string hint = did_you_mean(it.key(), keys);
      fail(path + "." + it.key(),
           "a cuTensorMapEncodeTiled field (data_type, rank, global_address, global_dim, global_strides, box_dim, "
           "element_strides, interleave, swizzle, l2_promotion, oob_fill)" + (hint.empty() ? "" : "; " + hint),
           "unknown key " + excerpt(it.key()));
    }
  for (const char* key : {"data_type", "rank", "global_address", "global_dim", "global_strides", "box_dim"})
    if (!e.contains(key)) fail(path + "." + key, "the tensor map's " + std::string(key), "nothing (missing)");
  static const std::vector<std::pair<std::string, unsigned>> types = {
      {"uint8", 1},   {"uint16", 2},  {"uint32", 4},  {"int32", 4},       {"uint64", 8},   {"int64", 8},
      {"float16", 2}, {"float32", 4}, {"float64", 8}, {"bfloat16", 2},    {"float32_ftz", 4}, {"tfloat32", 4}};
  tensor_descriptor d;
  {
    std::vector<std::string> names;
    for (const auto& t : types) names.push_back(t.first);
    const std::string t = e["data_type"].is_string() ? e["data_type"].get<std::string>() : "";
    const auto it = std::find_if(types.begin(), types.end(), [&](const auto& x) { return x.first == t; });
    if (it == types.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      fail(path + ".data_type", "a CUtensorMapDataType (" + list + ")", json_kind(e["data_type"]));
    }
    d.elem_bytes = it->second;
  }
  if (!e["rank"].is_number_unsigned() || e["rank"].get<std::uint64_t>() < 1 || e["rank"].get<std::uint64_t>() > 5)
    fail(path + ".rank", "a rank in [1, 5]", json_kind(e["rank"]));
  d.rank = e["rank"].get<unsigned>();
  auto list = [&](const char* key, std::size_t count, std::uint64_t lo, std::uint64_t hi) {
    const std::string at = path + "." + key;
    const json& v = e[key];
    if (!v.is_array() || v.size() != count)
      fail(at, std::to_string(count) + " values (rank " + std::to_string(d.rank) + ")", json_kind(v));
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < count; ++i) {
      if (!v[i].is_number_unsigned() || v[i].get<std::uint64_t>() < lo || v[i].get<std::uint64_t>() > hi)
        fail(index_path(at, i), "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", json_kind(v[i]));
      out.push_back(v[i].get<std::uint64_t>());
    }
    return out;
  };
  const auto dims = list("global_dim", d.rank, 1, std::uint64_t(1) << 32);
  const auto strides = list("global_strides", d.rank - 1, 16, (std::uint64_t(1) << 40) - 1);
  const auto box = list("box_dim", d.rank, 1, 256);
  for (unsigned i = 0; i < d.rank; ++i) {
    d.dims[i] = dims[i];
    d.box[i] = static_cast<std::uint32_t>(box[i]);
    if (i > 0) d.strides[i] = strides[i - 1];
  }
  if (e.contains("element_strides"))
    for (const auto x : list("element_strides", d.rank, 1, 8))
      if (x != 1) fail(path + ".element_strides", "element strides of 1 (strided boxes are not modelled)", std::to_string(x));
  auto name = [&](const char* key, const std::vector<std::string>& allowed, const std::string& why) {
    if (!e.contains(key)) return std::string(allowed.front());
    const std::string v = e[key].is_string() ? e[key].get<std::string>() : "";
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
      std::string l;
      for (const auto& a : allowed) l += (l.empty() ? "\"" : ", \"") + a + "\"";
      fail(path + "." + key, l + why, json_kind(e[key]));
    }
    return v;
  };
  name("interleave", {"none"}, " (interleaved layouts are not modelled)");
  name("l2_promotion", {"none", "64B", "128B", "256B"}, "");
  name("oob_fill", {"none"}, " (out-of-bounds elements land as zeros; the NaN fill is not modelled)");
  if (e.contains("swizzle")) {
    const std::string sw = e["swizzle"].is_string() ? e["swizzle"].get<std::string>() : "";
    const auto* c = choice_named(swizzle_modes, sw);
    if (!c) fail(path + ".swizzle", choice_names(swizzle_modes, "\""), json_kind(e["swizzle"]));
    d.swizzle = c->value;
  }
  {
    const std::string at = path + ".global_address";
    const json& v = e["global_address"];
    if (!v.is_string()) fail(at, "a buffer name", json_kind(v));
    const buffer* b = buffer_named(v.get<std::string>());
    if (!b) {
      const std::string hint = did_you_mean(v.get<std::string>(), buffer_names());
      fail(at, "the name of a buffer in workload.buffers" + (hint.empty() ? "" : "; " + hint), "'" + v.get<std::string>() + "'");
    }
    d.global_base = b->address;
    const std::uint64_t extent = d.rank > 1 ? d.dims[d.rank - 1] * d.strides[d.rank - 1] : d.dims[0] * d.elem_bytes;
    if (extent > b->bytes)
      fail(path + ".global_dim", "a tensor inside buffer " + b->name + " (" + std::to_string(b->bytes) + " bytes)",
           std::to_string(extent) + " bytes");
  }
  if (const std::string why = d.validate(); !why.empty()) fail(path, "a valid tensor map", why);
  return d;
}

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

ptx_workload::ptx_workload(module& core, const instance_lookup& modules, const scenario_doc& sd, const json& spec)
    : sd_(sd), core_(core) {
  static const std::vector<std::string> keys = {"ptx",     "kernel", "core", "memory", "grid",  "block",
                                                "dynamic_shared_bytes", "buffers", "params", "init", "expect", "reference"};
  for (auto it = spec.begin(); it != spec.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      const std::string hint = did_you_mean(it.key(), keys);
      fail("workload." + it.key(),
           "a PTX workload key (ptx, kernel, core, memory, grid, block, dynamic_shared_bytes, buffers, params, init, "
           "expect, reference)" + (hint.empty() ? "" : "; " + hint),
           "unknown key " + excerpt(it.key()));
    }
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
  if (spec.contains("init")) {
    if (!spec["init"].is_array()) fail("workload.init", "an array of memory images", json_kind(spec["init"]));
    for (std::size_t i = 0; i < spec["init"].size(); ++i) {
      const std::string path = index_path("workload.init", i);
      write_image(*mem_, parse_image(spec["init"][i], path, sd_, 4, mem_->backdoor_bytes(), true, resolve, buffer_names()), 4, path, sd_);
    }
  }
  if (spec.contains("expect")) {
    if (!spec["expect"].is_array()) fail("workload.expect", "an array of expected memory contents", json_kind(spec["expect"]));
    for (std::size_t i = 0; i < spec["expect"].size(); ++i) {
      const std::string path = index_path("workload.expect", i);
      expect_.emplace_back(path, parse_image(spec["expect"][i], path, sd_, 4, mem_->backdoor_bytes(), false, resolve, buffer_names()));
      check_image_fits(*mem_, expect_.back().second, 4, path, sd_);
    }
  }
  image_.resize(mem_->backdoor_bytes());
  mem_->peek(0, image_.data(), image_.size());
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

void ptx_workload::check(run_result& r) const {
  const bool ok = check_simt_run(
      core_, *mem_, image_, expect_, "the golden PTX interpreter",
      [this](std::vector<unsigned char>& g, const simt::interp_config& c) { return ptx::interpret(module_, *kernel_, launch_, g, c); },
      r);
  if (!ok || !gemm_.on) return;
  const std::string who = core_.name();
  const std::string why = check_gemm();
  if (!why.empty()) {
    r.state = run_result::status::mismatch;
    r.message = who + ": the host GEMM reference: " + why;
    return;
  }
  r.checks.push_back(who + ": C equals the host GEMM (" + std::to_string(gemm_.m) + "x" + std::to_string(gemm_.n) + "x" +
                     std::to_string(gemm_.k) + ") within " + std::to_string(gemm_.tolerance));
}

}  // namespace

std::unique_ptr<workload> load_ptx_workload(module& core, const instance_lookup& modules, const scenario_doc& sd,
                                            const json& spec) {
  return std::make_unique<ptx_workload>(core, modules, sd, spec);
}

}  // namespace flynn

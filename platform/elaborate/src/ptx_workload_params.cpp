// A PTX workload's kernel parameters: each parameter by name, a buffer's address, a number or
// a CUtensorMap.
#include "ptx_workload.h"

#include <algorithm>
#include <cstring>

#include "flynn/common/format.h"
#include "flynn/tensor/numeric.h"
#include "flynn/tma/swizzle.h"

using nlohmann::json;

namespace flynn {

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
  reject_unknown_keys(e, keys, path + ".",
                      "a cuTensorMapEncodeTiled field (data_type, rank, global_address, global_dim, global_strides, "
                      "box_dim, element_strides, interleave, swizzle, l2_promotion, oob_fill)",
                      sd_);
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

}  // namespace flynn

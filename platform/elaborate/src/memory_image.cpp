#include "flynn/platform/memory_image.h"

#include <cstdlib>
#include <cstring>
#include <random>

#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "flynn/common/programmable_core.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/run_result.h"
#include "flynn/tensor/numeric.h"

using nlohmann::json;

namespace flynn {

namespace {
std::uint64_t float_bits(double d, unsigned elem_bytes) {
  return elem_bytes == 4 ? float_to_bits(static_cast<float>(d)) : double_to_bits(d);
}

// An element as its image's kind reads it, then its bits: "23.5 (0x41bc0000)", "7 (0x7)".
// A float is written with the fewest digits that read back as the same value (at most 9
// for binary32, 17 for binary64).
std::string element_text(std::uint64_t x, memory_image::kind k) {
  char b[40];
  if (k == memory_image::kind::integer) {
    std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(x));
  } else {
    const bool single = k == memory_image::kind::binary32;
    const double d = single ? double(bits_to_float(static_cast<std::uint32_t>(x))) : bits_to_double(x);
    for (int digits = 6; digits <= (single ? 9 : 17); ++digits) {
      std::snprintf(b, sizeof b, "%.*g", digits, d);
      if (single ? std::strtof(b, nullptr) == float(d) : std::strtod(b, nullptr) == d) break;
    }
  }
  return std::string(b) + " (" + hex(x) + ")";
}

// Where image e (at `path`) lies: its "symbol" (resolved) or "address", after checking that e is
// an object of image keys only.
std::uint64_t image_address(const json& e, const std::string& path, const scenario_doc& sd, unsigned elem_bytes,
                            const std::function<bool(const std::string&, std::uint64_t&)>& resolve,
                            const std::vector<std::string>& symbols) {
  auto fail = [&](const std::string& p, const std::string& expected, const std::string& found) {
    throw input_error(sd.origin_of(p), p, expected, found);
  };
  static const std::vector<std::string> keys = {"symbol", "address", "values", "floats", "doubles", "iota", "start",
                                                "step", "fill", "value", "random", "random_floats", "random_doubles", "random_bf16", "random_f16", "random_e4m3", "random_e5m2",
                                                "seed", "min", "max"};
  if (!e.is_object()) fail(path, "an object with \"symbol\" or \"address\"", json_kind(e));
  reject_unknown_keys(e, keys, path + ".", "an image key (values, floats, iota, fill, random, random_floats, ...)", sd);
  std::uint64_t address = 0;
  if (e.contains("symbol")) {
    if (!e["symbol"].is_string() || !resolve(e["symbol"].get<std::string>(), address)) {
      const std::string hint = e["symbol"].is_string() ? did_you_mean(e["symbol"].get<std::string>(), symbols) : "";
      fail(path + ".symbol", "a data label of the program" + (hint.empty() ? "" : "; " + hint), json_kind(e["symbol"]));
    }
  } else if (e.contains("address")) {
    if (!e["address"].is_number_unsigned() || e["address"].get<std::uint64_t>() % elem_bytes)
      fail(path + ".address", "a byte address, multiple of " + std::to_string(elem_bytes), json_kind(e["address"]));
    address = e["address"].get<std::uint64_t>();
  } else {
    fail(path, "\"symbol\" or \"address\"", "neither");
  }
  return address;
}

// n random floats uniform in [-1, 1) (exact in fp32), each encoded in `bits` bits by encode and
// packed 32 / bits to a 4-byte element, the first in its lowest bits.
template <class Encode>
void random_packed(std::vector<std::uint64_t>& w, std::uint64_t n, std::uint64_t seed, unsigned bits, Encode encode) {
  std::mt19937_64 rng(seed);
  const unsigned per = 32 / bits;
  for (std::uint64_t i = 0; i < n; i += per) {
    std::uint64_t word = 0;
    for (unsigned q = 0; q < per; ++q) {
      const float x = static_cast<float>(double(rng() >> 40) / double(1ull << 23) - 1.0);  // exact in fp32
      word |= std::uint64_t(encode(x)) << (bits * q);
    }
    w.push_back(word);
  }
}
}  // namespace

memory_image parse_image(const json& e, const std::string& path, const scenario_doc& sd, unsigned elem_bytes,
                         std::uint64_t memory_bytes, bool init, const std::function<bool(const std::string&, std::uint64_t&)>& resolve,
                         const std::vector<std::string>& symbols) {
  auto fail = [&](const std::string& p, const std::string& expected, const std::string& found) {
    throw input_error(sd.origin_of(p), p, expected, found);
  };
  memory_image img;
  img.address = image_address(e, path, sd, elem_bytes, resolve, symbols);
  // An image must fit in its memory: checked on the count, before anything is generated.
  auto fits = [&](const std::string& key, std::uint64_t n) {
    if (img.address > memory_bytes || n > (memory_bytes - img.address) / elem_bytes)
      fail(path + "." + key, "an image inside the memory (" + std::to_string(memory_bytes) + " bytes)",
           std::to_string(n) + " elements of " + std::to_string(elem_bytes) + " B at byte address " +
               std::to_string(img.address));
  };
  auto count = [&](const char* k) {
    if (!e[k].is_number_unsigned() || e[k].get<std::uint64_t>() > (std::uint64_t(1) << 27))
      fail(path + "." + k, "an element count up to 2^27", json_kind(e[k]));
    fits(k, e[k].get<std::uint64_t>());
    return e[k].get<std::uint64_t>();
  };
  for (const char* k : {"values", "floats", "doubles"})
    if (e.contains(k) && e[k].is_array()) fits(k, e[k].size());
  auto num = [&](const char* k, std::int64_t def) -> std::int64_t {
    if (!e.contains(k)) return def;
    if (!e[k].is_number_integer()) fail(path + "." + k, "an integer", json_kind(e[k]));
    return e[k].get<std::int64_t>();
  };
  const std::uint64_t mask = elem_bytes == 8 ? ~0ull : (1ull << (8 * elem_bytes)) - 1;
  auto& w = img.elements;
  const char* floats = e.contains("floats") ? "floats" : e.contains("doubles") ? "doubles" : nullptr;
  const memory_image::kind float_kind = elem_bytes == 4 ? memory_image::kind::binary32 : memory_image::kind::binary64;
  if (e.contains("values")) {
    if (!e["values"].is_array()) fail(path + ".values", "an array of integers", json_kind(e["values"]));
    for (std::size_t i = 0; i < e["values"].size(); ++i) {
      const json& v = e["values"][i];
      if (!v.is_number_integer()) fail(index_path(path + ".values", i), "an integer", json_kind(v));
      w.push_back((v.is_number_unsigned() ? v.get<std::uint64_t>() : static_cast<std::uint64_t>(v.get<std::int64_t>())) & mask);
    }
  } else if (floats) {
    if (elem_bytes != 8 && std::string(floats) == "doubles")
      fail(path + ".doubles", "8-byte elements for \"doubles\" (binary64; \"floats\" gives binary32 here)",
           std::to_string(elem_bytes) + "-byte elements");
    if (!e[floats].is_array()) fail(path + "." + floats, "an array of numbers", json_kind(e[floats]));
    img.type = float_kind;
    for (std::size_t i = 0; i < e[floats].size(); ++i) {
      const json& v = e[floats][i];
      if (!v.is_number()) fail(index_path(path + "." + floats, i), "a number", json_kind(v));
      w.push_back(float_bits(v.get<double>(), elem_bytes));
    }
  } else if (e.contains("iota")) {
    const std::uint64_t n = count("iota");
    const std::int64_t start = num("start", 0), step = num("step", 1);
    for (std::uint64_t i = 0; i < n; ++i)
      w.push_back(static_cast<std::uint64_t>(start + static_cast<std::int64_t>(i) * step) & mask);
  } else if (e.contains("fill")) {
    w.assign(count("fill"), static_cast<std::uint64_t>(num("value", 0)) & mask);
  } else if (init && e.contains("random")) {
    const std::uint64_t n = count("random");
    const std::int64_t lo = num("min", 0), hi = num("max", 1000);
    if (hi < lo) fail(path + ".max", "at least min (" + std::to_string(lo) + ")", std::to_string(hi));
    std::mt19937_64 rng(static_cast<std::uint64_t>(num("seed", 1)));
    // Unsigned arithmetic: the span of [min, max] may be all 2^64 values.
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    for (std::uint64_t i = 0; i < n; ++i)
      w.push_back((static_cast<std::uint64_t>(lo) + (span ? rng() % span : rng())) & mask);
  } else if (init && (e.contains("random_floats") || e.contains("random_doubles"))) {
    if (elem_bytes != 8 && !e.contains("random_floats"))
      fail(path + ".random_doubles",
           "8-byte elements for \"random_doubles\" (binary64; \"random_floats\" gives binary32 here)",
           std::to_string(elem_bytes) + "-byte elements");
    const std::uint64_t n = count(e.contains("random_floats") ? "random_floats" : "random_doubles");
    img.type = float_kind;
    std::mt19937_64 rng(static_cast<std::uint64_t>(num("seed", 1)));
    for (std::uint64_t i = 0; i < n; ++i) w.push_back(float_bits(double(rng() >> 11) / double(1ull << 53), elem_bytes));
  } else if (init && (e.contains("random_bf16") || e.contains("random_f16"))) {
    // 16-bit floats uniform in [-1, 1), packed two per 4-byte element (first in the low half).
    const bool bf = e.contains("random_bf16");
    const std::uint64_t n = count(bf ? "random_bf16" : "random_f16");
    if (elem_bytes != 4 || n % 2)
      fail(path + (bf ? ".random_bf16" : ".random_f16"), "an even count of 16-bit values in 4-byte elements",
           std::to_string(n));
    const element_type ty = bf ? element_type::bf16 : element_type::f16;
    random_packed(w, n, static_cast<std::uint64_t>(num("seed", 1)), 16, [ty](float x) { return from_f32(ty, x); });
  } else if (init && (e.contains("random_e4m3") || e.contains("random_e5m2"))) {
    // 8-bit floats: values uniform in [-1, 1) rounded to the format (nearest even), packed
    // four per 4-byte element (first in the lowest byte).
    const bool e4 = e.contains("random_e4m3");
    const char* key = e4 ? "random_e4m3" : "random_e5m2";
    const std::uint64_t n = count(key);
    if (elem_bytes != 4 || n % 4)
      fail(path + "." + key, "a count of 8-bit values that is a multiple of 4, in 4-byte elements", std::to_string(n));
    random_packed(w, n, static_cast<std::uint64_t>(num("seed", 1)), 8,
                  [e4](float x) { return e4 ? f32_to_e4m3(x) : f32_to_e5m2(x); });
  } else {
    fail(path,
         init ? "one of values, floats, doubles, iota, fill, random, random_floats, random_doubles, random_bf16, "
                "random_f16, random_e4m3, random_e5m2"
              : "one of values, floats, doubles, iota, fill",
         "none of them");
  }
  return img;
}

void check_image_fits(const backdoor_memory& mem, const memory_image& img, unsigned elem_bytes,
                      const std::string& path, const scenario_doc& sd) {
  const std::uint64_t size = mem.backdoor_bytes();
  if (img.address > size || img.elements.size() * elem_bytes > size - img.address)
    throw input_error(sd.origin_of(path), path,
                      "an image inside the memory (" + std::to_string(size) + " bytes)",
                      std::to_string(img.elements.size()) + " elements of " + std::to_string(elem_bytes) +
                          " B at byte address " + std::to_string(img.address));
}

workload_images load_workload_images(const json& workload, backdoor_memory& mem, unsigned elem_bytes,
                                     const scenario_doc& sd,
                                     const std::function<bool(const std::string&, std::uint64_t&)>& resolve,
                                     const std::vector<std::string>& symbols) {
  workload_images r;
  const auto fail = [&](const std::string& p, const std::string& expected, const std::string& found) {
    throw input_error(sd.origin_of(p), p, expected, found);
  };
  const auto image = [&](const json& e, const std::string& path, bool init) {
    return parse_image(e, path, sd, elem_bytes, mem.backdoor_bytes(), init, resolve, symbols);
  };
  if (workload.contains("init")) {
    const json& init = workload["init"];
    if (!init.is_array()) fail("workload.init", "an array of memory images", json_kind(init));
    for (std::size_t i = 0; i < init.size(); ++i) {
      const std::string path = index_path("workload.init", i);
      write_image(mem, image(init[i], path, true), elem_bytes, path, sd);
    }
  }
  if (workload.contains("expect")) {
    const json& expect = workload["expect"];
    if (!expect.is_array()) fail("workload.expect", "an array of expected memory contents", json_kind(expect));
    for (std::size_t i = 0; i < expect.size(); ++i) {
      const std::string path = index_path("workload.expect", i);
      r.expect.emplace_back(path, image(expect[i], path, false));
      check_image_fits(mem, r.expect.back().second, elem_bytes, path, sd);
    }
  }
  r.start.resize(mem.backdoor_bytes());
  mem.peek(0, r.start.data(), r.start.size());
  return r;
}

void write_image(backdoor_memory& mem, const memory_image& img, unsigned elem_bytes, const std::string& path,
                 const scenario_doc& sd) {
  check_image_fits(mem, img, elem_bytes, path, sd);
  for (std::size_t i = 0; i < img.elements.size(); ++i)
    mem.poke(img.address + elem_bytes * i, reinterpret_cast<const unsigned char*>(&img.elements[i]), elem_bytes);
}

std::string compare_memory(const backdoor_memory& mem, const std::vector<unsigned char>& golden, unsigned elem_bytes) {
  std::vector<unsigned char> actual(golden.size());
  mem.peek(0, actual.data(), actual.size());
  for (std::size_t a = 0; a < golden.size(); a += elem_bytes) {
    const std::size_t n = std::min<std::size_t>(elem_bytes, golden.size() - a);
    if (std::memcmp(&golden[a], &actual[a], n) == 0) continue;
    std::uint64_t x = 0, y = 0;
    std::memcpy(&x, &golden[a], n);
    std::memcpy(&y, &actual[a], n);
    return "word at byte address " + std::to_string(a) + " is " + element_text(y, memory_image::kind::integer) +
           ", the golden interpreter has " + element_text(x, memory_image::kind::integer);
  }
  return {};
}

void check_memory_results(const backdoor_memory& mem, const std::vector<unsigned char>& golden, unsigned elem_bytes,
                          const std::vector<std::pair<std::string, memory_image>>& expect, run_result& r) {
  const std::string memory_diff = compare_memory(mem, golden, elem_bytes);
  if (!memory_diff.empty()) {
    r.state = run_result::status::mismatch;
    r.message = mem.backdoor_name() + ": " + memory_diff;
    return;
  }
  r.checks.push_back(mem.backdoor_name() + ": final memory equals the golden interpreter's");
  for (const auto& [path, img] : expect) {
    const std::string diff = compare_image(mem, img, elem_bytes);
    if (!diff.empty()) {
      r.state = run_result::status::mismatch;
      r.message = path + ": " + diff;
      return;
    }
    r.checks.push_back(path + ": " + std::to_string(img.elements.size()) + " words as expected");
  }
}

std::string compare_image(const backdoor_memory& mem, const memory_image& img, unsigned elem_bytes) {
  for (std::size_t i = 0; i < img.elements.size(); ++i) {
    std::uint64_t y = 0;
    mem.peek(img.address + elem_bytes * i, reinterpret_cast<unsigned char*>(&y), elem_bytes);
    if (y != img.elements[i])
      return "element " + std::to_string(i) + " (byte address " + std::to_string(img.address + elem_bytes * i) +
             ") is " + element_text(y, img.type) + ", expected " + element_text(img.elements[i], img.type);
  }
  return {};
}

}  // namespace flynn

// The vector machine's workload: assembly program, memory images, golden interpreter check.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "flynn/memory/banked_memory.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/vector_asm.h"
#include "flynn/platform/vector_interp.h"
#include "flynn/platform/workload.h"
#include "flynn/vector/scalar_unit.h"
#include "flynn/vector/vector_unit.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace flynn {

namespace {

class vector_workload final : public workload {
 public:
  vector_workload(platform& p, const scenario_doc& sd, const json& spec);
  void check(const platform& p, run_result& r) const override;

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& expected, const std::string& found) const {
    throw input_error(sd_.origin_of(path), path, expected, found);
  }
  std::uint64_t address_of(const json& entry, const std::string& path) const;
  void write_words(std::uint64_t addr, const std::vector<std::uint64_t>& w, const std::string& path);
  std::vector<std::uint64_t> words_of(const json& entry, const std::string& path, bool init) const;

  const scenario_doc& sd_;
  vec::program prog_;
  scalar_unit* core_ = nullptr;
  banked_memory* mem_ = nullptr;
  unsigned max_vl_ = 64;
  std::vector<unsigned char> image_;  // memory at the start (golden model input)
  json expect_ = json::array();
};

std::string str(const json& j, const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; }

vector_workload::vector_workload(platform& p, const scenario_doc& sd, const json& spec) : sd_(sd) {
  static const std::vector<std::string> keys = {"program", "core", "memory", "init", "expect"};
  for (auto it = spec.begin(); it != spec.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      const std::string hint = did_you_mean(it.key(), keys);
      fail("workload." + it.key(), "a workload key (program, core, memory, init, expect)" + (hint.empty() ? "" : "; " + hint),
           "unknown key '" + it.key() + "'");
    }
  for (const char* k : {"program", "core", "memory"})
    if (str(spec, k).empty())
      fail(std::string("workload.") + k, "a string", spec.contains(k) ? json_kind(spec[k]) : "nothing (missing)");
  core_ = dynamic_cast<scalar_unit*>(p.find(str(spec, "core")));
  if (!core_) fail("workload.core", "the name of a scalar_unit instance", "'" + str(spec, "core") + "'");
  mem_ = dynamic_cast<banked_memory*>(p.find(str(spec, "memory")));
  if (!mem_) fail("workload.memory", "the name of a banked_memory instance", "'" + str(spec, "memory") + "'");
  if (auto* vu = dynamic_cast<vector_unit*>(p.target_of(std::string(core_->basename()) + ".vpu")))
    max_vl_ = vu->parameters().max_vl;

  // The program path is relative to the file that names it.
  const fs::path from = fs::path(sd.origin_of("workload.program")).parent_path();
  const fs::path prog = from / str(spec, "program");
  if (!fs::exists(prog)) fail("workload.program", "an assembly file", "'" + prog.string() + "' (no such file)");
  prog_ = vec::assemble_file(prog.string());

  for (const auto& b : prog_.data) write_words(b.address, b.words, "workload.program");
  if (spec.contains("init")) {
    if (!spec["init"].is_array()) fail("workload.init", "an array of memory images", json_kind(spec["init"]));
    for (std::size_t i = 0; i < spec["init"].size(); ++i) {
      const std::string path = index_path("workload.init", i);
      const json& e = spec["init"][i];
      write_words(address_of(e, path), words_of(e, path, true), path);
    }
  }
  if (spec.contains("expect")) {
    if (!spec["expect"].is_array()) fail("workload.expect", "an array of expected memory contents", json_kind(spec["expect"]));
    for (std::size_t i = 0; i < spec["expect"].size(); ++i) {
      const std::string path = index_path("workload.expect", i);
      const json& e = spec["expect"][i];
      json x = {{"address", address_of(e, path)}, {"words", words_of(e, path, false)}, {"path", path}};
      expect_.push_back(x);
    }
  }
  image_.resize(mem_->parameters().size_bytes);
  mem_->peek(0, image_.data(), image_.size());
  core_->load(prog_);
}

std::uint64_t vector_workload::address_of(const json& e, const std::string& path) const {
  if (!e.is_object()) fail(path, "an object with \"symbol\" or \"address\"", json_kind(e));
  if (e.contains("symbol")) {
    std::uint64_t a = 0;
    if (!e["symbol"].is_string() || !prog_.find_symbol(e["symbol"].get<std::string>(), a)) {
      std::vector<std::string> names;
      for (const auto& [n, v] : prog_.symbols) names.push_back(n);
      const std::string hint = e["symbol"].is_string() ? did_you_mean(e["symbol"].get<std::string>(), names) : "";
      fail(path + ".symbol", "a data label of the program" + (hint.empty() ? "" : "; " + hint), json_kind(e["symbol"]));
    }
    return a;
  }
  if (e.contains("address")) {
    if (!e["address"].is_number_unsigned() || e["address"].get<std::uint64_t>() % 8)
      fail(path + ".address", "a byte address, multiple of 8", json_kind(e["address"]));
    return e["address"].get<std::uint64_t>();
  }
  fail(path, "\"symbol\" or \"address\"", "neither");
}

// Words of an image: values, doubles, iota, fill, random, random_doubles.
std::vector<std::uint64_t> vector_workload::words_of(const json& e, const std::string& path, bool init) const {
  static const std::vector<std::string> keys = {"symbol", "address", "values", "doubles", "iota", "start", "step",
                                                "fill", "value", "random", "random_doubles", "seed", "min", "max"};
  for (auto it = e.begin(); it != e.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      const std::string hint = did_you_mean(it.key(), keys);
      fail(path + "." + it.key(), "an image key (values, doubles, iota, fill, random, random_doubles, ...)" +
                                      (hint.empty() ? "" : "; " + hint),
           "unknown key '" + it.key() + "'");
    }
  auto count = [&](const char* k) {
    if (!e[k].is_number_unsigned() || e[k].get<std::uint64_t>() > (std::uint64_t(1) << 27))
      fail(path + "." + k, "a word count up to 2^27", json_kind(e[k]));
    return e[k].get<std::uint64_t>();
  };
  auto num = [&](const char* k, std::int64_t def) -> std::int64_t {
    if (!e.contains(k)) return def;
    if (!e[k].is_number_integer()) fail(path + "." + k, "an integer", json_kind(e[k]));
    return e[k].get<std::int64_t>();
  };
  std::vector<std::uint64_t> w;
  if (e.contains("values")) {
    if (!e["values"].is_array()) fail(path + ".values", "an array of integers", json_kind(e["values"]));
    for (std::size_t i = 0; i < e["values"].size(); ++i) {
      const json& v = e["values"][i];
      if (!v.is_number_integer()) fail(index_path(path + ".values", i), "an integer", json_kind(v));
      w.push_back(v.is_number_unsigned() ? v.get<std::uint64_t>() : static_cast<std::uint64_t>(v.get<std::int64_t>()));
    }
  } else if (e.contains("doubles")) {
    if (!e["doubles"].is_array()) fail(path + ".doubles", "an array of numbers", json_kind(e["doubles"]));
    for (std::size_t i = 0; i < e["doubles"].size(); ++i) {
      const json& v = e["doubles"][i];
      if (!v.is_number()) fail(index_path(path + ".doubles", i), "a number", json_kind(v));
      const double d = v.get<double>();
      std::uint64_t x;
      std::memcpy(&x, &d, 8);
      w.push_back(x);
    }
  } else if (e.contains("iota")) {
    const std::uint64_t n = count("iota");
    const std::int64_t start = num("start", 0), step = num("step", 1);
    for (std::uint64_t i = 0; i < n; ++i) w.push_back(static_cast<std::uint64_t>(start + static_cast<std::int64_t>(i) * step));
  } else if (e.contains("fill")) {
    const std::uint64_t n = count("fill");
    w.assign(n, static_cast<std::uint64_t>(num("value", 0)));
  } else if (init && e.contains("random")) {
    const std::uint64_t n = count("random");
    const std::int64_t lo = num("min", 0), hi = num("max", 1000);
    if (hi < lo) fail(path + ".max", "at least min (" + std::to_string(lo) + ")", std::to_string(hi));
    std::mt19937_64 rng(static_cast<std::uint64_t>(num("seed", 1)));
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    for (std::uint64_t i = 0; i < n; ++i) w.push_back(static_cast<std::uint64_t>(lo + static_cast<std::int64_t>(rng() % span)));
  } else if (init && e.contains("random_doubles")) {
    const std::uint64_t n = count("random_doubles");
    std::mt19937_64 rng(static_cast<std::uint64_t>(num("seed", 1)));
    for (std::uint64_t i = 0; i < n; ++i) {
      const double d = double(rng() >> 11) / double(1ull << 53);
      std::uint64_t x;
      std::memcpy(&x, &d, 8);
      w.push_back(x);
    }
  } else {
    fail(path, init ? "one of values, doubles, iota, fill, random, random_doubles" : "one of values, doubles, iota, fill",
         "none of them");
  }
  return w;
}

void vector_workload::write_words(std::uint64_t addr, const std::vector<std::uint64_t>& w, const std::string& path) {
  const std::uint64_t size = mem_->parameters().size_bytes;
  if (addr > size || w.size() * 8 > size - addr)
    fail(path, "an image inside the memory (" + std::to_string(size) + " bytes)",
         std::to_string(w.size()) + " words at byte address " + std::to_string(addr));
  for (std::size_t i = 0; i < w.size(); ++i)
    mem_->poke(addr + 8 * i, reinterpret_cast<const unsigned char*>(&w[i]), 8);
}

void vector_workload::check(const platform&, run_result& r) const {
  std::vector<unsigned char> golden = image_;
  vec::interp_config cfg;
  cfg.max_vl = max_vl_;
  const vec::interp_result g = vec::interpret(prog_, golden, cfg);
  const std::string who = core_->name();
  if (!g.ok) {
    r.state = run_result::status::mismatch;
    r.message = who + ": the golden interpreter faulted where the timed run did not: " + g.fault;
    return;
  }
  if (g.instructions != core_->instructions()) {
    r.state = run_result::status::mismatch;
    r.message = who + ": executed " + std::to_string(core_->instructions()) + " instructions, the golden interpreter " +
                std::to_string(g.instructions);
    return;
  }
  r.checks.push_back(who + ": instruction count equals the golden interpreter's (" + std::to_string(g.instructions) + ")");
  std::vector<unsigned char> actual(golden.size());
  mem_->peek(0, actual.data(), actual.size());
  for (std::size_t a = 0; a < golden.size(); a += 8)
    if (std::memcmp(&golden[a], &actual[a], std::min<std::size_t>(8, golden.size() - a)) != 0) {
      std::uint64_t x = 0, y = 0;
      std::memcpy(&x, &golden[a], 8);
      std::memcpy(&y, &actual[a], 8);
      r.state = run_result::status::mismatch;
      r.message = std::string(mem_->name()) + ": word at byte address " + std::to_string(a) + " is " + std::to_string(y) +
                  ", the golden interpreter has " + std::to_string(x);
      return;
    }
  r.checks.push_back(std::string(mem_->name()) + ": final memory equals the golden interpreter's");
  for (const auto& x : expect_) {
    const std::uint64_t base = x["address"].get<std::uint64_t>();
    const auto words = x["words"].get<std::vector<std::uint64_t>>();
    for (std::size_t i = 0; i < words.size(); ++i) {
      std::uint64_t y = 0;
      mem_->peek(base + 8 * i, reinterpret_cast<unsigned char*>(&y), 8);
      if (y != words[i]) {
        r.state = run_result::status::mismatch;
        r.message = x["path"].get<std::string>() + ": word " + std::to_string(i) + " is " + std::to_string(y) +
                    ", expected " + std::to_string(words[i]);
        return;
      }
    }
    r.checks.push_back(x["path"].get<std::string>() + ": " + std::to_string(words.size()) + " words as expected");
  }
}

}  // namespace

std::unique_ptr<workload> load_workload(platform& p, const scenario_doc& sd, const json& spec) {
  return std::make_unique<vector_workload>(p, sd, spec);
}

}  // namespace flynn

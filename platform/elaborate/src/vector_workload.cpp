// The vector machine's workload: assembly program, memory images, golden interpreter check.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "flynn/platform/errors.h"
#include "flynn/platform/memory_image.h"
#include "flynn/platform/vector_asm.h"
#include "flynn/platform/vector_interp.h"
#include "flynn/platform/workload.h"
#include "flynn/vector/vector_program.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace flynn {

namespace {

class vector_workload final : public workload {
 public:
  vector_workload(module& core, const instance_lookup& modules, const scenario_doc& sd, const json& spec);
  void check(run_result& r) const override;

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& expected, const std::string& found) const {
    throw input_error(sd_.origin_of(path), path, expected, found);
  }
  memory_image image(const json& entry, const std::string& path, bool init) const;

  const scenario_doc& sd_;
  vector_program program_;
  const vec::program& prog_ = program_.prog;
  module& core_;
  backdoor_memory* mem_ = nullptr;
  std::vector<unsigned char> image_;  // memory at the start (golden model input)
  std::vector<std::pair<std::string, memory_image>> expect_;
};

std::string str(const json& j, const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; }

vector_workload::vector_workload(module& core, const instance_lookup& modules, const scenario_doc& sd, const json& spec)
    : sd_(sd), core_(core) {
  static const std::vector<std::string> keys = {"program", "core", "memory", "init", "expect"};
  for (auto it = spec.begin(); it != spec.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      const std::string hint = did_you_mean(it.key(), keys);
      fail("workload." + it.key(), "a workload key (program, core, memory, init, expect)" + (hint.empty() ? "" : "; " + hint),
           "unknown key " + excerpt(it.key()));
    }
  for (const char* k : {"program", "core", "memory"})
    if (str(spec, k).empty())
      fail(std::string("workload.") + k, "a string", spec.contains(k) ? json_kind(spec[k]) : "nothing (missing)");
  mem_ = &workload_memory(modules, sd, spec);

  // The program path is relative to the file that names it.
  const fs::path prog = workload_file(sd, "workload.program", str(spec, "program"));
  std::error_code exists_ec;
  if (!fs::exists(prog, exists_ec)) fail("workload.program", "an assembly file", "'" + prog.string() + "' (no such file)");
  program_.prog = vec::assemble_file(prog.string());

  for (const auto& b : prog_.data) write_image(*mem_, {b.address, b.words}, 8, "workload.program", sd_);
  if (spec.contains("init")) {
    if (!spec["init"].is_array()) fail("workload.init", "an array of memory images", json_kind(spec["init"]));
    for (std::size_t i = 0; i < spec["init"].size(); ++i) {
      const std::string path = index_path("workload.init", i);
      write_image(*mem_, image(spec["init"][i], path, true), 8, path, sd_);
    }
  }
  if (spec.contains("expect")) {
    if (!spec["expect"].is_array()) fail("workload.expect", "an array of expected memory contents", json_kind(spec["expect"]));
    for (std::size_t i = 0; i < spec["expect"].size(); ++i) {
      const std::string path = index_path("workload.expect", i);
      expect_.emplace_back(path, image(spec["expect"][i], path, false));
      check_image_fits(*mem_, expect_.back().second, 8, path, sd_);
    }
  }
  image_.resize(mem_->backdoor_bytes());
  mem_->peek(0, image_.data(), image_.size());
  core_.as_core()->load_program(program_);
}

memory_image vector_workload::image(const json& entry, const std::string& path, bool init) const {
  std::vector<std::string> names;
  for (const auto& [n, v] : prog_.symbols) names.push_back(n);
  return parse_image(entry, path, sd_, 8, mem_->backdoor_bytes(), init,
                     [this](const std::string& n, std::uint64_t& a) { return prog_.find_symbol(n, a); }, names);
}

void vector_workload::check(run_result& r) const {
  std::vector<unsigned char> golden = image_;
  vec::interp_config cfg;
  const core_limits limits = core_.as_core()->limits();
  cfg.max_vl = limits.max_vl;
  cfg.max_instructions = limits.max_instructions;
  const vec::interp_result g = vec::interpret(prog_, golden, cfg);
  const std::string who = core_.name();
  const std::uint64_t executed = core_.as_core()->counts().instructions;
  if (!g.ok) {
    r.state = run_result::status::mismatch;
    r.message = who + ": the golden interpreter faulted where the timed run did not: " + g.fault;
    return;
  }
  if (g.instructions != executed) {
    r.state = run_result::status::mismatch;
    r.message = who + ": executed " + std::to_string(executed) + " instructions, the golden interpreter " +
                std::to_string(g.instructions);
    return;
  }
  r.checks.push_back(who + ": instruction count equals the golden interpreter's (" + std::to_string(g.instructions) + ")");
  check_memory_results(*mem_, golden, 8, expect_, r);
}

}  // namespace

std::unique_ptr<workload> load_vector_workload(module& core, const instance_lookup& modules, const scenario_doc& sd,
                                               const json& spec) {
  return std::make_unique<vector_workload>(core, modules, sd, spec);
}

}  // namespace flynn

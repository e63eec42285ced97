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
  reject_unknown_keys(spec, keys, "workload.", "a workload key (program, core, memory, init, expect)", sd_);
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
  std::vector<std::string> names;
  for (const auto& [n, v] : prog_.symbols) names.push_back(n);
  workload_images images = load_workload_images(
      spec, *mem_, 8, sd_, [this](const std::string& n, std::uint64_t& a) { return prog_.find_symbol(n, a); }, names);
  image_ = std::move(images.start);
  expect_ = std::move(images.expect);
  core_.as_core()->load_program(program_);
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

// A platform built from a scenario: module instances under a top module named "top",
// their TLM sockets bound by name, run to completion, checked against golden models.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "flynn/common/module.h"
#include "flynn/common/registry.h"
#include "flynn/platform/run_result.h"
#include "flynn/platform/scenario.h"
#include "flynn/platform/workload.h"

namespace flynn {

class protocol_checker;

// The model memory a platform may take: what its modules allocate by their parameters, and
// the simulated memory contents they hold four times over (the memory's own, and up to three
// copies the golden checks make: the initial image, the golden model's memory and the
// contents read back). Checked before any module is built; see docs/security.md.
struct memory_budget {
  static constexpr std::uint64_t default_bytes = std::uint64_t(8) << 30;  // 8 GiB
  std::uint64_t bytes = default_bytes;
  std::string source = "the default; --memory-budget or $FLYNN_MEMORY_BUDGET sets it";  // for messages
  // The budget of `flynn run` and `flynn validate`: --memory-budget SIZE when given, else
  // $FLYNN_MEMORY_BUDGET, else 8 GiB. SIZE is bytes with an optional K, M, G or T (binary:
  // KiB, MiB, GiB, TiB). Throws input_error for a malformed size.
  static memory_budget from(const std::string& option);
};
std::string bytes_text(std::uint64_t bytes);  // "1.5 GiB", "12 KiB", "100 B"


class platform final : public instance_lookup {
 public:
  // Validates the scenario and elaborates it. Throws input_error on bad input; nothing is
  // simulated and nothing is written.
  // check_protocol: a base-protocol checker on every TLM link; a violation fails the run.
  // budget: model memory beyond it is bad input, found before anything is allocated.
  platform(const scenario_doc& sd, const module_registry& registry, bool check_protocol = false,
           const memory_budget& budget = {});
  ~platform() override;
  platform(const platform&) = delete;
  platform& operator=(const platform&) = delete;

  const scenario& spec() const { return spec_; }
  const nlohmann::json& resolved() const { return resolved_; }
  const std::vector<module*>& modules() const { return modules_; }
  module* find(const std::string& instance) const override;
  // Target module bound to an initiator socket ("gen.out"), or nullptr.
  module* target_of(const std::string& initiator_socket) const override;
  std::vector<std::string> core_instances() const override;

  void attach_trace(trace_sink& sink);
  // Whether a programmable block runs a program, and the instructions it executed.
  bool runs_program() const;
  std::uint64_t instructions() const;
  // Runs to completion (or max_cycles, 0: no limit), then checks functional results.
  // A scenario's workload runs on one core: throws input_error naming any other
  // programmable module left without a program (it would idle silently). A platform that
  // loads its other cores itself (embedding) does so before it runs and need not call this.
  void require_every_core_loaded() const;
  run_result run(std::uint64_t max_cycles);
  // The two halves of run(): simulation alone, and the functional checks of a finished run.
  run_result simulate(std::uint64_t max_cycles);
  void verify(run_result& r) const;
  void check_calibration(run_result& r) const;
  // Called between slices of simulated time (cycles so far) and once at the end (end = true);
  // with it set, simulate() runs in slices to report progress.
  void set_progress(std::function<void(std::uint64_t cycles, bool end)> f) { progress_ = std::move(f); }

 private:
  struct top_module;
  void bind_all();
  void check_memory_budget(const std::vector<param_footprint>& footprints, const memory_budget& budget) const;

  const scenario_doc& sd_;
  scenario spec_;
  nlohmann::json resolved_;
  std::unique_ptr<top_module> top_;
  std::vector<module*> modules_;
  std::vector<std::unique_ptr<protocol_checker>> checkers_;
  std::vector<std::pair<std::string, std::string>> links_;  // initiator socket -> target instance
  std::vector<link_type> links_types_;
  bool check_protocol_ = false;
  std::function<void(std::uint64_t, bool)> progress_;
  std::unique_ptr<workload> workload_;
};

}  // namespace flynn

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


class platform final : public instance_lookup {
 public:
  // Validates the scenario and elaborates it. Throws input_error on bad input; nothing is
  // simulated and nothing is written.
  // check_protocol: a base-protocol checker on every TLM link; a violation fails the run.
  platform(const scenario_doc& sd, const module_registry& registry, bool check_protocol = false);
  ~platform() override;
  platform(const platform&) = delete;
  platform& operator=(const platform&) = delete;

  const scenario& spec() const { return spec_; }
  const nlohmann::json& resolved() const { return resolved_; }
  const std::vector<module*>& modules() const { return modules_; }
  module* find(const std::string& instance) const override;
  std::string type_of(const std::string& instance) const override;
  // Target module bound to an initiator socket ("gen.out"), or nullptr.
  module* target_of(const std::string& initiator_socket) const override;

  void attach_trace(trace_sink& sink);
  // Whether a programmable block runs a program, and the instructions it executed.
  bool runs_program() const;
  std::uint64_t instructions() const;
  // Runs to completion (or max_cycles, 0: no limit), then checks functional results.
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

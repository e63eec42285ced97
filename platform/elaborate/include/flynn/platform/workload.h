// Workloads: the program a programmable block runs, the memory images it starts from and
// the checks of its result against the golden functional interpreter.
//
//   "workload": {
//     "program": "programs/average_vector.s",   // relative to the file that names it
//     "core": "cpu", "memory": "mem",            // instances that run it / hold its data
//     "init":   [{"symbol": "A", "iota": 50}, {"address": 4096, "values": [1, 2]}, ...],
//     "expect": [{"symbol": "C", "values": [...]}]
//   }
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "flynn/common/module.h"
#include "flynn/platform/memory_image.h"
#include "flynn/platform/run_result.h"
#include "flynn/platform/simt_interp.h"

namespace flynn {

struct scenario_doc;

// The instances a workload names (workload.core, workload.memory), as the platform built
// them: a workload asks for them by name and never sees the platform.
class instance_lookup {
 public:
  virtual ~instance_lookup() = default;
  virtual module* find(const std::string& instance) const = 0;        // nullptr: no such instance
  // The module bound behind an initiator socket ("cpu.vpu"), or nullptr.
  virtual module* target_of(const std::string& initiator_socket) const = 0;
  // The instances that are programmable cores (module::as_core), in scenario order.
  virtual std::vector<std::string> core_instances() const = 0;
};

class workload {
 public:
  virtual ~workload() = default;
  // After the run: compare the timed run's results with the golden model.
  virtual void check(run_result& r) const = 0;
};

// A kind of workload: the program kind it builds (a core runs it when the core declares
// that kind, programmable_core::program_kinds), the workload key that selects it among the
// kinds building the same program kind (nullptr: none; the first match in table order wins),
// and how to load it onto `core`. load_workload picks one.
using workload_loader = std::unique_ptr<workload> (*)(module& core, const instance_lookup& modules, const scenario_doc& sd,
                                                      const nlohmann::json& spec);
struct workload_kind {
  const char* name;          // "vector", "simt", "ptx"
  const char* program_kind;  // core_program::kind() of what it loads
  const char* selector;      // a key the workload must have, or nullptr
  workload_loader load;
};
// Every kind of workload, in the order load_workload tries them.
const std::vector<workload_kind>& workload_kinds();
std::unique_ptr<workload> load_vector_workload(module& core, const instance_lookup& modules, const scenario_doc& sd,
                                               const nlohmann::json& spec);
std::unique_ptr<workload> load_simt_workload(module& core, const instance_lookup& modules, const scenario_doc& sd,
                                             const nlohmann::json& spec);
// A SIMT core's workload given as nvcc-generated PTX ("ptx" in the workload).
std::unique_ptr<workload> load_ptx_workload(module& core, const instance_lookup& modules, const scenario_doc& sd,
                                            const nlohmann::json& spec);

// workload.memory: the memory instance a workload fills and checks (a module with backdoor
// access). Throws input_error naming the instance when there is none such.
backdoor_memory& workload_memory(const instance_lookup& modules, const scenario_doc& sd, const nlohmann::json& spec);

// The end of a SIMT core's run with its golden interpreter (`golden`: its name in messages):
// `interpret` runs on `global` (the initial global memory) with the core's limits; its fault,
// or thread instructions other than the core's, is a mismatch; then the final memory against
// the interpreter's and the expected images (check_memory_results). True when all held.
bool check_simt_run(const module& core, const backdoor_memory& mem, std::vector<unsigned char> global,
                    const std::vector<std::pair<std::string, memory_image>>& expect, const std::string& golden,
                    const std::function<simt::interp_result(std::vector<unsigned char>&, const simt::interp_config&)>& interpret,
                    run_result& r);

// A file named at `json_path`: relative to the scenario file it came from, or to the
// current folder when it came from --set.
std::string workload_file(const scenario_doc& sd, const std::string& json_path, const std::string& value);

// Assembles and loads the scenario's workload into the elaborated platform. Throws
// input_error for bad workload data (exit 2).
std::unique_ptr<workload> load_workload(const instance_lookup& modules, const scenario_doc& sd,
                                        const nlohmann::json& spec);

}  // namespace flynn

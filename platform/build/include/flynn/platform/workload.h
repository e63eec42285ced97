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

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace flynn {

class platform;
struct run_result;
struct scenario_doc;

class workload {
 public:
  virtual ~workload() = default;
  // After the run: compare the timed run's results with the golden model.
  virtual void check(const platform& p, run_result& r) const = 0;
};

// A file named at `json_path`: relative to the scenario file it came from, or to the
// current folder when it came from --set.
std::string workload_file(const scenario_doc& sd, const std::string& json_path, const std::string& value);

// Assembles and loads the scenario's workload into the elaborated platform. Throws
// input_error for bad workload data (exit 2).
std::unique_ptr<workload> load_workload(platform& p, const scenario_doc& sd,
                                        const nlohmann::json& spec);

}  // namespace flynn

// The outcome of a run: how it ended, the functional checks it passed, its length.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flynn {

struct run_result {
  enum class status { ok, fault, deadlock, cycle_limit, mismatch, hazard };
  status state = status::ok;
  std::string message;             // what went wrong (empty when ok)
  std::vector<std::string> checks;  // functional checks passed, for the record
  std::vector<std::string> notes;   // how results were obtained, where a user should know ("MODULE: ...")
  std::uint64_t cycles = 0;
  std::uint64_t sim_time_ps = 0;  // simulated time, exact (the kernel resolves picoseconds)
  // The same in ns: sim_time_ps / 1000, correctly rounded.
  double sim_time_ns() const { return double(sim_time_ps) / 1000.0; }
  // The simulated time in ns as exact decimal text ("569", "284.5").
  std::string sim_time_ns_text() const;
  bool failed() const { return state != status::ok; }
};
const char* to_string(run_result::status s);

}  // namespace flynn

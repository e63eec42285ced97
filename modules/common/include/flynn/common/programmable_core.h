// Programmable cores: the one interface through which a platform loads, runs and checks any
// core type (the vector machine's scalar unit, the SIMT core, a user's own). A workload
// builds a program of a kind the core declares, hands it to load_program, and after the run
// replays it on a golden interpreter under the core's limits and compares the counts.
//
// A new core type implements programmable_core, returns itself from module::as_core(), and
// declares the program kinds it runs; any workload kind that builds one of those kinds then
// runs on it with no change to the platform (docs/architecture.md, "Programmable cores").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace flynn {

// A program in the form a core loads it. kind() names the form: "vector" (the vector
// machine's assembled program, vector_program.h), "simt" (a SIMT kernel with its launch,
// simt_program.h; PTX lowers to it).
class core_program {
 public:
  virtual ~core_program() = default;
  virtual const char* kind() const = 0;
};

// What a golden interpreter needs of a core to replay its run under the same limits.
struct core_limits {
  std::uint64_t max_instructions = 0;  // the runaway guard, in the core's own instructions
  unsigned warp_size = 1;              // threads per instruction (1: a scalar core)
  unsigned max_vl = 0;                 // elements per vector register (0: no vector unit)
};

// What the core counted during the run, for the golden check to compare.
struct core_counts {
  std::uint64_t instructions = 0;         // instructions issued (warp instructions on a SIMT core)
  std::uint64_t thread_instructions = 0;  // per-thread instructions (a scalar core: instructions)
  std::uint64_t thread_digest = 0;        // the threads' counts as simt::thread_count_term sums (0: none)
};

class programmable_core {
 public:
  virtual ~programmable_core() = default;
  // The program kinds load_program takes.
  virtual std::vector<std::string> program_kinds() const = 0;
  // Loads a program before simulation starts. Throws std::invalid_argument when it cannot
  // run here (a kind the core does not run, a launch larger than the core).
  virtual void load_program(const core_program& p) = 0;
  virtual bool has_program() const = 0;
  virtual core_limits limits() const = 0;
  virtual core_counts counts() const = 0;
  // Cores that check a program's synchronisation (the SIMT core's hazard reports): turn the
  // checking on or off before simulation starts, and what it found ("" when nothing, else a
  // summary line and one line per reported hazard).
  virtual void check_hazards(bool on) { (void)on; }
  virtual std::string hazard_report() const { return {}; }
};

// A memory whose contents a workload writes before the run and reads after it, outside
// simulated time (a backdoor: no transaction, no timing).
class backdoor_memory {
 public:
  virtual ~backdoor_memory() = default;
  virtual std::string backdoor_name() const = 0;     // the instance, in messages
  virtual std::uint64_t backdoor_bytes() const = 0;  // addresses 0 .. backdoor_bytes() - 1
  virtual void peek(std::uint64_t addr, unsigned char* dst, std::size_t len) const = 0;
  virtual void poke(std::uint64_t addr, const unsigned char* src, std::size_t len) = 0;
};

}  // namespace flynn

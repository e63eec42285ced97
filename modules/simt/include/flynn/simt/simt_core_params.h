// The SIMT core's parameters (simt_core_params), its divergence policies, and how many
// blocks of a launch it holds at once (resident_blocks).
#pragma once

#include <cstdint>
#include <vector>

#include "flynn/common/params.h"
#include "flynn/simt/launch.h"
#include "flynn/simt/scheduler.h"

namespace flynn {

// The launch the core runs (the same description the golden interpreter takes).
using simt_launch = simt::launch;

// Branch divergence handling: per-warp reconvergence stacks alone, or with dynamic warp
// formation (threads of other warps at the same PC join an issue when their lanes are free).
enum class divergence_policy { stack, dwf };

// The divergence_policy values with their names (the `divergence` parameter) and descriptions.
inline constexpr named_choice<divergence_policy> divergence_policies[] = {
    {divergence_policy::stack, "stack", "reconvergence stacks"},
    {divergence_policy::dwf, "dwf", "plus dynamic warp formation"},
};

struct simt_core_params : clocked_params {
  unsigned warp_size = 32;
  unsigned sub_partitions = 1;    // schedulers, each with its warps, lanes and register-file banks
  unsigned lanes = 8;             // per sub-partition
  unsigned sfu_lanes = 0;         // 0: sfu instructions use the lanes
  unsigned lsu_lanes = 0;         // 0: memory instructions use the lanes
  unsigned max_warps = 32;        // warp slots
  unsigned max_threads = 1024;    // thread contexts
  std::uint64_t register_file_bytes = 65536;
  std::uint64_t shared_memory_bytes = 16384;
  warp_policy scheduler = warp_policy::lrr;
  divergence_policy divergence = divergence_policy::stack;
  unsigned active_warps = 8;      // two-level: size of the active set
  unsigned inflight = 1;          // instructions per warp in the pipeline
  unsigned lat_alu = 4, lat_mul = 4, lat_sfu = 16, lat_branch = 4;
  unsigned lat_lsu = 4;           // address generation and write-back around a memory access
  unsigned segment_bytes = 128;   // global coalescing segment
  unsigned operand_banks = 0;     // register-file banks of the operand collector (0: no conflicts)
  unsigned operand_bank_width = 1;  // registers a bank reads per cycle
  unsigned quantum = 1000;
  std::uint64_t max_instructions = 1000000000;  // runaway guard (warp instructions)

  void visit(param_visitor& v);
  std::vector<param_issue> check() const;
  // What it allocates by these parameters (see param_footprint).
  param_footprint footprint() const;
};

// How many blocks of the launch are resident on the core at once, limited by its warp slots,
// thread contexts, register file (registers_per_thread x 4 B per thread) and shared memory.
// Throws std::invalid_argument when not even one block fits.
unsigned resident_blocks(const simt_core_params& p, const simt_launch& l, unsigned registers_per_thread);

}  // namespace flynn

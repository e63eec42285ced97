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
  property<unsigned> warp_size{this, {"warp_size", "threads", "threads per warp"}, 32, 1, 32};
  property<unsigned> sub_partitions{this, {"sub_partitions", "",
      "processing blocks, each with its own warp scheduler issuing one warp instruction a cycle "
      "from its warps (warp slot s on sub-partition s mod sub_partitions), its own lanes and its "
      "own register-file banks; 1: one scheduler for the whole core"}, 1, 1, 8};
  property<unsigned> lanes{this, {"lanes", "",
      "SIMD lanes (per sub-partition); a warp instruction occupies them warp_size / lanes cycles"}, 8, 1, 32};
  property<unsigned> sfu_lanes{this, {"sfu_lanes", "",
      "special-function lanes (per sub-partition): an sfu instruction (fdiv, fsqrt) occupies "
      "them warp_size / sfu_lanes cycles while others issue; 0: sfu instructions use the lanes"}, 0, 0, 32};
  property<unsigned> lsu_lanes{this, {"lsu_lanes", "",
      "load/store dispatch lanes (per sub-partition): a memory instruction occupies them "
      "warp_size / lsu_lanes cycles while others issue; 0: memory instructions use the lanes"}, 0, 0, 32};
  property<unsigned> max_warps{this, {"max_warps", "warps",
      "warp slots (resident warps)"}, 32, 1, 64};
  property<unsigned> max_threads{this, {"max_threads", "threads",
      "thread contexts"}, 1024, 1, 2048};
  property<std::uint64_t> register_file_bytes{this, {"register_file_bytes", "B",
      "register file: registers used x threads x 4 B of resident blocks"}, 65536, 4, std::uint64_t(1) << 24};
  property<std::uint64_t> shared_memory_bytes{this, {"shared_memory_bytes", "B",
      "shared memory divided among resident blocks"}, 16384, 0, std::uint64_t(1) << 24};
  property<warp_policy> scheduler{this, {"scheduler", "",
      "warp scheduler"}, warp_policy::lrr, warp_policies};
  property<unsigned> active_warps{this, {"active_warps", "warps",
      "two_level: size of the active set"}, 8, 1, 64};
  property<divergence_policy> divergence{this, {"divergence", "",
      "branch divergence"}, divergence_policy::stack, divergence_policies};
  property<unsigned> inflight{this, {"inflight", "instructions",
      "instructions per warp in the pipeline (a scoreboard tracks registers)"}, 1, 1, 16};
  property<unsigned> lat_alu{this, {"lat_alu", "cycles",
      "integer and fp32 pipeline depth"}, 4, 1, 1000};
  property<unsigned> lat_mul{this, {"lat_mul", "cycles",
      "multiply, mad, div, rem pipeline depth"}, 4, 1, 1000};
  property<unsigned> lat_sfu{this, {"lat_sfu", "cycles",
      "special-function unit (fdiv, fsqrt)"}, 16, 1, 1000};
  property<unsigned> lat_branch{this, {"lat_branch", "cycles",
      "branch, barrier and exit"}, 4, 1, 1000};
  property<unsigned> lat_lsu{this, {"lat_lsu", "cycles",
      "load/store unit: address generation, and write-back after the data"}, 4, 0, 1000};
  property<unsigned> segment_bytes{this, {"segment_bytes", "B",
      "global-memory coalescing segment (power of two)"}, 128, 4, 4096};
  property<unsigned> operand_banks{this, {"operand_banks", "banks",
      "register-file banks the operand collector reads an instruction's source registers from, "
      "one register (every lane's) per bank per cycle, register r of warp slot s in bank (r + s) "
      "mod banks; 0: sources are read at issue without bank conflicts. A sub-partition whose "
      "register file is bound (rfK) reads and writes through it instead"}, 0, 0, 32};
  property<unsigned> operand_bank_width{this, {"operand_bank_width", "registers",
      "registers a register-file bank reads per cycle (its width in 32-bit registers)"}, 1, 1, 4};
  property<unsigned> quantum{this, {"quantum", "cycles",
      "temporal decoupling: cycles the core may run ahead of simulated time (less while memory "
      "accesses or asynchronous copies are in flight)"}, 1000, 1, 1u << 30};
  property<std::uint64_t> max_instructions{this, {"max_instructions", "instructions",
      "runaway guard: more warp instructions than this is a fault"}, 1000000000, 1, std::uint64_t(1) << 40};

  std::vector<param_issue> check() const;
  // What it allocates by these parameters (see param_footprint).
  param_footprint footprint() const;
};

// How many blocks of the launch are resident on the core at once, limited by its warp slots,
// thread contexts, register file (registers_per_thread x 4 B per thread) and shared memory.
// Throws std::invalid_argument when not even one block fits.
unsigned resident_blocks(const simt_core_params& p, const simt_launch& l, unsigned registers_per_thread);

}  // namespace flynn

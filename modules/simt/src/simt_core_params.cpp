// The SIMT core's parameters: their names, units, ranges and checks, and what they allocate.
#include "flynn/simt/simt_core.h"

#include <string>

namespace flynn {

void simt_core_params::visit(param_visitor& v) {
  param(v, {"warp_size", "threads", "threads per warp"}, warp_size, 1, 32);
  param(v, {"sub_partitions", "",
            "processing blocks, each with its own warp scheduler issuing one warp instruction a cycle from its "
            "warps (warp slot s on sub-partition s mod sub_partitions), its own lanes and its own register-file "
            "banks; 1: one scheduler for the whole core"},
        sub_partitions, 1, 8);
  param(v, {"lanes", "", "SIMD lanes (per sub-partition); a warp instruction occupies them warp_size / lanes cycles"},
        lanes, 1, 32);
  param(v, {"sfu_lanes", "",
            "special-function lanes (per sub-partition): an sfu instruction (fdiv, fsqrt) occupies them warp_size / "
            "sfu_lanes cycles while others issue; 0: sfu instructions use the lanes"},
        sfu_lanes, 0, 32);
  param(v, {"lsu_lanes", "",
            "load/store dispatch lanes (per sub-partition): a memory instruction occupies them warp_size / "
            "lsu_lanes cycles while others issue; 0: memory instructions use the lanes"},
        lsu_lanes, 0, 32);
  param(v, {"max_warps", "warps", "warp slots (resident warps)"}, max_warps, 1, 64);
  param(v, {"max_threads", "threads", "thread contexts"}, max_threads, 1, 2048);
  param(v, {"register_file_bytes", "B", "register file: registers used x threads x 4 B of resident blocks"},
        register_file_bytes, 4, std::uint64_t(1) << 24);
  param(v, {"shared_memory_bytes", "B", "shared memory divided among resident blocks"}, shared_memory_bytes, 0,
        std::uint64_t(1) << 24);
  param_enum(v, {"scheduler", "", "warp scheduler"}, scheduler, warp_policies);
  param(v, {"active_warps", "warps", "two_level: size of the active set"}, active_warps, 1, 64);
  param_enum(v, {"divergence", "", "branch divergence"}, divergence, divergence_policies);
  param(v, {"inflight", "instructions", "instructions per warp in the pipeline (a scoreboard tracks registers)"},
        inflight, 1, 16);
  param(v, {"lat_alu", "cycles", "integer and fp32 pipeline depth"}, lat_alu, 1, 1000);
  param(v, {"lat_mul", "cycles", "multiply, mad, div, rem pipeline depth"}, lat_mul, 1, 1000);
  param(v, {"lat_sfu", "cycles", "special-function unit (fdiv, fsqrt)"}, lat_sfu, 1, 1000);
  param(v, {"lat_branch", "cycles", "branch, barrier and exit"}, lat_branch, 1, 1000);
  param(v, {"lat_lsu", "cycles", "load/store unit: address generation, and write-back after the data"}, lat_lsu, 0, 1000);
  param(v, {"segment_bytes", "B", "global-memory coalescing segment (power of two)"}, segment_bytes, 4, 4096);
  param(v, {"operand_banks", "banks",
            "register-file banks the operand collector reads an instruction's source registers from, one register "
            "(every lane's) per bank per cycle, register r of warp slot s in bank (r + s) mod banks; 0: sources are "
            "read at issue without bank conflicts. A sub-partition whose register file is bound (rfK) reads and writes "
            "through it instead"},
        operand_banks, 0, 32);
  param(v, {"operand_bank_width", "registers", "registers a register-file bank reads per cycle (its width in 32-bit registers)"},
        operand_bank_width, 1, 4);
  param(v, {"quantum", "cycles", "temporal decoupling: cycles the core may run ahead of simulated time (less while memory accesses or asynchronous copies are in flight)"}, quantum, 1, 1u << 30);
  param(v, {"max_instructions", "instructions", "runaway guard: more warp instructions than this is a fault"},
        max_instructions, 1, std::uint64_t(1) << 40);
  visit_clock(v);
}

param_footprint simt_core_params::footprint() const {
  // Per warp slot its state and up to 256 registers of warp_size lanes.
  return {std::uint64_t(max_warps) * (4096 + 256 * 4 * std::uint64_t(warp_size)), 0};
}

std::vector<param_issue> simt_core_params::check() const {
  std::vector<param_issue> r;
  if (lanes > warp_size)
    r.push_back({"lanes", "at most warp_size (" + std::to_string(warp_size) + ")", std::to_string(lanes)});
  if (sfu_lanes > warp_size)
    r.push_back({"sfu_lanes", "at most warp_size (" + std::to_string(warp_size) + ")", std::to_string(sfu_lanes)});
  if (lsu_lanes > warp_size)
    r.push_back({"lsu_lanes", "at most warp_size (" + std::to_string(warp_size) + ")", std::to_string(lsu_lanes)});
  if (sub_partitions > max_warps)
    r.push_back({"sub_partitions", "at most max_warps (" + std::to_string(max_warps) + ")",
                 std::to_string(sub_partitions)});
  if (divergence == divergence_policy::dwf && sub_partitions > 1)
    r.push_back({"sub_partitions", "1 with divergence dwf (dwf forms warps across the whole core)",
                 std::to_string(sub_partitions)});
  if (segment_bytes & (segment_bytes - 1))
    r.push_back({"segment_bytes", "a power of two", std::to_string(segment_bytes)});
  if (max_threads < warp_size)
    r.push_back({"max_threads", "at least warp_size (" + std::to_string(warp_size) + ")", std::to_string(max_threads)});
  return r;
}

}  // namespace flynn

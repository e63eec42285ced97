#include "flynn/common/registry.h"
#include "flynn/gmma/gmma_unit.h"
#include "flynn/gmma/mma_engine.h"
#include "flynn/memory/banked_memory.h"
#include "flynn/memory/cache.h"
#include "flynn/memory/crossbar.h"
#include "flynn/memory/dram.h"
#include "flynn/regfile/register_file.h"
#include "flynn/simt/simt_core.h"
#include "flynn/tensor/tensor_core.h"
#include "flynn/tma/tma_loader.h"
#include "flynn/traffic/traffic_generator.h"
#include "flynn/vector/scalar_unit.h"
#include "flynn/vector/vector_unit.h"

namespace flynn {

void register_builtin_modules(module_registry& r) {
  // The debug flags several families report; each family adds its own with its types.
  for (const debug_flag* f : {&debug_exec, &debug_mem, &debug_tlm, &debug_sched, &debug_barrier}) r.add_debug_flag(*f);
  r.add<banked_memory>("banked_memory",
                       "banked memory: N banks behind shared/load/store ports (TLM-2.0 target)");
  r.add<cache>("cache",
               "cache level (L1, L2 slice): sectored set-associative tags, LRU, MSHRs, write-back or write-through, "
               "bounded queue; serves hits and filled misses to the data array behind the hierarchy");
  r.add<crossbar>("crossbar",
                  "crossbar to the slices of a sliced cache: address hashing, link bandwidth each way, latency, "
                  "near/far partitions");
  r.add<dram>("dram",
              "DRAM timing stage (HBM-class): pseudo-channels, bank groups, banks, rows, refresh, bounded queues; "
              "forwards each request to the data array behind it when its data moves");
  r.add<traffic_generator>(
      "traffic_generator",
      "memory traffic initiator: linear, indexed, random and multi-lane request streams");
  r.add<scalar_unit>("scalar_unit",
                     "in-order scalar unit of a Cray-style machine; runs the program and dispatches vector instructions");
  r.add<vector_unit>("vector_unit",
                     "vector unit: vector registers, VL/VS/VM, pipelined lanes, chaining, memory ports");
  r.add_link<vec::vector_dispatch_if>("vector_dispatch");
  r.add<mma_engine>("mma_engine",
                    "warpgroup MMA operand delivery with the sharing scope as a parameter (8-thread group, warp, warpgroup)");
  r.add<simt_core>("simt_core",
                   "SIMT core: warps, warp scheduler, SIMD lanes, divergence stacks, load/store unit, async units");
  r.add<register_file>("register_file",
                       "sub-partition register file: banks, operand collectors and a result queue (TLM target port)");
  r.add_link<register_file_if>("register_file");
  r.add<tensor_core>("tensor_core", "tensor core: D = A x B + C datapath in steps, fed over TLM (target socket port)");
  r.add<gmma_unit>("gmma_unit",
                   "GMMA state machine: runs a warpgroup's wgmma (start barrier, A per warp, B multicast, write-back)");
  r.add_link<gmma_if>("gmma");
  r.add_debug_flag(debug_gmma);
  r.add<tma_loader>("tma_loader", "TMA-style bulk tensor loader: global to shared copies driven by tensor descriptors");
  r.add_link<tma_if>("tma");
  r.add_debug_flag(debug_tma);
}

}  // namespace flynn

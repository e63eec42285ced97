// The SIMT core's stall reports: why nothing can issue any more (a deadlock), and where the
// resident warps are when a run stops. Plain functions over the warp and block state.
#pragma once

#include <string>
#include <vector>

#include "core_state.h"
#include "flynn/gmma/wgmma.h"

namespace flynn::simt {

// Warps wait at bar.sync for threads of their block that have exited.
std::string barrier_deadlock(const kernel& k, const std::vector<block_slot>& blocks, const warp_slots& warps);

// Nothing can issue and nothing is in flight: the warps waiting on mbarrier phases or wgmma
// groups that never complete (with the GMMA unit's start barrier, if bound), else the
// barrier deadlock.
std::string blocked_report(const kernel& k, const std::vector<block_slot>& blocks, const warp_slots& warps,
                           unsigned warp_size, const gmma_if* gmma);

// "; resident: block B warp W at PC P (line L: text) [at a barrier], ..." for the first
// four live warps, and how many more there are ("" when none).
std::string resident_warps(const kernel& k, const std::vector<block_slot>& blocks, const warp_slots& warps);

}  // namespace flynn::simt

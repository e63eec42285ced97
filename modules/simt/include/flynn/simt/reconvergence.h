// Reconvergence points of a SIMT kernel: where the threads of a divergent branch meet again.
#pragma once

#include <cstdint>
#include <vector>

#include "flynn/simt/isa.h"

namespace flynn::simt {

// The immediate post-dominator of every instruction on the kernel's control-flow graph
// (a branch goes to its target, and on to the next instruction when guarded; exit leaves
// the kernel, and goes on when guarded). The kernel's exit is code.size(). A divergent
// branch at pc pushes both paths onto the warp's stack with result[pc] as their
// reconvergence PC.
std::vector<std::uint32_t> immediate_post_dominators(const kernel& k);

}  // namespace flynn::simt

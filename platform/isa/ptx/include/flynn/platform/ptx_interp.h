// The golden functional interpreter of PTX kernels: runs the decoded PTX (flynn/platform/
// ptx.h) thread by thread on the kernel's own virtual registers, independently of the
// lowering to the SIMT ISA and of the timed core, which are checked against it.
#pragma once

#include <vector>

#include "flynn/platform/ptx.h"
#include "flynn/platform/simt_interp.h"
#include "flynn/simt/launch.h"

namespace flynn::ptx {

// Runs every thread of every block to completion, as simt::interpret does for the SIMT ISA:
// blocks one after the other, each with zeroed shared memory of l.shared_bytes; in a block
// each thread runs until bar.sync or its end, and bar.sync releases when every thread of the
// block waits at it. The parameters are l.params as little-endian bytes. Every access is
// naturally aligned and inside its space, else the run stops with a fault naming the PTX line.
simt::interp_result interpret(const module& m, const kernel& k, const simt::launch& l,
                              std::vector<unsigned char>& global, const simt::interp_config& c);

}  // namespace flynn::ptx

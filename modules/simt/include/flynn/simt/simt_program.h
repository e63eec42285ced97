// The SIMT core's program as a core loads it (program kind "simt"): a kernel on the SIMT
// ISA with its launch. A SIMT assembly workload builds one; a PTX workload lowers to one.
#pragma once

#include "flynn/common/programmable_core.h"
#include "flynn/simt/isa.h"
#include "flynn/simt/launch.h"

namespace flynn {

struct simt_program final : core_program {
  simt::kernel kernel;
  simt::launch launch;
  const char* kind() const override { return "simt"; }
};

}  // namespace flynn

// The vector machine's program as a core loads it (program kind "vector"): the assembled
// instructions, initial data and symbols.
#pragma once

#include "flynn/common/programmable_core.h"
#include "flynn/vector/isa.h"

namespace flynn {

struct vector_program final : core_program {
  vec::program prog;
  const char* kind() const override { return "vector"; }
};

}  // namespace flynn

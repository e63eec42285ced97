#include "flynn/tma/swizzle.h"

namespace flynn {

const char* to_string(swizzle_mode m) {
  const auto* c = choice_for(swizzle_modes, m);
  return c ? c->name : "none";
}

}  // namespace flynn

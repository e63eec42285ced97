#include "flynn/tma/swizzle.h"

namespace flynn {

const char* to_string(swizzle_mode m) {
  switch (m) {
    case swizzle_mode::b32: return "32B";
    case swizzle_mode::b64: return "64B";
    case swizzle_mode::b128: return "128B";
    default: return "none";
  }
}

}  // namespace flynn

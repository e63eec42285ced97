#include "flynn/common/registry.h"
#include "flynn/memory/banked_memory.h"
#include "flynn/traffic/traffic_generator.h"

namespace flynn {

void register_builtin_modules(module_registry& r) {
  r.add<banked_memory>("banked_memory",
                       "banked memory: N banks behind shared/load/store ports (TLM-2.0 target)");
  r.add<traffic_generator>(
      "traffic_generator",
      "memory traffic initiator: linear, indexed, random and multi-lane request streams");
}

}  // namespace flynn

#include "flynn/platform/checks.h"

#include <algorithm>
#include <map>

#include "flynn/common/format.h"
#include "flynn/common/golden.h"
#include "flynn/common/module.h"
#include "flynn/platform/run_result.h"
#include "flynn/platform/workload.h"

namespace flynn {

namespace {

void mismatch(run_result& r, std::string message) {
  r.state = run_result::status::mismatch;
  r.message = std::move(message);
}

// Initiators whose traffic a golden model replays, against the memories they drive: every
// initiator's requests are replayed in instance-name order over the memory's initial image,
// then the memory's final contents are compared with the replay's.
void check_traffic(const std::vector<module*>& modules, const instance_lookup& lookup, run_result& r) {
  struct group {
    const golden_memory* memory = nullptr;
    std::vector<std::pair<std::string, const golden_traffic*>> initiators;
  };
  // Keyed by name: the order of the checks does not depend on where objects live.
  std::map<std::string, group> by_memory;
  for (const module* m : modules)
    if (const auto* g = dynamic_cast<const golden_traffic*>(m)) {
      const module* target = lookup.target_of(std::string(m->basename()) + "." + g->golden_socket());
      if (const auto* mem = dynamic_cast<const golden_memory*>(target)) {
        group& e = by_memory[target->name()];
        e.memory = mem;
        e.initiators.emplace_back(m->name(), g);
      }
    }
  for (auto& [name, e] : by_memory) {
    std::vector<unsigned char> golden, actual;
    e.memory->golden_initial_image(golden);
    std::sort(e.initiators.begin(), e.initiators.end());
    for (const auto& [who, g] : e.initiators) {
      if (!g->golden_replay(golden)) return mismatch(r, who + ": data read differs from the golden model");
      r.checks.push_back(who + ": read data equals the golden model");
    }
    e.memory->golden_final_image(actual);
    for (std::size_t a = 0; a < golden.size(); ++a)
      if (a >= actual.size() || golden[a] != actual[a])
        return mismatch(r, name + ": contents differ from the golden model at byte " + hex(a));
    r.checks.push_back(name + ": final contents equal the golden model");
  }
}

// Modules that check their own result against a reference (an MMA datapath's D).
void check_self(const std::vector<module*>& modules, run_result& r) {
  for (const module* m : modules)
    if (const auto* c = dynamic_cast<const golden_self_check*>(m)) {
      std::string passed;
      std::string failure = c->check_golden(passed);
      if (!failure.empty()) return mismatch(r, std::move(failure));
      r.checks.push_back(passed);
    }
}

}  // namespace

void run_functional_checks(const std::vector<module*>& modules, const instance_lookup& lookup, run_result& r) {
  check_traffic(modules, lookup, r);
  if (!r.failed()) check_self(modules, r);
}

}  // namespace flynn

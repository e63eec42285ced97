#include "flynn/platform/checks.h"

#include <map>

#include "flynn/common/format.h"
#include "flynn/gmma/mma_engine.h"
#include "flynn/memory/banked_memory.h"
#include "flynn/platform/platform.h"
#include "flynn/traffic/traffic_generator.h"

namespace flynn {

namespace {

// Traffic generators against the memories they drive: the golden model replays every
// generator's requests in instance-name order over the memory's initial image.
void check_traffic(const platform& p, run_result& r) {
  // Keyed by name: the order of the checks does not depend on where objects live.
  std::map<std::string, std::pair<banked_memory*, std::vector<traffic_generator*>>> by_memory;
  for (auto* m : p.modules())
    if (auto* g = dynamic_cast<traffic_generator*>(m))
      if (auto* mem = dynamic_cast<banked_memory*>(p.target_of(std::string(g->basename()) + ".out"))) {
        by_memory[mem->name()].first = mem;
        by_memory[mem->name()].second.push_back(g);
      }
  for (auto& [name, entry] : by_memory) {
    auto& [mem, gens] = entry;
    std::vector<unsigned char> golden;
    banked_memory::initial_image(mem->parameters(), golden);
    for (auto* g : gens) {
      const std::uint64_t expect = traffic_golden_replay(g->parameters(), golden);
      if (expect != g->read_checksum()) {
        r.state = run_result::status::mismatch;
        r.message = std::string(g->name()) + ": data read differs from the golden model";
        return;
      }
      r.checks.push_back(std::string(g->name()) + ": read data equals the golden model");
    }
    std::vector<unsigned char> actual(golden.size());
    mem->peek(0, actual.data(), actual.size());
    for (std::size_t a = 0; a < golden.size(); ++a)
      if (golden[a] != actual[a]) {
        r.state = run_result::status::mismatch;
        r.message = std::string(mem->name()) + ": contents differ from the golden model at byte " + hex(a);
        return;
      }
    r.checks.push_back(std::string(mem->name()) + ": final contents equal the golden model");
  }
}

}  // namespace

// MMA engines: the datapath's D against the reference GEMM, bit for bit.
void check_mma(const platform& p, run_result& r) {
  for (auto* m : p.modules())
    if (auto* e = dynamic_cast<mma_engine*>(m)) {
      if (!e->matches_reference()) {
        r.state = run_result::status::mismatch;
        r.message = std::string(e->name()) + ": D differs from the reference GEMM";
        return;
      }
      r.checks.push_back(std::string(e->name()) + ": D equals the reference GEMM bit for bit");
    }
}

void run_functional_checks(const platform& p, run_result& r) {
  check_traffic(p, r);
  if (!r.failed()) check_mma(p, r);
}

}  // namespace flynn

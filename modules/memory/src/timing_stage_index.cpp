// The timing stage's index of in-flight requests by payload: open addressing with linear
// probing (a lookup per phase call, an insert and an erase per request).
#include "flynn/memory/timing_stage.h"

namespace flynn {

void timing_stage::payload_index::insert(const tlm::tlm_generic_payload* gp, request* r) {
  if (2 * (used_ + 1) > slots_.size()) grow();
  std::size_t i = home(gp);
  const std::size_t mask = slots_.size() - 1;
  while (slots_[i].gp && slots_[i].gp != gp) i = (i + 1) & mask;
  if (!slots_[i].gp) ++used_;
  slots_[i] = {gp, r};
}

timing_stage::request* timing_stage::payload_index::find(const tlm::tlm_generic_payload* gp) const {
  if (slots_.empty()) return nullptr;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = home(gp); slots_[i].gp; i = (i + 1) & mask)
    if (slots_[i].gp == gp) return slots_[i].r;
  return nullptr;
}

// Backward-shift deletion: the entries after the hole that would no longer be reachable
// from their home slot move into it, so no tombstones accumulate.
void timing_stage::payload_index::erase(const tlm::tlm_generic_payload* gp) {
  if (slots_.empty()) return;
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = home(gp);
  while (slots_[i].gp != gp) {
    if (!slots_[i].gp) return;
    i = (i + 1) & mask;
  }
  for (std::size_t j = (i + 1) & mask; slots_[j].gp; j = (j + 1) & mask) {
    const std::size_t h = home(slots_[j].gp);
    // j's entry may fill the hole at i unless its home lies cyclically in (i, j].
    if (((j - h) & mask) >= ((j - i) & mask)) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = slot{};
  --used_;
}

void timing_stage::payload_index::grow() {
  std::vector<slot> old(slots_.empty() ? 32 : 2 * slots_.size());
  old.swap(slots_);
  used_ = 0;
  for (const slot& s : old)
    if (s.gp) insert(s.gp, s.r);
}

}  // namespace flynn

#include "flynn/simt/scheduler.h"

#include <algorithm>

namespace flynn {

int lrr_scheduler::pick(const std::vector<warp_view>& slots) {
  const int n = static_cast<int>(slots.size());
  for (int k = 1; k <= n; ++k) {
    const int s = (last_ + k + n) % n;
    if (slots[static_cast<std::size_t>(s)].ready) return last_ = s;
  }
  return -1;
}

int gto_scheduler::pick(const std::vector<warp_view>& slots) {
  if (last_ >= 0 && slots[static_cast<std::size_t>(last_)].ready) return last_;
  int best = -1;
  for (std::size_t s = 0; s < slots.size(); ++s)
    if (slots[s].ready && (best < 0 || slots[s].age < slots[static_cast<std::size_t>(best)].age))
      best = static_cast<int>(s);
  if (best >= 0) last_ = best;
  return best;
}

void two_level_scheduler::refill(const std::vector<warp_view>& slots) {
  // Live warps not yet known join the pending queue in slot order.
  for (std::size_t s = 0; s < slots.size(); ++s) {
    const int i = static_cast<int>(s);
    const bool known = std::find(set_.begin(), set_.end(), i) != set_.end() ||
                       std::find(pending_.begin(), pending_.end(), i) != pending_.end();
    if (slots[s].present && !known) pending_.push_back(i);
  }
  auto dead = [&](int i) { return !slots[static_cast<std::size_t>(i)].present; };
  set_.erase(std::remove_if(set_.begin(), set_.end(), dead), set_.end());
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(), dead), pending_.end());
  // Ready pending warps fill the active set, oldest in the queue first.
  for (auto it = pending_.begin(); it != pending_.end() && set_.size() < active_;) {
    if (slots[static_cast<std::size_t>(*it)].ready) {
      set_.push_back(*it);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
}

int two_level_scheduler::pick(const std::vector<warp_view>& slots) {
  refill(slots);
  if (set_.empty()) return -1;
  // Round-robin within the active set, starting after the last issued warp.
  std::size_t start = 0;
  for (std::size_t k = 0; k < set_.size(); ++k)
    if (set_[k] == last_) start = k + 1;
  for (std::size_t k = 0; k < set_.size(); ++k) {
    const int s = set_[(start + k) % set_.size()];
    if (slots[static_cast<std::size_t>(s)].ready) return last_ = s;
  }
  return -1;
}

void two_level_scheduler::long_latency(int slot) {
  auto it = std::find(set_.begin(), set_.end(), slot);
  if (it == set_.end()) return;
  set_.erase(it);
  pending_.push_back(slot);
}

void two_level_scheduler::retire(int slot) {
  set_.erase(std::remove(set_.begin(), set_.end(), slot), set_.end());
  pending_.erase(std::remove(pending_.begin(), pending_.end(), slot), pending_.end());
}

std::unique_ptr<warp_scheduler> make_scheduler(warp_policy p, unsigned active) {
  switch (p) {
    case warp_policy::gto: return std::make_unique<gto_scheduler>();
    case warp_policy::two_level: return std::make_unique<two_level_scheduler>(active);
    case warp_policy::lrr:
    default: return std::make_unique<lrr_scheduler>();
  }
}

}  // namespace flynn

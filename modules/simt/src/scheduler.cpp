#include "flynn/simt/scheduler.h"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

namespace flynn {

int lrr_scheduler::pick(const std::vector<warp_view>& slots, std::uint64_t now) {
  const int n = static_cast<int>(slots.size());
  const int first = static_cast<int>(first_), stride = static_cast<int>(stride_);
  if (first >= n) return -1;
  const int served = (n - first + stride - 1) / stride;
  int s = last_ < 0 || last_ + stride >= n ? first : last_ + stride;  // the served slot after the last
  for (int k = 1; k <= served; ++k) {
    if (slots[static_cast<std::size_t>(s)].ready(now)) return last_ = s;
    if ((s += stride) >= n) s = first;
  }
  return -1;
}

int gto_scheduler::pick(const std::vector<warp_view>& slots, std::uint64_t now) {
  if (last_ >= 0 && slots[static_cast<std::size_t>(last_)].ready(now)) return last_;
  int best = -1;
  for (std::size_t s = first_; s < slots.size(); s += stride_)
    if (slots[s].ready(now) && (best < 0 || slots[s].age < slots[static_cast<std::size_t>(best)].age))
      best = static_cast<int>(s);
  if (best >= 0) last_ = best;
  return best;
}

void two_level_scheduler::refill(const std::vector<warp_view>& slots, std::uint64_t now) {
  // Live warps not yet known join the pending queue in slot order.
  for (std::size_t s = first_; s < slots.size(); s += stride_) {
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
    if (slots[static_cast<std::size_t>(*it)].ready(now)) {
      set_.push_back(*it);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
}

int two_level_scheduler::pick(const std::vector<warp_view>& slots, std::uint64_t now) {
  refill(slots, now);
  if (set_.empty()) return -1;
  // Round-robin within the active set, starting after the last issued warp.
  std::size_t start = 0;
  for (std::size_t k = 0; k < set_.size(); ++k)
    if (set_[k] == last_) start = k + 1;
  for (std::size_t k = 0, i = start % set_.size(); k < set_.size(); ++k) {
    const int s = set_[i];
    if (slots[static_cast<std::size_t>(s)].ready(now)) return last_ = s;
    if (++i == set_.size()) i = 0;
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

namespace {
// A factory for the table: the policy's class, given the active-set size if it takes one.
template <class S>
std::unique_ptr<warp_scheduler> make(unsigned active) {
  if constexpr (std::is_constructible_v<S, unsigned>) {
    return std::make_unique<S>(active);
  } else {
    (void)active;
    return std::make_unique<S>();
  }
}

const warp_policy_choice warp_policy_table[] = {
    {warp_policy::lrr, "lrr", "loose round-robin", make<lrr_scheduler>},
    {warp_policy::gto, "gto", "greedy then oldest", make<gto_scheduler>},
    {warp_policy::two_level, "two_level", "round-robin in an active set of active_warps warps",
     make<two_level_scheduler>},
};
}  // namespace

const choice_table<warp_policy_choice> warp_policies(warp_policy_table);

std::unique_ptr<warp_scheduler> make_scheduler(warp_policy p, unsigned active) {
  const warp_policy_choice* c = choice_for(warp_policies, p);
  if (!c)
    throw std::invalid_argument("warp_policy " + std::to_string(static_cast<int>(p)) +
                                " has no entry in warp_policies");
  return c->make(active);
}

}  // namespace flynn

// Warp scheduler policies: an interface and one small class per policy, chosen by name
// through the warp_policies table.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <vector>

#include "flynn/common/params.h"

namespace flynn {

enum class warp_policy { lrr, gto, two_level };

// What the scheduler sees of a warp slot.
struct warp_view {
  static constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();
  bool present = false;          // slot holds a live warp
  std::uint64_t ready_at = never;  // first cycle it may issue at (never: not known yet)
  std::uint64_t age = 0;         // launch order (smaller = older)
  // Whether it may issue at cycle `now`.
  bool ready(std::uint64_t now) const { return ready_at <= now; }
};

class warp_scheduler {
 public:
  virtual ~warp_scheduler() = default;
  // Picks a slot among the warps it serves ready at cycle `now` (or -1). `slots` is indexed
  // by warp slot.
  virtual int pick(const std::vector<warp_view>& slots, std::uint64_t now) = 0;
  // The slots it serves: first, first + stride, ... (a sub-partition's warps); all by default.
  void serve(unsigned first, unsigned stride) {
    first_ = first;
    stride_ = stride ? stride : 1;
  }
  // The issued warp's instruction is a long-latency one (global memory).
  virtual void long_latency(int slot) { (void)slot; }
  // Whether a not-ready warp may wait outside the scheduler's active set (two-level).
  virtual void retire(int slot) { (void)slot; }

 protected:
  unsigned first_ = 0, stride_ = 1;
};

// Loose round-robin: the first ready warp after the one issued last.
class lrr_scheduler final : public warp_scheduler {
 public:
  int pick(const std::vector<warp_view>& slots, std::uint64_t now) override;

 private:
  int last_ = -1;
};

// Greedy-then-oldest: the warp issued last while it stays ready, else the oldest ready.
class gto_scheduler final : public warp_scheduler {
 public:
  int pick(const std::vector<warp_view>& slots, std::uint64_t now) override;

 private:
  int last_ = -1;
};

// Two-level: round-robin among an active set of at most `active` warps; a warp that issues
// a long-latency instruction leaves the set, and pending warps join it in order.
class two_level_scheduler final : public warp_scheduler {
 public:
  explicit two_level_scheduler(unsigned active) : active_(active ? active : 1) {}
  int pick(const std::vector<warp_view>& slots, std::uint64_t now) override;
  void long_latency(int slot) override;
  void retire(int slot) override;

 private:
  unsigned active_;
  std::deque<int> set_, pending_;
  int last_ = -1;
  void refill(const std::vector<warp_view>& slots, std::uint64_t now);
};

// The warp_policy values with their names (simt_core's `scheduler` parameter), descriptions
// and factories (given simt_core's active_warps), in scheduler.cpp. A new policy is a class
// above, its warp_policy value and one line in the table.
using warp_policy_choice =
    named_choice<warp_policy, std::unique_ptr<warp_scheduler> (*)(unsigned active)>;
extern const choice_table<warp_policy_choice> warp_policies;

// The scheduler of policy p, built by its table entry.
std::unique_ptr<warp_scheduler> make_scheduler(warp_policy p, unsigned active);

}  // namespace flynn

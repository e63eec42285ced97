// The simulated time of cycle n of a module's clock, for a caller that asks about rising
// cycles one after the other (an LT initiator's requests, a memory's completions): the
// answer is module::to_time(n)'s, found from the previous one by adding periods (exact
// integer sums) when n is a few cycles later, instead of a product and a call into the
// kernel library each time. The other way, ceil_cycles, likewise. (time_ is always
// to_time(cycle_): a whole number of periods, or sc_max_time() past the kernel's range.)
#pragma once

#include <cstdint>

#include <systemc>

#include "flynn/common/module.h"

namespace flynn {

class cycle_times {
 public:
  explicit cycle_times(const module& m) : period_(m.clock_period()) {}

  sc_core::sc_time operator()(std::uint64_t n) {
    if (n == cycle_) return time_;
    const std::uint64_t k = n - cycle_, p = period_.value();
    // (Past the kernel's range the sum would wrap where to_time saturates.)
    if (n > cycle_ && k <= 4 && time_.value() <= UINT64_MAX - k * p) {
      for (; cycle_ < n; ++cycle_) time_ += period_;
    } else {
      time_ = module::to_time(n, period_);
      cycle_ = n;
    }
    return time_;
  }

  // module::to_cycles_ceil(t) (the first cycle at or after t), the same way for times that
  // rise by about a cycle at a time: a time in the cycle after the last one is the next
  // cycle, without a division.
  std::uint64_t ceil_cycles(const sc_core::sc_time& t) {
    const std::uint64_t v = t.value(), base = time_.value(), p = period_.value();
    if (v == base) return cycle_;
    if (v > base && v - base <= p && base <= UINT64_MAX - p) {  // in (cycle_, cycle_ + 1]
      time_ += period_;
      return ++cycle_;
    }
    cycle_ = module::to_cycles_ceil(t, period_);
    time_ = module::to_time(cycle_, period_);
    return cycle_;
  }

 private:
  sc_core::sc_time period_;
  std::uint64_t cycle_ = 0;
  sc_core::sc_time time_ = sc_core::SC_ZERO_TIME;  // of cycle_
};

}  // namespace flynn

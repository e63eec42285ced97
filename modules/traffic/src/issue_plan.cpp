#include "flynn/traffic/issue_plan.h"

#include <algorithm>
#include <stdexcept>

namespace flynn {

void issue_plan::footprint::normalise() {
  if (ranges.empty()) return;  // [lo, hi) given directly
  std::sort(ranges.begin(), ranges.end(),
            [](const range& a, const range& b) { return a.lo < b.lo; });
  std::size_t out = 0;
  for (const range& r : ranges) {
    if (out > 0 && r.lo <= ranges[out - 1].hi)
      ranges[out - 1].hi = std::max(ranges[out - 1].hi, r.hi);
    else
      ranges[out++] = r;
  }
  ranges.resize(out);
  lo = ranges.front().lo;
  hi = ranges.back().hi;
  if (ranges.size() == 1) ranges.clear();
}

issue_plan::issue_plan(std::uint64_t start_cycle, unsigned interval, unsigned max_outstanding)
    : plan_(start_cycle), interval_(interval), max_outstanding_(max_outstanding) {}

issue_plan::footprint& issue_plan::next() {
  next_.write = false;
  next_.lo = next_.hi = 0;
  next_.ranges.clear();
  ordered_ = false;
  return next_;
}

// The bounding ranges first (all a plain request has); lane ranges, sorted and disjoint,
// in one pass over the two lists.
bool issue_plan::overlaps(const footprint& a, const footprint& b) {
  if (a.hi <= b.lo || b.hi <= a.lo) return false;
  if (a.ranges.empty() && b.ranges.empty()) return true;
  const range ra{a.lo, a.hi}, rb{b.lo, b.hi};
  const range* pa = a.ranges.empty() ? &ra : a.ranges.data();
  const range* pb = b.ranges.empty() ? &rb : b.ranges.data();
  const std::size_t na = a.ranges.empty() ? 1 : a.ranges.size(),
                    nb = b.ranges.empty() ? 1 : b.ranges.size();
  std::size_t i = 0, j = 0;
  while (i < na && j < nb) {
    if (pa[i].hi <= pb[j].lo)
      ++i;
    else if (pb[j].hi <= pa[i].lo)
      ++j;
    else
      return true;
  }
  return false;
}

// The latest response among the requests in flight that the next one conflicts with.
bool issue_plan::order_after_hazards() {
  std::uint64_t after = plan_;
  if (next_.write || writes_in_flight_ > 0)
    for (const record& r : records_) {
      if (r.retired || !(r.f.write || next_.write) || !overlaps(r.f, next_)) continue;
      if (r.done == unknown) return false;
      after = std::max(after, r.done);
    }
  if (after > plan_) {
    ++overlap_stalls_;
    overlap_stall_cycles_ += after - plan_;
    plan_ = after;
  }
  return true;
}

void issue_plan::retire_through(std::uint64_t cycle) {
  while (!known_.empty() && known_.top().first <= cycle) {
    record& r = records_[known_.top().second - first_serial_];
    known_.pop();
    r.retired = true;
    --in_flight_;
    if (r.f.write) --writes_in_flight_;
  }
  while (!records_.empty() && records_.front().retired) {
    if (records_.front().f.ranges.capacity())
      spare_.push_back(std::move(records_.front().f.ranges));
    records_.pop_front();
    ++first_serial_;
  }
}

bool issue_plan::settle() {
  if (!ordered_) {
    next_.normalise();
    if (!order_after_hazards()) return false;
    ordered_ = true;
  }
  retire_through(plan_);
  while (in_flight_ >= max_outstanding_) {
    if (known_.empty()) return false;
    plan_ = std::max(plan_, known_.top().first);  // responses arrive in time order: the earliest
    retire_through(plan_);
  }
  return true;
}

void issue_plan::issued(std::uint64_t serial) {
  if (records_.empty()) first_serial_ = serial;
  if (serial != first_serial_ + records_.size())
    throw std::logic_error("issue_plan: request serials must be consecutive");
  ++in_flight_;
  if (next_.write) ++writes_in_flight_;
  records_.push_back(record{std::move(next_), unknown, false});
  next_.ranges = {};
  if (!spare_.empty()) {
    next_.ranges = std::move(spare_.back());
    spare_.pop_back();
  }
  plan_ += interval_;
  ordered_ = false;
}

void issue_plan::responded(std::uint64_t serial, std::uint64_t done) {
  if (serial < first_serial_ || serial - first_serial_ >= records_.size())
    throw std::logic_error("issue_plan: response for a request not in flight");
  records_[serial - first_serial_].done = done;
  known_.emplace(done, serial);
}

}  // namespace flynn

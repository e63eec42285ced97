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
  if ((next_.write || writes_in_flight_ > 0) && !(next_.write ? all_ : writes_).misses(next_)) {
    // The records in the ring from head_, in at most two stretches; the bounds of those in
    // flight are found on the way.
    bounds all, writes;
    const std::size_t first = std::min(count_, ring_.size() - head_);
    for (const auto& [b, e] : {std::make_pair(head_, head_ + first), std::make_pair(std::size_t(0), count_ - first)})
      for (std::size_t i = b; i < e; ++i) {
        const record& r = ring_[i];
        if (r.retired) continue;
        all.add(r.f);
        if (r.f.write) writes.add(r.f);
        if (!(r.f.write || next_.write) || !overlaps(r.f, next_)) continue;
        if (r.done == unknown) return false;
        after = std::max(after, r.done);
      }
    all_ = all;
    writes_ = writes;
  }
  if (after > plan_) {
    ++overlap_stalls_;
    overlap_stall_cycles_ += after - plan_;
    plan_ = after;
  }
  return true;
}

void issue_plan::retire_through(std::uint64_t cycle) {
  while (known_head_ < known_.size() && known_[known_head_].first <= cycle) {
    record& r = at(known_[known_head_].second - first_serial_);
    ++known_head_;
    r.retired = true;
    --in_flight_;
    if (r.f.write) --writes_in_flight_;
  }
  if (known_head_ == known_.size()) {
    known_.clear();
    known_head_ = 0;
  }
  while (count_ > 0 && ring_[head_].retired) {
    head_ = (head_ + 1) & (ring_.size() - 1);
    --count_;
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
    if (known_head_ == known_.size()) return false;
    plan_ = std::max(plan_, known_[known_head_].first);  // responses arrive in time order: the earliest
    retire_through(plan_);
  }
  return true;
}

// Twice the slots, the records in serial order from slot 0.
void issue_plan::grow() {
  std::vector<record> bigger(2 * ring_.size());
  for (std::size_t i = 0; i < ring_.size(); ++i) bigger[i] = std::move(at(i));
  ring_.swap(bigger);
  head_ = 0;
}

void issue_plan::issued(std::uint64_t serial) {
  if (count_ == 0) first_serial_ = serial;
  if (serial != first_serial_ + count_)
    throw std::logic_error("issue_plan: request serials must be consecutive");
  ++in_flight_;
  all_.add(next_);
  if (next_.write) {
    ++writes_in_flight_;
    writes_.add(next_);
  }
  if (count_ == ring_.size()) grow();
  record& r = at(count_++);
  std::swap(r.f, next_);  // next_ takes the slot's old range buffer
  r.done = unknown;
  r.retired = false;
  plan_ += interval_;
  ordered_ = false;
}

void issue_plan::add_known(std::uint64_t done, std::uint64_t serial) {
  const std::pair<std::uint64_t, std::uint64_t> k(done, serial);
  if (known_head_ > 64 && known_head_ * 2 > known_.size()) {  // drop the retired front
    known_.erase(known_.begin(), known_.begin() + static_cast<std::ptrdiff_t>(known_head_));
    known_head_ = 0;
  }
  if (known_.size() == known_head_ || !(k < known_.back())) {  // the usual case: the latest so far
    known_.push_back(k);
    return;
  }
  auto it = known_.end();
  while (it != known_.begin() + static_cast<std::ptrdiff_t>(known_head_) && k < *std::prev(it)) --it;
  known_.insert(it, k);
}

void issue_plan::responded(std::uint64_t serial, std::uint64_t done) {
  if (serial < first_serial_ || serial - first_serial_ >= count_)
    throw std::logic_error("issue_plan: response for a request not in flight");
  at(serial - first_serial_).done = done;
  add_known(done, serial);
}

}  // namespace flynn

// Occupancy calendar of one shared resource (a bank, a port): the cycles it is booked, as
// disjoint half-open intervals [from, to). A request looks for the first free stretch at or
// after its own cycle, so it is delayed only by bookings that overlap the cycles it needs,
// never by a booking that lies wholly in its future (as a single "free at" time would do when
// requests for different moments reach the resource out of time order).
//
// Bookings are kept in a vector sorted by cycle: most requests come in time order and book
// after the last booking, which is then a push at the end.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace flynn {

class occupancy_calendar {
 public:
  // merge: touching bookings become one (banks); otherwise each keeps its own tag (ports,
  // where a booking is one request and the tag its first wavefront).
  explicit occupancy_calendar(bool merge = true) : merge_(merge) {}

  // The first cycle c >= from at which [c, c + len) overlaps no booking.
  std::uint64_t first_free(std::uint64_t from, std::uint64_t len) const {
    if (head_ == busy_.size() || from >= busy_.back().to) return from;  // after everything booked
    if (from >= run_from_) return busy_.back().to;  // in the booked run that ends the calendar
    std::uint64_t c = from;
    for (auto it = first_ending_after(c); it != busy_.end() && it->from < c + len; ++it) c = std::max(c, it->to);
    return c;
  }
  bool is_free(std::uint64_t from, std::uint64_t len) const { return first_free(from, len) == from; }

  // Books [from, to), which must be free.
  void book(std::uint64_t from, std::uint64_t to, std::uint64_t tag = 0) {
    if (to <= from) return;
    if (head_ == busy_.size() || from >= busy_.back().to) {  // the usual case: at the end
      if (head_ == busy_.size() || busy_.back().to != from) run_from_ = from;  // a gap before it: a new run
      if (merge_ && head_ < busy_.size() && busy_.back().to == from)
        busy_.back().to = to;
      else
        busy_.push_back({from, to, tag});
      return;
    }
    book_before_end(from, to, tag);
  }

  // The tag of the latest booking that ends at or before `c`; false if none.
  bool previous(std::uint64_t c, std::uint64_t& tag) const {
    if (head_ == busy_.size()) return false;
    if (c >= busy_.back().to) {  // the usual case: after everything booked
      tag = busy_.back().tag;
      return true;
    }
    auto it = first_ending_after(c);  // every booking before it ends at or before c
    if (it == busy_.begin() + static_cast<std::ptrdiff_t>(head_)) return false;
    tag = std::prev(it)->tag;
    return true;
  }

  // Forgets bookings that end at or before `c` (no later request can need those cycles).
  void forget_before(std::uint64_t c) {
    while (head_ < busy_.size() && busy_[head_].to <= c) ++head_;
    if (head_ < busy_.size()) run_from_ = std::max(run_from_, busy_[head_].from);  // (forgotten cycles are free)
    if (head_ > 64 && head_ * 2 > busy_.size()) {
      busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  std::size_t size() const { return busy_.size() - head_; }

 private:
  struct booking {
    std::uint64_t from, to, tag;
  };
  using iterator = std::vector<booking>::iterator;
  using const_iterator = std::vector<booking>::const_iterator;
  // The first booking that ends after `c` (bookings are disjoint and sorted, so their ends
  // are sorted too).
  const_iterator first_ending_after(std::uint64_t c) const {
    return std::upper_bound(busy_.begin() + static_cast<std::ptrdiff_t>(head_), busy_.end(), c,
                            [](std::uint64_t x, const booking& b) { return x < b.to; });
  }
  iterator first_ending_after(std::uint64_t c) {
    return std::upper_bound(busy_.begin() + static_cast<std::ptrdiff_t>(head_), busy_.end(), c,
                            [](std::uint64_t x, const booking& b) { return x < b.to; });
  }

  // book() for a booking that is not after all the others.
  void book_before_end(std::uint64_t from, std::uint64_t to, std::uint64_t tag) {
    auto it = first_ending_after(from);  // the booking after the new one
    if (merge_) {
      const bool joins_next = it != busy_.end() && it->from == to;
      const bool joins_prev = it != busy_.begin() + static_cast<std::ptrdiff_t>(head_) && std::prev(it)->to == from;
      if (joins_prev && joins_next) {
        std::prev(it)->to = it->to;
        busy_.erase(it);
        return;
      }
      if (joins_prev) {
        std::prev(it)->to = to;
        return;
      }
      if (joins_next) {
        it->from = from;
        return;
      }
    }
    busy_.insert(it, {from, to, tag});
  }

  bool merge_;
  std::vector<booking> busy_;
  std::size_t head_ = 0;  // bookings before it are forgotten
  // Every cycle from run_from_ to the end of the last booking is booked (when any is): a
  // request that comes while a resource is taken back to back, as a port with a queue of
  // requests, is then free at that end without a search. A booking before the end only
  // fills a gap, so it keeps this true.
  std::uint64_t run_from_ = 0;
};

}  // namespace flynn

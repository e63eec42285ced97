// The issue plan of a traffic generator, one for its LT and AT paths alike, so that both
// issue every request at the same cycle. Request i is planned `interval` cycles after
// request i-1, and later when
//  - it overlaps (shares a byte with) a request still in flight and either of the two is a
//    write: it waits for that request's response. A target may then complete the requests
//    it holds in any order the TLM-2.0 base protocol allows and the result is still the one
//    of issue order, which is what the golden replay computes;
//  - `max_outstanding` requests would still be in flight: it waits for the earliest
//    response.
// A request is in flight from its planned cycle to the cycle of its response. The LT path
// knows every response cycle when it plans the next request; the AT path learns them as
// responses arrive, and settle() says when the plan depends on one not seen yet.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "flynn/common/stats.h"

namespace flynn {

class issue_plan {
 public:
  struct range {
    std::uint64_t lo, hi;  // bytes [lo, hi)
  };
  // The bytes a request touches and whether it writes them: one range as [lo, hi) (no
  // allocation), or several in `ranges`, any order, that normalise() sorts and merges and
  // bounds with [lo, hi).
  struct footprint {
    bool write = false;
    std::uint64_t lo = 0, hi = 0;  // the bounding range
    std::vector<range> ranges;     // empty when [lo, hi) is exact
    void normalise();
  };

  issue_plan(std::uint64_t start_cycle, unsigned interval, unsigned max_outstanding);

  // The next request to plan: fill in the footprint returned (empty, its buffer reused),
  // then settle() it.
  footprint& next();
  // Moves the next request past its ordering hazards and the outstanding limit. False when
  // that needs the response cycle of a request whose response has not arrived (AT): call
  // again after one arrives.
  bool settle();
  std::uint64_t cycle() const { return plan_; }
  // The settled request goes out at cycle() under `serial` (consecutive from 0).
  void issued(std::uint64_t serial);
  // The response of request `serial` arrived; `done` is its cycle.
  void responded(std::uint64_t serial, std::uint64_t done);

  // Requests held back by an overlapping request in flight, and the cycles they waited.
  const stat_counter& overlap_stalls() const { return overlap_stalls_; }
  const stat_counter& overlap_stall_cycles() const { return overlap_stall_cycles_; }

 private:
  static constexpr std::uint64_t unknown = UINT64_MAX;
  struct record {
    footprint f;
    std::uint64_t done = unknown;
    bool retired = false;
  };
  static bool overlaps(const footprint& a, const footprint& b);
  bool order_after_hazards();
  void retire_through(std::uint64_t cycle);
  record& at(std::size_t i) { return ring_[(head_ + i) & (ring_.size() - 1)]; }
  void grow();

  std::uint64_t plan_;
  unsigned interval_, max_outstanding_;
  footprint next_;
  bool ordered_ = false;  // next_ already waits for its hazards
  // Requests issued and not retired, by serial from first_serial_ (retired ones are
  // dropped from the front only, so an index is serial - first_serial_): `count_` records
  // from `head_` in a ring whose size is a power of two. A slot keeps its range buffer
  // when its record is dropped, for the request that takes the slot next.
  std::vector<record> ring_ = std::vector<record>(16);
  std::size_t head_ = 0, count_ = 0;
  std::uint64_t first_serial_ = 0;
  unsigned in_flight_ = 0, writes_in_flight_ = 0;
  // Bounds of the requests in flight, and of the writes among them: [lo, hi) spans every
  // one's bounding range (and may span more: they are narrowed only when the records are
  // searched). A request outside them conflicts with none, without a search.
  struct bounds {
    std::uint64_t lo = UINT64_MAX, hi = 0;
    void add(const footprint& f) {
      lo = std::min(lo, f.lo);
      hi = std::max(hi, f.hi);
    }
    bool misses(const footprint& f) const { return f.hi <= lo || hi <= f.lo; }
  };
  bounds all_, writes_;
  // Known response cycles of requests in flight as (cycle, serial), earliest first from
  // known_head_. Responses come mostly in cycle order: a new one mostly goes at the end.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> known_;
  std::size_t known_head_ = 0;
  void add_known(std::uint64_t done, std::uint64_t serial);
  stat_counter overlap_stalls_, overlap_stall_cycles_;
};

}  // namespace flynn

// A cache level of a memory hierarchy (an L1 data cache, an L2 slice): sectored lines in a
// set-associative array with LRU replacement, a tag port, a data path of limited bandwidth,
// MSHRs that merge misses to a line, write-back or write-through, and a bounded input queue.
// A timing stage (timing_stage.h): it keeps tags, not data. A hit, or a miss once its
// sectors have been filled from the next level, goes on to the data array marked as served,
// so the levels below pass it straight through and the array moves its data at that cycle.
// See docs/modules/cache.md.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/memory/occupancy_calendar.h"
#include "flynn/memory/timing_stage.h"

namespace flynn {

enum class write_policy { write_back, write_through };

inline constexpr named_choice<write_policy> write_policies[] = {
    {write_policy::write_back, "write_back",
     "writes stay in the cache (dirty sectors, written back when the line is evicted); write misses allocate"},
    {write_policy::write_through, "write_through",
     "writes go on to the next level at once and allocate nothing (a GPU L1)"},
};

struct cache_params : clocked_params {
  property<unsigned> ports{this, {"ports", "",
      "target sockets port0, port1, ... (one initiator each), served in arrival order"}, 1, 1, 64};
  property<std::uint64_t> size_bytes{this, {"size_bytes", "B",
      "capacity (with shared_carveout_bytes: the unified L1/shared-memory array)"}, 262144, 1, std::uint64_t(1) << 32};
  property<std::uint64_t> shared_carveout_bytes{this, {"shared_carveout_bytes", "B",
      "of size_bytes, the part given to shared memory (the cache holds the rest)"}, 0, 0, std::uint64_t(1) << 32};
  property<unsigned> line_bytes{this, {"line_bytes", "B",
      "line (tag) size, a power of two"}, 128, 4, 4096};
  property<unsigned> sector_bytes{this, {"sector_bytes", "B",
      "sector (valid, dirty and fill unit) size, a power of two dividing line_bytes"}, 32, 4, 4096};
  property<unsigned> ways{this, {"ways", "", "associativity (LRU replacement)"}, 16, 1, 64};
  property<unsigned> hit_latency{this, {"hit_latency", "cycles",
      "tag lookup to the data of a hit"}, 20, 0, 100000};
  property<unsigned> miss_latency{this, {"miss_latency", "cycles",
      "tag lookup to the fill request leaving for the next level"}, 2, 0, 100000};
  property<unsigned> bytes_per_cycle{this, {"bytes_per_cycle", "B",
      "data path: each request's bytes pass it at this rate"}, 64, 1, 4096};
  property<unsigned> mshrs{this, {"mshrs", "",
      "misses to distinct lines in flight at once"}, 32, 1, 4096};
  property<unsigned> mshr_targets{this, {"mshr_targets", "requests",
      "requests waiting on one MSHR at most"}, 8, 1, 4096};
  property<unsigned> queue_depth{this, {"queue_depth", "requests",
      "requests the cache serves, between acceptance (END_REQ) and response (one it passes on, a "
      "write through or a bypassed or uncached request, leaves when sent on); more wait upstream"}, 64, 1, 65536};
  property<write_policy> writes{this, {"writes", "",
      "write policy"}, write_policy::write_back, write_policies};
  property<bool> bypass_cache_global{this, {"bypass_cache_global", "",
      "loads cached at the global level only (ld.global.cg) pass on without a lookup or an "
      "allocation, as through an L1"}, false};
  ideal_switch ideal{this,
      "a perfect cache for attribution (flynn attribute): every request is served at its arrival "
      "cycle with no latency, bandwidth or MSHR limit, and the levels below do not time it (the "
      "data array below still moves its data)"};

  std::uint64_t capacity() const { return size_bytes - shared_carveout_bytes; }
  std::vector<param_issue> check() const;
  // What it allocates by these parameters (see param_footprint).
  param_footprint footprint() const;
};

class cache : public timing_stage {
 public:
  using params = cache_params;

  cache(const sc_core::sc_module_name& name, const params& p);
  const params& parameters() const { return p_; }
  void attach_trace(trace_sink& sink) override;

 private:
  struct line {
    std::uint64_t tag = 0, used = 0;  // used: LRU stamp
    unsigned valid = 0, dirty = 0, filling = 0;  // sector masks
    bool present = false;
  };
  struct mshr {
    std::uint64_t line_address = 0;
    unsigned sectors = 0;  // requested from the next level, not yet in
    std::vector<request*> waiting;
    bool busy = false;
  };

  // What a missing request waits for: lines with sectors still filling, and when its data
  // is ready.
  struct waiting_info {
    unsigned lines = 0;
    std::uint64_t ready = 0;
  };

  void schedule(request& r) override;
  void response_sent(request& r) override;
  // (A write through, a bypassed load or a request too large to cache here goes on at its
  // lookup, and the level below may answer before hit_latency: no promise.)
  std::uint64_t least_latency(const tlm::tlm_generic_payload&) const override { return 0; }
  void enter(request& r, std::uint64_t at);
  void pass_on(request& r, std::uint64_t t);
  void leave_queue();
  void lookup(request& r, std::uint64_t at);
  void room_for(const std::vector<std::pair<std::uint64_t, unsigned>>& wanted, bool write, bool& never, bool& later);
  void serve(request& r, std::uint64_t ready);
  void filled(unsigned m, unsigned sectors, std::uint64_t at);
  void retry(std::uint64_t at);
  line* find(std::uint64_t line_address);
  // Sector block b (address / sector_bytes): its line's address and its bit in the line.
  std::pair<std::uint64_t, unsigned> sector(std::uint64_t b) const {
    const std::uint64_t la = b * p_.sector_bytes / p_.line_bytes * p_.line_bytes;
    return {la, 1u << ((b * p_.sector_bytes - la) / p_.sector_bytes)};
  }
  // A way for the line (never one of the lines `keep` names).
  line* allocate(std::uint64_t line_address, std::uint64_t at, const std::function<bool(std::uint64_t)>& keep);

  params p_;
  std::uint64_t sets_ = 1;
  unsigned sectors_per_line_ = 4;
  std::vector<line> lines_;  // sets_ x ways
  std::vector<mshr> mshrs_;
  std::uint64_t tag_free_ = 0, stamp_ = 0;
  occupancy_calendar data_path_;
  unsigned accepted_ = 0;             // requests between acceptance and response
  std::deque<request*> entering_;     // waiting for room in the queue
  bool admitting_ = false;
  std::deque<request*> stalled_;      // waiting for an MSHR or a line to replace
  std::vector<std::uint64_t> blocks_;  // scratch
  std::vector<std::pair<std::uint64_t, unsigned>> wanted_;  // scratch: a lookup's lines and their sectors
  struct set_need {
    std::uint64_t set;
    unsigned present, fresh;
  };
  std::vector<set_need> needs_;  // scratch: a lookup's sets
  std::unordered_map<const request*, waiting_info> waits_;

  stat_counter latency_sum_, responses_;  // the operands of mean_latency, not written themselves
  // Statistics, in the order they are written.
  statistic reads_{stats_, "reads", "requests", "read requests (atomics included)"};
  statistic writes_{stats_, "writes", "requests", "write requests"};
  statistic hits_{stats_, "hits", "requests",
                  "lookups that found what they needed: a read whose sectors were all present, a write whose lines "
                  "were all present (a write allocating a line is a miss, not a hit)"};
  statistic misses_{stats_, "misses", "requests",
                    "lookups with a line not present: a read that fetches it, a write that allocates it (write-back)"};
  statistic sector_misses_{stats_, "sector_misses", "requests", "reads whose lines were present with a sector missing"};
  statistic read_lookups_{stats_, "read_lookups", "requests", "reads (atomics included) looked up in the tags"};
  statistic read_hits_{stats_, "read_hits", "requests", "reads looked up whose sectors were all present"};
  statistic write_lookups_{stats_, "write_lookups", "requests", "writes looked up in the tags (write-back)"};
  statistic write_hits_{stats_, "write_hits", "requests", "writes looked up whose lines were all present"};
  statistic merged_{stats_, "mshr_merges", "requests", "missing requests that waited only on fills already in flight"};
  statistic evictions_{stats_, "evictions", "lines", "lines replaced"};
  statistic writebacks_{stats_, "writebacks", "lines", "dirty lines written back to the next level"};
  statistic fills_{stats_, "fills", "requests", "fill requests answered by the next level"};
  statistic bypassed_{stats_, "bypassed", "requests", "ld.global.cg loads passed on (bypass_cache_global)"};
  statistic uncached_{stats_, "uncached", "requests",
                      "requests passed on uncached: more of their lines in one set than ways, or more missing lines "
                      "than MSHRs"};
  statistic stalls_{stats_, "mshr_stalls", "requests",
                    "lookups that found no free MSHR, target or replaceable line, and waited"};
  statistic queue_wait_{stats_, "queue_wait_cycles", "cycles",
                        "cycles requests waited for room in the input queue, summed"};
  stat_formula hit_rate_{stats_, "hit_rate",
                         [this] {
                           const std::uint64_t lookups = read_lookups_.value() + write_lookups_.value();
                           return lookups ? double(hits_.value()) / double(lookups) : 0.0;
                         },
                         "",
                         "hits / lookups (requests passed on without a lookup, bypassed, uncached or written "
                         "through, are not counted)"};
  stat_ratio read_hit_rate_{stats_, "read_hit_rate", read_hits_, read_lookups_, "", "read_hits / read_lookups"};
  stat_ratio write_hit_rate_{stats_, "write_hit_rate", write_hits_, write_lookups_, "", "write_hits / write_lookups"};
  stat_ratio mean_latency_{stats_, "mean_latency", latency_sum_, responses_, "cycles",
                           "mean cycles from a request's arrival to its response"};
  trace_signal mshr_sig_;
  unsigned mshrs_busy_ = 0;
};

}  // namespace flynn

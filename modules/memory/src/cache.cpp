// A cache level: tags, sectors, LRU, MSHRs, write policies and a bounded input queue, over
// the timing stage's protocol handling.
#include "flynn/memory/cache.h"

#include <algorithm>
#include <unordered_map>

#include "flynn/tlm/atomic_extension.h"

namespace flynn {

namespace {
// Whether a request's lines (line address, sectors) include the line at `la`.
bool names_line(const std::vector<std::pair<std::uint64_t, unsigned>>& wanted, std::uint64_t la) {
  return std::any_of(wanted.begin(), wanted.end(), [la](const auto& w) { return w.first == la; });
}
}  // namespace

// ---------------------------------------------------------------------------- parameters

param_footprint cache_params::footprint() const {
  // The tag array (32 B a line) and the MSHRs.
  return {32 * (capacity() / line_bytes) + 64 * std::uint64_t(mshrs) * mshr_targets, 0};
}

std::vector<param_issue> cache_params::check() const {
  std::vector<param_issue> r;
  require_power_of_two(r, "line_bytes", line_bytes);
  require_power_of_two(r, "sector_bytes", sector_bytes);
  if (sector_bytes > line_bytes)
    r.push_back({"sector_bytes", "at most line_bytes (" + std::to_string(line_bytes) + ")", std::to_string(sector_bytes)});
  else if (line_bytes / sector_bytes > 32)
    r.push_back({"sector_bytes", "at least line_bytes / 32 (" + std::to_string(line_bytes / 32) + ")",
                 std::to_string(sector_bytes)});
  if (shared_carveout_bytes >= size_bytes)
    r.push_back({"shared_carveout_bytes", "less than size_bytes (" + std::to_string(size_bytes) + ")",
                 std::to_string(shared_carveout_bytes)});
  else if (capacity() % (std::uint64_t(line_bytes) * ways) != 0)
    r.push_back({"size_bytes", "size_bytes - shared_carveout_bytes a multiple of line_bytes x ways (" +
                                   std::to_string(std::uint64_t(line_bytes) * ways) + ")",
                 std::to_string(capacity())});
  return r;
}

// ---------------------------------------------------------------------------- construction

cache::cache(const sc_core::sc_module_name& name, const params& p) : timing_stage(name, p.clock_ns, p.ports), p_(p) {
  throw_if_invalid("cache", p_.check());
  set_ideal(p_.ideal, true);
  own_request_bytes(p_.line_bytes);  // fills and write-backs: a line at most
  sectors_per_line_ = p_.line_bytes / p_.sector_bytes;
  sets_ = p_.capacity() / (std::uint64_t(p_.line_bytes) * p_.ways);
  lines_.resize(sets_ * p_.ways);
  mshrs_.resize(p_.mshrs);
}

void cache::attach_trace(trace_sink& sink) {
  in_flight_sig_.attach(&sink, name(), "requests_in_flight", 16);
  mshr_sig_.attach(&sink, name(), "mshrs_busy", 16);
}

// ---------------------------------------------------------------------------- requests

void cache::schedule(request& r) {
  if (accepted_ >= p_.queue_depth) {
    entering_.push_back(&r);
    return;
  }
  enter(r, r.arrival);
}

void cache::enter(request& r, std::uint64_t at) {
  ++accepted_;
  queue_wait_ += at - r.arrival;
  if (!r.lt) end_req_at(r, at);
  (is_write(*r.gp) ? writes_ : reads_) += 1;
  lookup(r, at);
}

void cache::response_sent(request& r) {
  latency_sum_ += now_cycle() - r.arrival;
  ++responses_;
  if (!r.passed_on) leave_queue();
}

// A request the cache does not serve (a write through, a bypassed or uncached one) goes on
// to the next level at cycle t and leaves the queue then: the next level holds it.
void cache::pass_on(request& r, std::uint64_t t) {
  forward_at(r, t);
  r.passed_on = true;
  leave_queue();
}

// A request left the queue: the first waiting for room enters (its lookup after the ones
// before it on the tag port).
void cache::leave_queue() {
  --accepted_;
  if (admitting_) return;  // (the loop below takes them in turn)
  admitting_ = true;
  while (!entering_.empty() && accepted_ < p_.queue_depth) {
    request* next = entering_.front();
    entering_.pop_front();
    enter(*next, now_cycle());
  }
  admitting_ = false;
}

cache::line* cache::find(std::uint64_t line_address) {
  const std::uint64_t n = line_address / p_.line_bytes, set = n % sets_, tag = n / sets_;
  for (unsigned w = 0; w < p_.ways; ++w) {
    line& l = lines_[set * p_.ways + w];
    if (l.present && l.tag == tag) return &l;
  }
  return nullptr;
}

// A way for the line: an empty one, else the least recently used without sectors filling
// (a dirty victim is written back); nullptr when every way is filling.
cache::line* cache::allocate(std::uint64_t line_address, std::uint64_t at,
                            const std::function<bool(std::uint64_t)>& keep) {
  const std::uint64_t n = line_address / p_.line_bytes, set = n % sets_, tag = n / sets_;
  line* victim = nullptr;
  for (unsigned w = 0; w < p_.ways; ++w) {
    line& l = lines_[set * p_.ways + w];
    if (!l.present) {
      victim = &l;
      break;
    }
    if (!l.filling && !keep((l.tag * sets_ + set) * p_.line_bytes) && (!victim || l.used < victim->used)) victim = &l;
  }
  if (!victim) return nullptr;
  if (victim->present) {
    ++evictions_;
    if (victim->dirty) {
      ++writebacks_;
      const std::uint64_t addr = (victim->tag * sets_ + set) * p_.line_bytes;
      issue_own(true, addr, p_.line_bytes, at, nullptr);
    }
  }
  *victim = line{};
  victim->present = true;
  victim->tag = tag;
  return victim;
}

// The tag lookup of r at cycle `at` (or later, when the tag port is busy): a write through
// goes on at once; a write back allocates and dirties its sectors (a hit for timing, the
// array holds the data); a read hits, or waits on fills of its missing sectors (merged with
// fills in flight). A lookup that needs more MSHRs, targets or replaceable lines than are
// free waits until a fill frees one.
// Whether the lines `wanted` (line address, sectors) can go into the cache now: per set,
// the request's lines there (present ones stay: they are not victims for its new ones) and
// the ways other fills hold; MSHRs for the lines that miss. never: it could never fit (more
// of its lines in a set than ways, more missing lines than MSHRs); later: it could fit once
// a fill completes.
void cache::room_for(const std::vector<std::pair<std::uint64_t, unsigned>>& wanted, bool write, bool& never,
                     bool& later) {
  auto& sets = needs_;
  sets.clear();
  const auto touched = [&](std::uint64_t la) { return names_line(wanted, la); };
  unsigned new_mshrs = 0;
  const unsigned free_mshrs = static_cast<unsigned>(mshrs_.size()) - mshrs_busy_;
  for (const auto& [la, mask] : wanted) {
    line* l = find(la);
    const std::uint64_t set = la / p_.line_bytes % sets_;
    auto sn = std::find_if(sets.begin(), sets.end(), [set](const set_need& x) { return x.set == set; });
    if (sn == sets.end()) sn = sets.insert(sets.end(), set_need{set, 0, 0});
    ++(l ? sn->present : sn->fresh);
    if (write) continue;
    const unsigned missing = l ? mask & ~l->valid : mask;
    if (!missing) continue;
    const auto it = std::find_if(mshrs_.begin(), mshrs_.end(), [la = la](const mshr& m) { return m.busy && m.line_address == la; });
    if (it == mshrs_.end()) ++new_mshrs;
    else if (it->waiting.size() >= p_.mshr_targets) later = true;
  }
  if (new_mshrs > p_.mshrs) never = true;
  else if (new_mshrs > free_mshrs) later = true;
  for (const set_need& sn : sets) {
    if (sn.present + sn.fresh > p_.ways) {
      never = true;
      continue;
    }
    unsigned busy = 0;  // ways filling for other requests' lines
    for (unsigned w = 0; w < p_.ways; ++w) {
      const line& l = lines_[sn.set * p_.ways + w];
      if (l.present && l.filling && !touched((l.tag * sets_ + sn.set) * p_.line_bytes)) ++busy;
    }
    if (sn.fresh > p_.ways - sn.present - busy) later = true;
  }
}

void cache::lookup(request& r, std::uint64_t at) {
  const std::uint64_t t = std::max(at, tag_free_);
  tag_free_ = t + 1;
  tlm::tlm_generic_payload& gp = *r.gp;
  const bool write = is_write(gp) && !gp.get_extension<atomic_extension>();
  if ((write || gp.get_extension<atomic_extension>()) && p_.writes == write_policy::write_through) {
    pass_on(r, t);  // (the next level times it; answered() sends the response up)
    return;
  }
  if (p_.bypass_cache_global) {
    const auto* h = gp.get_extension<hierarchy_extension>();
    if (h && h->cache_global) {
      ++bypassed_;
      pass_on(r, t);
      return;
    }
  }
  // The request's lines, each with the sectors it touches.
  blocks_of(gp, p_.sector_bytes, blocks_);
  // (Scratch kept between lookups; a lookup that passes its request on returns right after,
  // so the lookups that this may start, through the queue, do not clobber one in use.)
  auto& wanted = wanted_;
  wanted.clear();
  for (const std::uint64_t b : blocks_) {
    const auto [la, bit] = sector(b);
    if (wanted.empty() || wanted.back().first != la) wanted.push_back({la, 0});
    wanted.back().second |= bit;
  }
  // Resources first (room_for): nothing changes unless the whole request can go on. A
  // request that could never fit goes on to the next level uncached; one that could fit
  // later waits for a fill.
  const auto touched = [&](std::uint64_t la) { return names_line(wanted, la); };
  bool never = false, later = false;
  room_for(wanted, write, never, later);
  if (never) {
    ++uncached_;
    pass_on(r, t);  // (answered() sends the response up)
    return;
  }
  if (later) {
    ++stalls_;
    stalled_.push_back(&r);
    return;
  }
  bool any_line_missing = false, any_sector_missing = false, any_new_fill = false;
  waiting_info info{0, t + p_.hit_latency};
  ++(write ? write_lookups_ : read_lookups_);
  for (const auto& [la, mask] : wanted) {
    line* l = find(la);
    if (!l) {
      l = allocate(la, t, touched);  // (there is a way: checked above)
      any_line_missing = true;
    }
    l->used = ++stamp_;
    if (write) {
      l->valid |= mask;
      l->dirty |= mask;
      continue;
    }
    const unsigned missing = mask & ~l->valid;
    if (!missing) continue;
    if (!any_line_missing) any_sector_missing = true;
    auto it = std::find_if(mshrs_.begin(), mshrs_.end(), [la = la](const mshr& m) { return m.busy && m.line_address == la; });
    if (it == mshrs_.end()) {
      it = std::find_if(mshrs_.begin(), mshrs_.end(), [](const mshr& m) { return !m.busy; });
      it->busy = true;
      it->line_address = la;
      it->sectors = 0;
      it->waiting.clear();
      mshr_sig_.set(to_time(t), ++mshrs_busy_);
    }
    const unsigned need = missing & ~l->filling;
    if (need) {  // one fill per run of missing sectors
      any_new_fill = true;
      const unsigned idx = static_cast<unsigned>(it - mshrs_.begin());
      for (unsigned s = 0; s < sectors_per_line_;) {
        if (!(need >> s & 1u)) {
          ++s;
          continue;
        }
        unsigned e = s;
        while (e < sectors_per_line_ && (need >> e & 1u)) ++e;
        const unsigned run = static_cast<unsigned>(((std::uint64_t(1) << (e - s)) - 1) << s);  // (e - s may be 32)
        l->filling |= run;
        it->sectors |= run;
        issue_own(false, la + std::uint64_t(s) * p_.sector_bytes, (e - s) * p_.sector_bytes, t + p_.miss_latency,
                  [this, idx, run](std::uint64_t c) { filled(idx, run, c); });
        s = e;
      }
    }
    it->waiting.push_back(&r);
    ++info.lines;
  }
  if (write) {  // the array takes the data now: no fill to wait for, hit or allocated
    if (any_line_missing) {
      ++misses_;
    } else {
      ++hits_;
      ++write_hits_;
    }
    serve(r, info.ready);
    return;
  }
  if (info.lines == 0) {
    ++hits_;
    ++read_hits_;
    serve(r, info.ready);
    return;
  }
  if (any_line_missing) ++misses_;
  else if (any_sector_missing) ++sector_misses_;
  if (!any_new_fill) ++merged_;
  waits_[&r] = info;
}

// r's data is ready at cycle `ready`: it passes the data path, then goes on to the array
// marked as served (or, a timing-only request from the level above, is answered here).
void cache::serve(request& r, std::uint64_t ready) {
  const std::uint64_t occupancy = (std::max<std::uint64_t>(r.gp->get_data_length(), 1) + p_.bytes_per_cycle - 1) / p_.bytes_per_cycle;
  // (The data path keeps a calendar: a hit's data, ready hit_latency after its lookup, may
  // be booked before a fill that comes earlier serves its waiting requests.)
  const std::uint64_t start = data_path_.first_free(ready, occupancy);
  data_path_.book(start, start + occupancy);
  data_path_.forget_before(now_cycle());
  const std::uint64_t done = start + occupancy;
  const auto* h = r.gp->get_extension<hierarchy_extension>();
  if (h && h->timing_only) {  // answered here: no data moves
    r.gp->set_response_status(tlm::TLM_OK_RESPONSE);
    respond_at(r, done);
    return;
  }
  mark_serviced(r);
  forward_at(r, done);
}

// A fill of MSHR m's `sectors` came at cycle `at`: they are valid, and the requests waiting
// on the line whose sectors are all in are served.
void cache::filled(unsigned m, unsigned sectors, std::uint64_t at) {
  ++fills_;
  mshr& e = mshrs_[m];
  line* l = find(e.line_address);
  if (l) {
    l->valid |= sectors;
    l->filling &= ~sectors;
  }
  e.sectors &= ~sectors;
  auto& waits = waits_;
  std::vector<request*> still;
  for (request* r : e.waiting) {
    // (Its sectors of this line: those it touches; all in once none of them is filling.)
    blocks_of(*r->gp, p_.sector_bytes, blocks_);
    unsigned mask = 0;
    for (const std::uint64_t b : blocks_) {
      const auto [la, bit] = sector(b);
      if (la == e.line_address) mask |= bit;
    }
    if (l && (mask & ~l->valid)) {
      still.push_back(r);
      continue;
    }
    waiting_info& w = waits[r];
    w.ready = std::max(w.ready, at);
    if (--w.lines == 0) {
      const std::uint64_t ready = w.ready;
      waits.erase(r);
      serve(*r, ready);
    }
  }
  e.waiting = std::move(still);
  if (!e.sectors && e.waiting.empty()) {
    e.busy = false;
    mshr_sig_.set(to_time(at), --mshrs_busy_);
    retry(at);
  }
}

void cache::retry(std::uint64_t at) {
  std::deque<request*> again;
  again.swap(stalled_);
  for (request* r : again) lookup(*r, at);
}

}  // namespace flynn

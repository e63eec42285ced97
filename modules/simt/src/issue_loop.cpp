// The SIMT core's main loop: the scheduler's view of the warps (scoreboard, units, barriers,
// the asynchronous units), the pick of each sub-partition at each cycle, and the idle cycles
// by cause when none can issue.
#include "flynn/simt/simt_core.h"
#include "core_engine.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <utility>

#include "async_ops.h"
#include "coalescer.h"
#include "hazards.h"
#include "core_state.h"
#include "lane_alu.h"
#include "block_launcher.h"
#include "load_store_unit.h"
#include "sub_partition.h"
#include "lsu_link.h"
#include "stall_reports.h"
#include "flynn/common/bits.h"
#include "flynn/common/format.h"

namespace flynn {

using simt::op;

bool simt_core::engine::units_busy() const {
  return (gmma.size() && gmma->in_progress()) || (tma.size() && tma->in_progress());
}

// Waits until cycle `until` or until a copy or MMA in progress reports, whichever is first.
// (The units may have finished since the caller looked: with no news to wait for, it waits
// only until `until`, and returns at once when that is unbounded.)
void simt_core::engine::wait_async(std::uint64_t until) {
  sc_core::sc_event_or_list news;
  bool any = false;
  if (gmma.size() && gmma->in_progress()) news |= gmma->progress_event(), any = true;
  if (tma.size() && tma->in_progress()) news |= tma->progress_event(), any = true;
  const sc_core::sc_time now = now_;
  if (until != std::numeric_limits<std::uint64_t>::max()) {
    if (to_time(until) <= now) return;
    if (any) pause(to_time(until) - now, news);
    else pause(to_time(until) - now);
  } else if (any) {
    pause(news);
  }
}

// A live warp whose next instruction waits on a result not known yet (for the idle count).
const simt::warp* simt_core::engine::unknown_warp() const {
  for (const auto& w : warps_)
    if (w->live && !w->at_barrier && w->why == warp::wait::async) return w.get();
  return nullptr;
}

void simt_core::engine::count_idle(const warp* first, std::uint64_t idle) {
  if (!first || idle == 0) {
    idle_async_ += idle;
    return;
  }
  switch (first->why) {
    case warp::wait::memory: idle_memory_ += idle; break;
    case warp::wait::barrier: idle_barrier_ += idle; break;
    case warp::wait::async:
      if (kernel_.code[first->stack.back().pc].code == op::wgmma_wait) idle_wgmma_ += idle;
      else idle_async_ += idle;
      break;
    default: idle_scoreboard_ += idle; break;
  }
}

// Scoreboard: the first cycle at or after which the warp may issue its next instruction
// (its operands and in-flight slot, and for a wait the phase, group or store it waits on;
// unknown_cycle while that is not known yet). Completed in-flight entries before t are
// dropped.
std::uint64_t simt_core::engine::ready_time(warp& w, std::uint64_t t) {
  if (w.stack.empty()) return w.ready_at;
  const decoded& d = decoded_[w.stack.back().pc];
  if (p_.inflight == 1 && !d.unit_wait) return w.ready_at;  // (the usual case: the last issue says it all)
  return scoreboard_time(w, d, t);
}

std::uint64_t simt_core::engine::scoreboard_time(warp& w, const decoded& d, std::uint64_t t) {
  std::uint64_t r = w.ready_at;
  if (p_.inflight > 1) {
    // Instructions complete out of order (an add behind a load): drop every completed one.
    w.inflight.erase(std::remove_if(w.inflight.begin(), w.inflight.end(), [t](std::uint64_t c) { return c <= t; }),
                     w.inflight.end());
    if (w.inflight.size() >= p_.inflight) r = std::max(r, *std::min_element(w.inflight.begin(), w.inflight.end()));
    // Exactly the registers the instruction reads (RAW) and writes (WAW: a result still
    // in flight must not land after this one). Operands are read at issue, so a later
    // write never overtakes an earlier read (no WAR); the wgmma accumulators, read when
    // the MMA runs, are left alone until wgmma.wait_group by the ISA.
    const simt::reg_set& read = d.reads;
    const simt::reg_set& written = d.writes;
    read.for_each([&](unsigned x) { r = std::max(r, w.reg_ready[x]); });
    written.for_each([&](unsigned x) { r = std::max(r, w.reg_ready[x]); });
    for (unsigned m = read.preds | written.preds; m; m &= m - 1)
      r = std::max(r, w.pred_ready[static_cast<unsigned>(__builtin_ctz(m))]);
  }
  if (!d.unit_wait) return r;
  const auto& in = kernel_.code[w.stack.back().pc];
  if (in.code == op::mbar_wait || in.code == op::wgmma_wait)
    r = std::max(r, simt::async_ready(w, blocks_[w.block], in, w.guarded(w.active(), in, p_.warp_size),
                                      gmma_unit()));
  if (in.code == op::tma_wait && w.tma_last_store) {  // its stores' completion, once known
    const std::uint64_t done = tma->store_done(w.tma_last_store);
    r = std::max(r, done == tma_if::unknown_store ? unknown_cycle : done);
  }
  return r;
}

// Whether the warp's next instruction waits on the asynchronous units (a barrier phase, a
// wgmma group, its TMA stores): their news does not come through touch, so the issue loop
// asks ready_time again at every decision.
bool simt_core::engine::waits_on_units(const warp& w) const {
  return !w.stack.empty() && decoded_[w.stack.back().pc].unit_wait;
}

// Every change to a warp's state that its readiness depends on comes through here.
void simt_core::engine::touch(warp& w) {
  if (!w.dirty) {
    w.dirty = true;
    dirty_.push_back(w.slot);
  }
}

// The scheduler's view of every slot at cycle t, kept up to date from the changes: a warp
// touched since it was last looked at (or waiting on the asynchronous units) is asked
// again, and its view holds the first cycle it may issue at until it changes. A view is
// ready at t when its warp is live, not at a barrier and its scoreboard allows an issue at
// t.
void simt_core::engine::refresh_views(std::uint64_t t) {
  refresh_.swap(dirty_);
  dirty_.clear();
  for (const int s : refresh_) {
    warp& w = *warps_[static_cast<std::size_t>(s)];
    warp_view& v = views_[static_cast<std::size_t>(s)];
    w.dirty = false;
    v.present = w.live;
    v.age = w.age;
    v.ready_at = warp_view::never;
    if (!w.live || w.at_barrier) continue;
    // (With several instructions in flight, ready_time also drops the entries completed by
    // t: a ready cycle computed now is the one a later call would give while it is ahead.)
    v.ready_at = ready_time(w, t);  // (unknown_cycle: never, until touched)
    if (units_->split && !w.stack.empty())  // and not before its unit's lanes are free
      v.ready_at = std::max(v.ready_at, sp_[sub_of(s)]->unit_free(decoded_[w.stack.back().pc].unit));
    if (waits_on_units(w)) {  // asked again next time
      w.dirty = true;
      dirty_.push_back(s);
    }
  }
}

// No sub-partition could issue at cycle t: move t to the next cycle one can (counting each
// sub-partition's idle cycles by the cause of its first warp to become ready), or wait in
// simulated time for the responses and unit progress that decide it. False when nothing
// can ever issue again (the deadlock is reported in fault_).
bool simt_core::engine::idle(std::uint64_t& t, bool async_in_progress) {
  // The next cycle a sub-partition can issue at, as the slots' views say at t: the earliest
  // of its live warps' ready cycles, not before its dispatch is free; and the first warp of
  // those with the earliest (a ready one not picked, one ready later, or one waiting on the
  // asynchronous units, asked at t).
  std::uint64_t next = warp_view::never;
  const warp* first = nullptr;
  for (std::size_t s = 0; s < views_.size(); ++s) {
    const std::uint64_t at = std::max(views_[s].ready_at, sp_[sub_of(static_cast<int>(s))]->dispatch_free());
    if (views_[s].ready_at != warp_view::never && at < next) {
      next = at;
      first = warps_[s].get();
    }
  }
  // A memory access not answered yet completes at the earliest lat_lsu cycles after the
  // current one: when that could come before the next known cycle, learn it first.
  if (lsu_->in_flight() && (!first || next >= memory_horizon())) {
    wait_memory(first ? next : unknown_cycle);
    return true;
  }
  if (async_in_progress && (!first || next > t)) {  // wait for the next known cycle or for news
    wait_async(first ? next : std::numeric_limits<std::uint64_t>::max());
    const std::uint64_t now = std::max(t, to_cycles_ceil(now_));
    count_idle_span(t, now, true);
    t = now;
    return true;
  }
  if (!first) {
    fault_ = simt::blocked_report(kernel_, blocks_, warps_, p_.warp_size, gmma_unit());
    return false;
  }
  if (next <= t) {  // ready, but the scheduler may not pick it this cycle (two-level set)
    count_idle_span(t, t + 1, false);
    t = t + 1;
    return true;
  }
  count_idle_span(t, next, false);
  t = next;
  return true;
}

// The idle cycles of every sub-partition holding live warps from cycle `from` (or from when
// its dispatch is free) to `to`, by the cause of its first warp to become ready: a ready one
// the scheduler did not pick or whose unit is busy (structural), else what it waits on; over
// a wait for the asynchronous units (async_span), a warp waiting on them unless that first
// warp is ready by `to`.
void simt_core::engine::count_idle_span(std::uint64_t from, std::uint64_t to, bool async_span) {
  for (unsigned k = 0; k < p_.sub_partitions; ++k) {
    const std::uint64_t start = std::max(from, sp_[k]->dispatch_free());
    if (to <= start) continue;
    const warp* first = nullptr;
    const warp* waiting = nullptr;  // on the asynchronous units
    bool live = false;
    std::uint64_t ready = warp_view::never;
    for (std::size_t s = k; s < views_.size(); s += p_.sub_partitions) {
      const warp& w = *warps_[s];
      if (!w.live) continue;
      live = true;
      if (!waiting && !w.at_barrier && w.why == warp::wait::async) waiting = &w;
      if (views_[s].ready_at < ready) {
        ready = views_[s].ready_at;
        first = &w;
      }
    }
    if (!live) continue;
    if (first && (ready <= start || waits_for_unit(*first, ready))) {
      idle_structural_ += to - start;
      continue;
    }
    if (async_span) count_idle(first && ready <= to ? first : waiting, to - start);
    else count_idle(first ? first : waiting, to - start);
  }
}

// The core's pipeline, a cycle at a time: synchronise with the simulated time the decision
// at cycle t depends on, offer the cycle to each sub-partition in turn, whose scheduler picks
// a ready warp (scoreboard) and issues its instruction to the unit, and when none can issue
// at t move to the next cycle one can (or stay idle until then); keep within the quantum of
// simulated time.
void simt_core::engine::finish() {
  if (!hazards_) return;
  hazard_accesses_ += hazards_->hazards() - hazard_accesses_.value();
  hazard_pairs_ += hazards_->distinct() - hazard_pairs_.value();
}

std::string simt_core::engine::hazard_report() const {
  if (!hazards_ || hazards_->hazards() == 0) return {};
  std::string s = std::to_string(hazards_->hazards()) + " accesses not ordered after a conflicting access, in " +
                  std::to_string(hazards_->distinct()) + " distinct pairs of instructions";
  for (const auto& r : hazards_->reports()) s += "\n  hazard: " + r;
  if (hazards_->distinct() > hazards_->reports().size())
    s += "\n  (" + std::to_string(hazards_->distinct() - hazards_->reports().size()) + " more pairs not shown)";
  return s;
}

void simt_core::engine::run() {
  if (!loaded_) return;
  if (hazard_check_) hazards_ = std::make_unique<simt::hazard_checker>(kernel_);
  lsu_->check_hazards(hazards_.get());
  for (unsigned k = 0; k < p_.sub_partitions; ++k) sp_[k]->start_collector(p_.operand_banks, p_.operand_bank_width, rf_of(k));
  now_ = flynn::sim_now();
  now_cycle_ = to_cycles(now_);
  launch_blocks(0);
  std::uint64_t t = 0;
  unsigned k = 0;  // the next sub-partition to offer cycle t
  while (fault_.empty() && !launcher_->grid_done()) {
    // While copies or MMAs are in progress their results (barrier phases, completions) become
    // known in simulated time, each for a cycle after the one it is learnt at: the core then
    // decides at simulated time instead of running ahead on a guess.
    const bool pending = async_pending();
    if (pending || now_cycle_ < registers_land_until_) pause_until(t);
    sync_for_memory(t);
    refresh_views(t);
    int s = -1;
    for (; k < p_.sub_partitions; ++k)
      if (sp_[k]->dispatch_free() <= t && (s = sp_[k]->scheduler().pick(views_, t)) >= 0) break;
    if (s < 0) {
      k = 0;
      if (!idle(t, pending)) break;
      continue;
    }
    if (warp_instr_.value() >= p_.max_instructions) {
      set_fault(*warps_[static_cast<std::size_t>(s)], 0,
                "runaway kernel: more than " + std::to_string(p_.max_instructions) + " warp instructions");
      break;
    }
    issue(form_warp(*warps_[static_cast<std::size_t>(s)], t), t);
    if (++k < p_.sub_partitions) continue;  // the next sub-partition, at the same cycle
    // Every sub-partition was offered cycle t: when every dispatch is busy, the next cycle
    // is the first one is free (no idle cycle); else the idle path decides.
    k = 0;
    std::uint64_t free = warp_view::never;
    for (const auto& sub : sp_) free = std::min(free, sub->dispatch_free());
    if (free <= t) {
      k = p_.sub_partitions;  // (cycle t is over: straight to the idle path)
      continue;
    }
    t = free;
    if (t > now_cycle_ + p_.quantum) pause(to_time(t) - now_);
  }
  end_ = std::max(end_, t);
  while (lsu_->in_flight()) pause(lsu_->news());
  while (async_pending()) wait_async(std::numeric_limits<std::uint64_t>::max());
  if (tma.size()) end_ = std::max(end_, tma->busy_until());  // copies still landing
  pause_until(end_);
  if (!fault_.empty()) {
    fault(fault_);
    return;
  }
  done_ = true;
  if (debugging(debug_sched))
    debug(debug_sched, end_,
          std::to_string(launch_.grid) + " blocks finished, " + std::to_string(warp_instr_.value()) +
              " warp instructions");
  log(sc_core::SC_HIGH, std::to_string(launch_.grid) + " blocks finished at cycle " + std::to_string(end_) + ", " +
                              std::to_string(warp_instr_.value()) + " warp instructions");
}

void simt_core::engine::attach_trace(trace_sink& sink) {
  if (sink.wants_timeline()) timeline_ = &sink;
  for (auto& sub : sp_) sub->attach_trace(sink, name());
  lsu_->transactions_trace().attach(&sink, name(), "lsu_transactions", 8);
  warp_state_.resize(warps_.size());
  for (std::size_t s = 0; s < warps_.size(); ++s)
    warp_state_[s].attach(&sink, name(), "warp" + std::to_string(s) + "_state", 2);
  if (async_kernel_) mbar_tracer_->attach(sink, name(), 8, clock_period());  // the first 8 mbarriers block slot 0 initialises
}

}  // namespace flynn

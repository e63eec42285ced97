// The SIMT core's side of its load/store unit: a warp access's completion on the
// scoreboard, and the issue loop's synchronisation with simulated time (it runs ahead of
// it only as far as no response could change a decision).
#include <algorithm>

#include "flynn/simt/simt_core.h"
#include "core_engine.h"
#include "lsu_link.h"
#include "sub_partition.h"

namespace flynn {

tlm::tlm_sync_enum simt_core::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                              sc_core::sc_time& delay) {
  return e_->lsu_->transport_bw(gp, ph, delay);
}

// A warp access's last response is in: a load's data is written back through the
// sub-partition's register file (where bound) and its registers become ready then; a
// failure is the warp's fault.
std::uint64_t simt_core::engine::access_done(const simt::memory_op& mo) {
  warp& w = *mo.w;
  const simt::instr& in = *mo.in;
  const bool store = in.code == simt::op::st;
  const bool same_warp = w.generation == mo.generation;
  const std::uint64_t done = store || !same_warp || !w.live ? mo.done + p_.lat_lsu
                                                            : sp_[sub_of(w.slot)]->write_back(decoded_[mo.pc].writes, mo.done + p_.lat_lsu);
  if (!mo.failure.empty()) {
    set_fault(mo.block, mo.warp_index, mo.failed_lane, mo.pc, mo.failure);
  } else if (same_warp && w.live) {
    touch(w);
    if (!store) decoded_[mo.pc].writes.for_each([&](unsigned x) { w.reg_ready[x] = done; });
    if (p_.inflight > 1) {
      // The instruction's in-flight slot: a load's until it completes, a store's until it
      // leaves the load/store unit (posted write) or completes, whichever is first.
      const std::uint64_t held = store ? mo.slot_bound : unknown_cycle;
      const auto slot = std::find(w.inflight.begin(), w.inflight.end(), held);
      if (slot != w.inflight.end()) *slot = store ? std::min(done, mo.slot_bound) : done;
    } else {
      w.ready_at = done;
    }
    if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(done), 1);
  }
  end_ = std::max(end_, done);
  return done;
}

// The first cycle at which a memory access not answered yet could make its warp ready.
std::uint64_t simt_core::engine::memory_horizon() { return lsu_->horizon(now_cycle_, settled_at_ == now_); }
void simt_core::engine::forget_memory_horizon() { lsu_->forget_horizon(); }

// Decisions at cycle t depend on the memory accesses in flight only once t reaches the
// horizon: until then the core may run ahead of simulated time, after it waits for the
// responses. (With lat_lsu 0 it decides at the cycle itself, a delta cycle after the
// responses due then have come.)
void simt_core::engine::sync_for_memory(std::uint64_t t) {
  while (lsu_->in_flight() && t >= memory_horizon()) {
    const sc_core::sc_time now = now_;
    if (p_.lat_lsu == 0 && to_time(t) == now) {
      pause(sc_core::SC_ZERO_TIME);
      settled_at_ = now;
      continue;
    }
    pause(to_time(p_.lat_lsu ? t + 1 - p_.lat_lsu : t) - now, lsu_->news());
  }
}

// Waits until the accesses in flight could no longer come before `next` (unknown_cycle:
// none known), or for a response or other news.
void simt_core::engine::wait_memory(std::uint64_t next) {
  sc_core::sc_event_or_list news;
  news |= lsu_->news();
  if (gmma.size() && gmma->in_progress()) news |= gmma->progress_event();
  if (tma.size() && tma->in_progress()) news |= tma->progress_event();
  const sc_core::sc_time now = now_;
  if (next == unknown_cycle) {
    pause(news);
    return;
  }
  const std::uint64_t target = p_.lat_lsu ? next + 1 - p_.lat_lsu : next;
  if (to_time(target) > now) {
    pause(to_time(target) - now, news);
  } else {  // lat_lsu 0, `next` is now: the responses due now come within a delta cycle
    pause(sc_core::SC_ZERO_TIME);
    settled_at_ = now;
  }
}

}  // namespace flynn

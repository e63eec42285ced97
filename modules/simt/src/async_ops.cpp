#include "async_ops.h"

#include <algorithm>

#include "flynn/common/format.h"

namespace flynn::simt {

void mbarrier_tracer::attach(trace_sink& sink, const std::string& scope, unsigned barriers,
                             const sc_core::sc_time& clock) {
  clock_ = clock;
  signals_.resize(3 * std::size_t(barriers));
  for (unsigned k = 0; k < barriers; ++k) {
    const std::string n = "mbar" + std::to_string(k);
    signals_[3 * k].attach(&sink, scope, n + "_phase", 8);
    signals_[3 * k + 1].attach(&sink, scope, n + "_pending_arrivals", 16);
    signals_[3 * k + 2].attach(&sink, scope, n + "_pending_bytes", 32);
  }
}

void mbarrier_tracer::watch(std::uint64_t addr, tx_barrier& b, std::uint64_t t) {
  auto it = std::find(traced_.begin(), traced_.end(), addr);
  if (it == traced_.end() && traced_.size() < signals_.size() / 3) {
    traced_.push_back(addr);
    it = std::prev(traced_.end());
  }
  if (it == traced_.end()) return;
  trace_signal* sig = &signals_[3 * static_cast<std::size_t>(it - traced_.begin())];
  const sc_core::sc_time clock = clock_;
  auto show = [sig, &b, clock](std::uint64_t at) {
    const sc_core::sc_time when = clock * static_cast<double>(at);
    sig[0].set(when, b.phase());
    sig[1].set(when, b.pending_arrivals());
    sig[2].set(when, static_cast<std::uint64_t>(b.pending_bytes()) & 0xffffffffu);
  };
  show(t);
  b.on_change(show);
}

namespace {

std::string bad_mbarrier_address(std::uint64_t addr, std::uint64_t shared_bytes) {
  return "mbarrier address " + hex(addr) + ": expected an 8-byte aligned shared address below " +
         std::to_string(shared_bytes);
}

// The mbarrier at [ra + imm] of lane l, or the lane's error.
tx_barrier* find_mbarrier(const warp& w, block_slot& b, unsigned l, unsigned ra, std::int64_t imm,
                          std::uint64_t shared_bytes, std::uint64_t& addr, std::optional<lane_error>& err) {
  addr = static_cast<std::uint32_t>(w.reg(l, ra) + static_cast<std::uint32_t>(imm));
  if (addr % 8 || addr + 8 > shared_bytes) {
    err = lane_error{l, bad_mbarrier_address(addr, shared_bytes)};
    return nullptr;
  }
  auto it = b.mbarriers.find(addr);
  if (it == b.mbarriers.end()) {
    err = lane_error{l, "no mbarrier initialised at shared address " + hex(addr)};
    return nullptr;
  }
  return &it->second;
}

template <class F>
std::optional<lane_error> for_lanes(std::uint32_t lanes, unsigned warp_size, F f) {
  for (unsigned l = 0; l < warp_size; ++l) {
    if (!((lanes >> l) & 1)) continue;
    if (auto e = f(l)) return e;
  }
  return std::nullopt;
}

lane_error box_outside(unsigned l, const char* what, std::uint64_t at, const tensor_descriptor& d,
                       std::uint64_t shared_bytes) {
  return {l, std::string(what) + " " + hex(at) + " + " + std::to_string(d.box_bytes()) + " bytes: outside the block's " +
                 std::to_string(shared_bytes) + " bytes of shared memory"};
}

std::array<std::int64_t, 5> coordinates(const warp& w, unsigned l, const instr& in, unsigned rank) {
  std::array<std::int64_t, 5> c{};
  for (unsigned k = 0; k < rank; ++k) c[k] = static_cast<std::int32_t>(w.reg(l, coordinate_register(in, k)));
  return c;
}

std::optional<lane_error> issue_wgmma(warp& w, block_slot& b, const instr& in, std::uint32_t lanes, std::uint64_t t,
                                      const async_context& cx, async_counters& n) {
  if ((lanes & ~w.exited) != 0xffffffffu || w.threads != 32)
    return lane_error{0, "wgmma needs all 32 threads of the warp active (active mask " + hex(lanes) + ")"};
  wgmma_request r;
  r.n = in.mma_n;
  r.type = in.mma_type;
  r.b_type = in.mma_b_type;
  r.a_in_registers = in.mma_a_regs;
  if (in.mma_scale_pred) {  // scale-d from a predicate: one value for the warp
    const std::uint32_t p = w.p[in.rc & 7u] & lanes;
    if (p != 0 && p != lanes)
      return lane_error{0, "wgmma scale-d predicate differs across the warp (lanes " + hex(p) + " of " + hex(lanes) + ")"};
    r.accumulate = p != 0;
  } else {
    r.accumulate = in.imm != 0;
  }
  r.a_desc = in.mma_a_regs ? 0 : (std::uint64_t(w.reg(0, in.ra + 1)) << 32 | w.reg(0, in.ra));
  r.b_desc = std::uint64_t(w.reg(0, in.rb + 1)) << 32 | w.reg(0, in.rb);
  r.group = w.block * 64 + w.index / 4;
  r.warp_in_group = w.index % 4;
  r.register_stride = warp::lane_slots;
  for (unsigned l = 0; l < 32; ++l) {
    r.lanes[l] = &w.reg(l, 0);
    for (unsigned i = 0; i < 4 && in.mma_a_regs; ++i) r.a_frag[l][i] = w.reg(l, in.ra + i);
  }
  r.acc_reg = in.rd;
  r.a_reg = in.ra;
  r.wait_kind = w.wait_kind;
  r.wait_from = w.wait_from;
  r.wait_to = w.wait_to;
  r.smem_base = b.shared_base;
  r.smem_bytes = cx.launch.shared_bytes;
  r.where = "block " + std::to_string(b.id) + " warp " + std::to_string(w.index) + " PC " +
            std::to_string(w.stack.back().pc) + " (line " + std::to_string(in.line) + ": " + in.text + ")";
  if (cx.hazards)
    cx.hazards->wgmma(w.block, w.index, w.stack.back().pc, t, r.a_desc, r.b_desc, in.mma_n, in.mma_a_regs, in.rd,
                      in.mma_n / 2u, in.ra);
  std::uint64_t id = 0;
  const std::string e = cx.gmma->issue(r, t, id);
  if (!e.empty()) return lane_error{0, e};
  w.wgmma_open.push_back(id);
  ++n.wgmma_issued;
  return std::nullopt;
}

}  // namespace

std::optional<lane_error> execute_async(warp& w, block_slot& b, const instr& in, std::uint32_t active, std::uint64_t t,
                                        const async_context& cx, async_counters& n, mbarrier_tracer* tracer) {
  const std::uint32_t lanes = in.code == op::wgmma ? active : w.guarded(active, in, cx.warp_size);
  const std::uint64_t shared_bytes = cx.launch.shared_bytes;
  auto value_b = [&](unsigned l) { return in.b_imm ? in.imm_b : w.reg(l, in.rb); };
  std::optional<lane_error> err;
  std::uint64_t addr = 0;
  switch (in.code) {
    case op::mbar_init:
      return for_lanes(lanes, cx.warp_size, [&](unsigned l) -> std::optional<lane_error> {
        addr = w.address(l, in);
        if (addr % 8 || addr + 8 > shared_bytes) return lane_error{l, bad_mbarrier_address(addr, shared_bytes)};
        const std::uint32_t count = value_b(l);
        if (count == 0 || count > (1u << 20))
          return lane_error{l, "mbarrier.init count " + std::to_string(count) + ": expected 1 .. 1048576"};
        tx_barrier& bar = b.mbarriers.insert_or_assign(addr, tx_barrier(count)).first->second;
        if (hazard_checker* hz = cx.hazards) {
          hz->mbarrier_init(w.block, addr);
          const unsigned slot = w.block;
          const std::uint64_t at = addr;
          bar.on_phase([hz, slot, at, &bar](unsigned phase) { hz->mbarrier_phase_completed(slot, at, phase, bar.completed_at()); });
        }
        ++n.mbarrier_ops;
        if (tracer && tracer->enabled() && w.block == 0) tracer->watch(addr, bar, t);
        return std::nullopt;
      });
    case op::mbar_arrive:
    case op::mbar_arrive_tx: {
      auto failed = for_lanes(lanes, cx.warp_size, [&](unsigned l) -> std::optional<lane_error> {
        tx_barrier* bar = find_mbarrier(w, b, l, in.ra, in.imm, shared_bytes, addr, err);
        if (!bar) return err;
        if (cx.hazards) cx.hazards->mbarrier_arrive(w.block, w.index, addr);  // (before it may complete the phase)
        const std::string e = in.code == op::mbar_arrive ? bar->arrive(1, t) : bar->arrive_expect_tx(value_b(l), t);
        if (!e.empty()) return lane_error{l, "mbarrier at " + hex(addr) + ": " + e};
        ++n.mbarrier_ops;
        return std::nullopt;
      });
      if (cx.hazards && lanes) cx.hazards->release_warp(w.block, w.index);  // what it does next is after the arrival
      return failed;
    }
    case op::mbar_wait:  // async_ready let it issue: every phase it waits for has completed
      if (auto e = for_lanes(lanes, cx.warp_size, [&](unsigned l) -> std::optional<lane_error> {
            if (!find_mbarrier(w, b, l, in.ra, in.imm, shared_bytes, addr, err)) return err;
            if (cx.hazards) cx.hazards->mbarrier_wait(w.block, w.index, addr);
            ++n.mbarrier_ops;
            return std::nullopt;
          }))
        return e;
      if (in.pd != no_pred) w.p[in.pd & 7u] |= lanes;  // (try_wait.parity: the phase completed)
      return std::nullopt;
    case op::tma_load:
      return for_lanes(lanes, cx.warp_size, [&](unsigned l) -> std::optional<lane_error> {
        const tensor_descriptor& d = cx.launch.tensor_maps[in.rd];
        const std::uint64_t dst = w.address(l, in);
        if (dst + d.box_bytes() > shared_bytes) return box_outside(l, "tma.load destination", dst, d, shared_bytes);
        tx_barrier* bar = find_mbarrier(w, b, l, in.rb, 0, shared_bytes, addr, err);
        if (!bar) return err;
        if (cx.hazards) cx.hazards->tma_load(w.block, w.index, w.stack.back().pc, t, dst, d.box_bytes(), addr);
        const std::string e = cx.tma->load(d, coordinates(w, l, in, d.rank), b.shared_base + dst, *bar, t + cx.lat_lsu);
        if (!e.empty()) return lane_error{l, "tma.load: " + e};
        ++n.tma_loads;
        bar->when_phase_completes([&n, t](std::uint64_t done) {  // the copy's round trip: issue to its phase
          ++n.tma_trips;
          n.tma_trip_cycles += done > t ? done - t : 0;
        });
        return std::nullopt;
      });
    case op::tma_store:
      return for_lanes(lanes, cx.warp_size, [&](unsigned l) -> std::optional<lane_error> {
        const tensor_descriptor& d = cx.launch.tensor_maps[in.rd];
        const std::uint64_t src = w.address(l, in);
        if (src + d.box_bytes() > shared_bytes) return box_outside(l, "tma.store source", src, d, shared_bytes);
        if (cx.hazards) cx.hazards->tma_store(w.block, w.index, w.stack.back().pc, t, src, d.box_bytes());
        std::uint64_t id = 0;
        const std::string e = cx.tma->store(d, coordinates(w, l, in, d.rank), b.shared_base + src, t + cx.lat_lsu, id);
        if (!e.empty()) return lane_error{l, "tma.store: " + e};
        w.tma_last_store = id;  // the loader finishes its stores in order
        ++n.tma_stores;
        return std::nullopt;
      });
    case op::wgmma: {  // a guard holds for the whole warp or for none of it (then nothing issues)
      const std::uint32_t on = w.guarded(active, in, cx.warp_size);
      if (on == 0 && in.guard != no_pred) return std::nullopt;
      if (on != active)
        return lane_error{0, "wgmma guard predicate differs across the warp (lanes " + hex(on) + " of " + hex(active) + ")"};
      return issue_wgmma(w, b, in, lanes, t, cx, n);
    }
    case op::wgmma_commit:
      w.wgmma_groups.push_back(std::move(w.wgmma_open));
      w.wgmma_open.clear();
      if (cx.hazards) cx.hazards->wgmma_commit(w.block, w.index);
      return std::nullopt;
    case op::wgmma_wait: {
      const auto keep = static_cast<std::size_t>(in.imm);
      if (w.wgmma_groups.size() > keep)
        w.wgmma_groups.erase(w.wgmma_groups.begin(), w.wgmma_groups.end() - static_cast<std::ptrdiff_t>(keep));
      if (cx.hazards) cx.hazards->wgmma_wait(w.block, w.index, static_cast<unsigned>(keep));
      return std::nullopt;
    }
    default:  // tma.wait: async_ready let it issue, the warp's stores have completed
      if (cx.hazards) cx.hazards->tma_wait(w.block, w.index);
      return std::nullopt;
  }
}

std::uint64_t async_ready(const warp& w, const block_slot& b, const instr& in, std::uint32_t lanes, const gmma_if* gmma) {
  std::uint64_t r = 0;
  if (in.code == op::mbar_wait) {
    for (unsigned l = 0; l < 32; ++l) {
      if (!((lanes >> l) & 1)) continue;
      auto it = b.mbarriers.find(w.address(l, in));
      if (it == b.mbarriers.end()) return 0;  // executes now and faults
      const unsigned parity = (in.b_imm ? in.imm_b : w.reg(l, in.rb)) & 1u;
      if (!it->second.try_wait(parity)) return unknown;
      r = std::max(r, it->second.completed_at());
    }
    return r;
  }
  // wgmma.wait_group N: every committed group but the newest N has completed.
  const auto keep = static_cast<std::size_t>(in.imm);
  if (w.wgmma_groups.size() <= keep) return 0;
  for (std::size_t g = 0; g + keep < w.wgmma_groups.size(); ++g)
    for (std::uint64_t id : w.wgmma_groups[g]) {
      std::uint64_t c = 0;
      if (!gmma->completion(id, c)) return unknown;
      r = std::max(r, c);
    }
  return r;
}

std::string async_wait_blocked(const warp& w, const block_slot& b, const instr& in, std::uint32_t lanes) {
  if (in.code == op::wgmma_wait) return "waits for wgmma groups that never complete";
  if (in.code != op::mbar_wait) return {};
  for (unsigned l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    const std::uint64_t addr = w.address(l, in);
    auto it = b.mbarriers.find(addr);
    if (it == b.mbarriers.end()) continue;
    const unsigned parity = (in.b_imm ? in.imm_b : w.reg(l, in.rb)) & 1u;
    const tx_barrier& bar = it->second;
    return "waits on the mbarrier at shared " + hex(addr) + " for the phase of parity " + std::to_string(parity) +
           ", which never completes (phase " + std::to_string(bar.phase()) + ": " + std::to_string(bar.pending_arrivals()) +
           " of " + std::to_string(bar.expected_arrivals()) + " arrivals and " + std::to_string(bar.pending_bytes()) +
           " bytes pending)";
  }
  return {};
}

}  // namespace flynn::simt

// The SIMT core: its parts put together, and the issue of a warp instruction (branch and
// reconvergence, barrier, exit here; ALU instructions go to the ALU stage, memory
// instructions to the load/store unit, asynchronous ones to async_ops). The main loop that
// picks the warps is in issue_loop.cpp.
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

simt_core::simt_core(const sc_core::sc_module_name& name, const params& p)
    : module(name, p.clock_ns), global("global"), shared("shared"), gmma("gmma"), tma("tma"), p_(p) {
  throw_if_invalid("simt_core", p_.check());
  global.bind(*this);
  shared.bind(*this);
  for (unsigned k = 0; k < p_.sub_partitions; ++k) rf.push_back(std::make_unique<rf_port>(("rf" + std::to_string(k)).c_str()));
  e_ = std::make_unique<engine>(*this);
  SC_HAS_PROCESS(simt_core);
  SC_THREAD(run);
}

simt_core::~simt_core() = default;

void simt_core::run() { e_->run(); }
void simt_core::load(const simt::kernel& k, const simt_launch& l) { e_->load(k, l); }
void simt_core::load_program(const core_program& p) { e_->load_program(p); }
bool simt_core::has_program() const { return e_->loaded_; }
void simt_core::check_hazards(bool on) { e_->hazard_check_ = on; }
std::uint64_t simt_core::thread_instructions() const { return e_->thread_instr_.value(); }
std::uint64_t simt_core::thread_count_digest() const { return e_->thread_digest_; }
core_counts simt_core::counts() const { return e_->counts(); }
std::string simt_core::pending_work() const { return e_->pending_work(); }
void simt_core::attach_trace(trace_sink& sink) { e_->attach_trace(sink); }
std::string simt_core::hazard_report() const { return e_->hazard_report(); }
void simt_core::finish() { e_->finish(); }

simt_core::engine::engine(simt_core& core)
    : core_(core), p_(core.p_), global(core.global), shared(core.shared), gmma(core.gmma), tma(core.tma), rf(core.rf),
      stats_(core.stats_),
      lsu_link_(std::make_unique<lsu_link>(*this)),
      lsu_(std::make_unique<simt::load_store_unit>(
          core_, *lsu_link_,
          simt::load_store_unit::config{p_.warp_size, p_.lat_alu, p_.lat_lsu, p_.segment_bytes}, global, shared)),
      async_n_(std::make_unique<simt::async_counters>()),
      lsu_n_(lsu_->counts()) {
  for (unsigned k = 0; k < p_.sub_partitions; ++k)
    sp_.push_back(std::make_unique<simt::sub_partition>(k, p_.sub_partitions, make_scheduler(p_.scheduler, p_.active_warps),
                                                        operand_conflict_cycles_));
  units_ = std::make_unique<simt::dispatch_units>(p_.warp_size, p_.lanes, p_.sfu_lanes, p_.lsu_lanes);
  for (unsigned s = 0; s < p_.max_warps; ++s) {
    warps_.push_back(std::make_unique<warp>());
    warps_.back()->slot = static_cast<int>(s);
  }
  per_warp_.resize(p_.max_warps);
  views_.resize(p_.max_warps);
  group_.reserve(p_.max_warps);
  group_.resize(1);
  active_hist_.resize(p_.warp_size + 1);
  launcher_ = std::make_unique<simt::block_launcher>(blocks_);
  mbar_tracer_ = std::make_unique<simt::mbarrier_tracer>();
}

simt_core::engine::~engine() = default;

core_counts simt_core::engine::counts() const { return {warp_instr_.value(), thread_instr_.value(), thread_digest_}; }

// ---------------------------------------------------------------------------- execution

void simt_core::engine::branch(warp& w, const simt::instr& in, std::uint32_t mask) {
  auto& top = w.stack.back();
  const std::uint32_t pc = top.pc;
  const std::uint32_t taken = w.guarded(mask, in, p_.warp_size);
  if (taken == mask) {
    top.pc = in.target;
  } else if (taken == 0) {
    top.pc = pc + 1;
  } else {  // divergence: both paths run under masks, then reconverge at the ipdom
    ++divergent_branches_;
    const std::uint32_t r = ipdom_[pc];
    top.pc = r;
    w.stack.push_back({pc + 1, r, mask & ~taken});
    w.stack.push_back({in.target, r, taken});
  }
}

void simt_core::engine::arrive_barrier(warp& w, std::uint64_t t) {
  block_slot& bs = blocks_[w.block];
  w.at_barrier = true;
  w.why = warp::wait::barrier;
  ++bs.arrived;
  if (hazards_) hazards_->barrier_arrive(w.block, w.index);
  if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(t), 3);
  if (debugging(debug_barrier))
    debug(debug_barrier, t,
          "bar.sync: warp " + std::to_string(w.slot) + " of block " + std::to_string(bs.id) + " arrives (" +
              std::to_string(bs.arrived) + " of " + std::to_string(bs.warps_left) + " warps)");
  if (bs.arrived < bs.warps_left) return;
  // Every warp of the block is here. bar.sync waits for every thread of the block (PTX ISA,
  // bar.sync): threads that exited, or that took another path of a divergent branch (their
  // warp now waits here without them), never arrive.
  bool all_threads = bs.exited_threads == 0;
  for (int s : bs.warps) {
    const warp& x = *warps_[static_cast<std::size_t>(s)];
    if (x.live && (first_lanes(x.threads) & ~x.exited & ~x.barrier_mask) != 0) all_threads = false;
  }
  if (!all_threads) {
    fault_ = simt::barrier_deadlock(kernel_, blocks_, warps_);
    return;
  }
  bs.arrived = 0;
  if (hazards_) hazards_->barrier_release(w.block);
  const std::uint64_t release = t + p_.lat_branch;
  if (debugging(debug_barrier))
    debug(debug_barrier, t,
          "bar.sync: block " + std::to_string(bs.id) + " released, its warps ready at cycle " + std::to_string(release));
  for (int s : bs.warps) {
    warp& x = *warps_[static_cast<std::size_t>(s)];
    if (!x.live) continue;
    x.at_barrier = false;
    x.ready_at = std::max(x.ready_at, release);
    touch(x);
    if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(s)].set(to_time(release), 1);
  }
}

void simt_core::engine::exit_threads(warp& w, std::uint32_t which, std::uint64_t t) {
  block_slot& bs = blocks_[w.block];
  bs.exited_threads += set_bits(which & ~w.exited);
  w.exited |= which;
  if (w.exited != 0xffffffffu) return;
  w.live = false;
  const auto counts = w.lane_counts();
  for (unsigned l = 0; l < w.threads; ++l)
    thread_digest_ += simt::thread_count_term(bs.id, std::uint64_t(w.index) * p_.warp_size + l, counts[l]);
  scheduler_of(w.slot).retire(w.slot);
  if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(t), 0);
  if (--bs.warps_left == 0) {
    // TMA rows still to land in the block's shared memory would complete on barriers the
    // next block in this slot replaces: a program error, reported as such.
    if (tma.size() && launch_.shared_bytes && tma->writing_to(bs.shared_base, bs.shared_base + launch_.shared_bytes)) {
      fault_ = "block " + std::to_string(bs.id) + " finished at cycle " + std::to_string(t) +
               " while TMA copies into its shared memory were still landing (a tma.load whose barrier it did not wait on)";
      return;
    }
    if (lsu_->shared_in_flight(w.block)) {  // its shared memory is given to the next block once its accesses are over
      bs.draining = true;
      return;
    }
    retire_block(w.block, t);
  } else if (bs.arrived > 0 && bs.arrived >= bs.warps_left) {
    fault_ = simt::barrier_deadlock(kernel_, blocks_, warps_);
  }
}

// The warps that issue with w at cycle t: w alone, or with dynamic warp formation the ready
// warps whose next instruction is at the same PC, when none of their active threads' home
// lanes is taken (the register file is partitioned by lane, so a thread cannot move to
// another lane).
const std::vector<simt::warp*>& simt_core::engine::form_warp(warp& w, std::uint64_t t) {
  if (group_.size() != 1) group_.resize(1);  // (sized at load; merging grows it)
  group_.front() = &w;
  if (p_.divergence == divergence_policy::dwf) merge_warps(group_, t);
  return group_;
}

// Dynamic warp formation: the ready warps that join group (w alone so far) at cycle t.
void simt_core::engine::merge_warps(std::vector<warp*>& group, std::uint64_t t) {
  const warp& w = *group.front();
  const std::uint32_t full = first_lanes(p_.warp_size);
  const std::uint32_t pc = w.stack.back().pc;
  std::uint32_t lanes = w.stack.back().mask & ~w.exited;
  if (lanes == full) return;
  const simt::instr& in = kernel_.code[pc];
  if (in.code == op::bar || simt::is_memory(in.code)) return;  // kept per warp
  for (auto& x : warps_) {
    if (x.get() == &w || !x->live || x->at_barrier || x->stack.empty() || x->stack.back().pc != pc) continue;
    if (ready_time(*x, t) > t) continue;  // its operands and in-flight slot too, as for the picked warp
    const std::uint32_t m = x->stack.back().mask & ~x->exited;
    if (m & lanes) {
      ++dwf_collisions_;
      continue;
    }
    lanes |= m;
    group.push_back(x.get());
    ++dwf_merged_;
    if (lanes == full) break;
  }
}

// Issues the instruction at the top of the group's stacks at cycle t (one warp, or with
// dwf several whose threads occupy distinct lanes) from their sub-partition, whose unit for
// it is then busy for its occupancy, and whose dispatch is busy until the next cycle when
// its units are split (else until the lanes are free).
void simt_core::engine::issue(const std::vector<warp*>& group, std::uint64_t t) {
  const unsigned k = sub_of(group.front()->slot);
  simt::sub_partition& sub = *sp_[k];
  const unsigned unit = decoded_[group.front()->stack.back().pc].unit;
  const std::uint64_t occupancy = units_->occupancy[unit];
  std::uint32_t lanes = 0;
  for (warp* w : group) {
    const std::uint32_t m = w->stack.back().mask & ~w->exited;
    lanes |= m;
    w->count_lanes(m);
  }
  const unsigned active = set_bits(lanes);
  thread_instr_ += active;  // (the group's warps' active threads: their lanes are distinct)
  ++warp_instr_;
  ++active_hist_[active];
  ++per_warp_[static_cast<std::size_t>(group.front()->slot)];
  if (sub.tracing())
    sub.trace_issue(to_time(t), static_cast<unsigned>(group.front()->slot), group.front()->stack.back().pc, lanes, active);
  // The dispatch is busy until the next cycle when the units are split, else until the lanes
  // are free; a warp's slice in the timeline covers its dispatch.
  const std::uint64_t dispatch = units_->split ? 1 : occupancy;
  if (timeline_)
    for (warp* w : group) {
      const auto& in = kernel_.code[w->stack.back().pc];
      const std::string track = "warp slot " + std::to_string(w->slot);
      const bool waits = in.code == op::mbar_wait || in.code == op::wgmma_wait || in.code == op::tma_wait;
      if (waits && t > w->issue_end)
        timeline_->slice(name(), track, std::string("waiting: ") + simt::mnemonic(in.code), to_time(w->issue_end), to_time(t));
      timeline_->slice(name(), track, simt::source_text(in), to_time(t), to_time(t + dispatch));
      w->issue_end = t + dispatch;
    }
  if (debugging(debug_exec))
    for (warp* w : group) {
      const auto& in = kernel_.code[w->stack.back().pc];
      debug(debug_exec, t,
            "warp " + std::to_string(w->slot) + " (block " + std::to_string(blocks_[w->block].id) + ") pc " +
                std::to_string(w->stack.back().pc) + " mask " + hex(w->stack.back().mask & ~w->exited) + " " +
                simt::source_text(in));
    }
  for (warp* w : group) execute(*w, collect_operands(*w, t), occupancy);
  executing_ = nullptr;
  sub.hold_dispatch(t + dispatch);
  if (units_->split && occupancy > 1) hold_unit(k, unit, t + occupancy);
}

// The unit `unit` of sub-partition `sub` is busy until cycle `until`: the warps whose next
// instruction needs it cannot issue before (their views learn it now; a warp whose view is
// refreshed later learns it in refresh_views).
void simt_core::engine::hold_unit(unsigned sub, unsigned unit, std::uint64_t until) {
  sp_[sub]->hold_unit(unit, until);
  for (std::size_t s = sub; s < warps_.size(); s += p_.sub_partitions) {
    const warp& x = *warps_[s];
    if (!x.live || x.stack.empty() || decoded_[x.stack.back().pc].unit != unit) continue;
    warp_view& v = views_[s];
    if (v.ready_at < until) v.ready_at = until;
  }
}

// Whether what keeps w from issuing until `ready` is its unit's lanes.
bool simt_core::engine::waits_for_unit(const warp& w, std::uint64_t ready) const {
  if (!units_->split || w.stack.empty()) return false;
  return sp_[sub_of(w.slot)]->unit_free(decoded_[w.stack.back().pc].unit) == ready;
}

// The operand collector of w's sub-partition (sub_partition::collect). The wgmma
// accumulators and descriptors, and the mma.sync fragments, go through the sub-partitions'
// register files (register_file modules) on the GMMA unit's path.
std::uint64_t simt_core::engine::collect_operands(const warp& w, std::uint64_t t) {
  simt::sub_partition& sub = *sp_[sub_of(w.slot)];
  if (!sub.collects()) return t;
  const std::uint32_t pc = w.stack.back().pc;
  if (kernel_.code[pc].code == op::wgmma || kernel_.code[pc].code == op::mma_sync) return t;
  return sub.collect(decoded_[pc].reads, static_cast<unsigned>(w.slot) / p_.sub_partitions, t);
}

warp_scheduler& simt_core::engine::scheduler_of(int slot) { return sp_[sub_of(slot)]->scheduler(); }

// The instruction at the top of w's stack, for w's active threads; returns its completion.
std::uint64_t simt_core::engine::execute(warp& w, std::uint64_t t, std::uint64_t occupancy) {
  auto& top = w.stack.back();
  const std::uint32_t pc = top.pc;
  const simt::instr& in = kernel_.code[pc];
  const std::uint32_t mask = top.mask & ~w.exited;
  executing_ = &w;  // named by a deadlock report should a transport it sends never return
  executing_pc_ = pc;
  executing_at_ = t;

  std::uint64_t done = t + occupancy + p_.lat_branch;
  bool blocking = true;  // the next PC is known only once this completes
  if (in.code == op::mbar_wait || in.code == op::wgmma_wait || in.code == op::tma_wait) {
    w.wait_from = w.last_issue + 1;
    w.wait_to = t;
    w.wait_kind = in.code == op::mbar_wait ? 1 : in.code == op::wgmma_wait ? 2 : 3;
  }
  w.last_issue = t;
  if (hazards_ && in.code != op::wgmma && hazards_->registers_pending(w.block, w.index))
    hazards_->registers(w.block, w.index, pc, t, decoded_[pc].reads, decoded_[pc].writes);
  switch (in.code) {
    case op::bra:
      branch(w, in, mask);
      w.why = warp::wait::scoreboard;
      break;
    case op::bar:
      top.pc = pc + 1;
      w.barrier_pc = pc;
      w.barrier_mask = mask;
      arrive_barrier(w, t);
      break;
    case op::exit: {
      top.pc = pc + 1;
      exit_threads(w, w.guarded(mask, in, p_.warp_size), t);
      w.why = warp::wait::scoreboard;
      break;
    }
    case op::mbar_init: case op::mbar_arrive: case op::mbar_arrive_tx: case op::mbar_wait: case op::tma_load:
    case op::tma_store: case op::tma_wait: case op::wgmma: case op::wgmma_commit: case op::wgmma_wait: {
      const simt::async_context cx{launch_, p_.warp_size, p_.lat_lsu, tma_unit(), gmma_unit(), hazards_.get()};
      const auto err = simt::execute_async(w, blocks_[w.block], in, mask, t, cx, *async_n_, mbar_tracer_.get());
      if (debugging(debug_barrier) && (in.code == op::mbar_init || in.code == op::mbar_arrive ||
                                       in.code == op::mbar_arrive_tx || in.code == op::mbar_wait))
        debug(debug_barrier, t,
              std::string(simt::mnemonic(in.code)) + ": warp " + std::to_string(w.slot) + " of block " +
                  std::to_string(blocks_[w.block].id) + " lanes " + hex(mask) +
                  (in.code == op::mbar_wait ? ": the phase it waits for has completed" : ""));
      if (err) set_fault(w, err->lane, err->what);
      done = (err ? t : t + p_.lat_alu) + occupancy;
      top.pc = pc + 1;
      w.why = warp::wait::async;
      blocking = in.code == op::mbar_wait || in.code == op::wgmma_wait || in.code == op::tma_wait;
      if (in.code == op::wgmma_wait)  // the groups it waited for have landed by t: read them at simulated time
        registers_land_until_ = std::max(registers_land_until_, t + 1);
      break;
    }
    case op::mma_sync:
      done = execute_mma_sync(w, in, mask, t) + occupancy;
      registers_land_until_ = std::max(registers_land_until_, done);
      top.pc = pc + 1;
      w.why = warp::wait::scoreboard;
      blocking = false;
      break;
    case op::ld:
    case op::st:
    case op::atom:
      // The completion is learnt when the memory responds (unknown_cycle until then): the
      // scoreboard entries below hold unknown_cycle, and complete_memory fills them in.
      done = lsu_->execute(w, in, mask, t, occupancy);
      top.pc = pc + 1;
      w.why = warp::wait::memory;
      blocking = false;
      if (!warp_state_.empty()) {  // waiting on memory until the access completes
        warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(t), 2);
        if (done != unknown_cycle) warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(done), 1);
      }
      break;
    default:
      done = sp_[sub_of(w.slot)]->write_back(decoded_[pc].writes, t + occupancy + execute_alu(w, in, mask));
      top.pc = pc + 1;
      w.why = warp::wait::scoreboard;
      blocking = false;
      break;
  }
  // Reconvergence: pop entries that reached their reconvergence PC or lost all threads.
  while (!w.stack.empty() && (w.stack.back().pc == w.stack.back().rpc || (w.stack.back().mask & ~w.exited) == 0))
    w.stack.pop_back();
  if (w.live && w.stack.empty()) exit_threads(w, 0xffffffffu, t);  // ran past the end
  if (done != unknown_cycle) end_ = std::max(end_, done);
  // Scoreboard: every register the instruction writes is ready at `done`. (The wgmma
  // accumulators are written when the MMA completes: wgmma.wait_group covers them.)
  if (!blocking && !simt::is_async(in.code)) {
    const simt::reg_set& written = decoded_[pc].writes;
    written.for_each([&](unsigned x) { w.reg_ready[x] = done; });
    for (unsigned m = written.preds; m; m &= m - 1) w.pred_ready[static_cast<unsigned>(__builtin_ctz(m))] = done;
  }
  // A store holds its in-flight slot only until it leaves the load/store unit (posted write);
  // the run still ends when it completes.
  // (Only tracked with more than one instruction in flight; else ready_at says it all.)
  if (p_.inflight > 1)
    w.inflight.push_back(in.code == op::st ? std::min(done, t + occupancy + p_.lat_lsu) : done);
  if (blocking || p_.inflight == 1) w.ready_at = std::max(w.ready_at, done);
  touch(w);
  if (simt::is_memory(in.code)) lsu_->send();  // (only a memory instruction queues requests)
  return done;
}

// mma.sync for the whole warp (.aligned: every thread executes it, none guarded off):
// through the sub-partition's register file and tensor core; returns the cycle D is written.
std::uint64_t simt_core::engine::execute_mma_sync(warp& w, const simt::instr& in, std::uint32_t mask, std::uint64_t t) {
  const std::uint32_t lanes = w.guarded(mask & first_lanes(p_.warp_size), in, p_.warp_size);
  if (lanes != 0xffffffffu || w.threads != 32) {
    set_fault(w, lanes ? static_cast<unsigned>(__builtin_ctz(lanes)) : 0,
              "mma.sync needs all 32 threads of the warp executing it (active mask " + hex(lanes) + ")");
    return t;
  }
  mma_sync_request r;
  r.type = in.mma_type;
  r.sub_partition = sub_of(w.slot);
  r.register_stride = simt::warp::lane_slots;
  for (unsigned l = 0; l < 32; ++l) r.lanes[l] = &w.reg(l, 0);
  r.d_reg = in.rd;
  r.a_reg = in.ra;
  r.b_reg = in.rb;
  r.c_reg = in.rc;
  r.where = "block " + std::to_string(blocks_[w.block].id) + " warp " + std::to_string(w.index) + " PC " +
            std::to_string(w.stack.back().pc) + " (line " + std::to_string(in.line) + ": " + in.text + ")";
  std::uint64_t done = t;
  if (const std::string e = gmma_unit()->mma_sync(r, t, done); !e.empty()) {
    set_fault(w, 0, e);
    return t;
  }
  return done;
}

}  // namespace flynn

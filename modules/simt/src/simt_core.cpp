// The SIMT core's issue loop: the scheduler's view of the warps and its pick, the issue of
// a warp instruction (branch and reconvergence, barrier, exit here; ALU instructions go to
// the ALU stage, memory and asynchronous instructions to the load/store unit and to
// async_ops), and idle cycles by cause.
#include "flynn/simt/simt_core.h"

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
#include "lsu_link.h"
#include "stall_reports.h"
#include "flynn/common/bits.h"
#include "flynn/common/format.h"

namespace flynn {

using simt::op;

// ---------------------------------------------------------------------------- parameters

void simt_core_params::visit(param_visitor& v) {
  param(v, {"warp_size", "threads", "threads per warp"}, warp_size, 1, 32);
  param(v, {"sub_partitions", "",
            "processing blocks, each with its own warp scheduler issuing one warp instruction a cycle from its "
            "warps (warp slot s on sub-partition s mod sub_partitions), its own lanes and its own register-file "
            "banks; 1: one scheduler for the whole core"},
        sub_partitions, 1, 8);
  param(v, {"lanes", "", "SIMD lanes (per sub-partition); a warp instruction occupies them warp_size / lanes cycles"},
        lanes, 1, 32);
  param(v, {"sfu_lanes", "",
            "special-function lanes (per sub-partition): an sfu instruction (fdiv, fsqrt) occupies them warp_size / "
            "sfu_lanes cycles while others issue; 0: sfu instructions use the lanes"},
        sfu_lanes, 0, 32);
  param(v, {"lsu_lanes", "",
            "load/store dispatch lanes (per sub-partition): a memory instruction occupies them warp_size / "
            "lsu_lanes cycles while others issue; 0: memory instructions use the lanes"},
        lsu_lanes, 0, 32);
  param(v, {"max_warps", "warps", "warp slots (resident warps)"}, max_warps, 1, 64);
  param(v, {"max_threads", "threads", "thread contexts"}, max_threads, 1, 2048);
  param(v, {"register_file_bytes", "B", "register file: registers used x threads x 4 B of resident blocks"},
        register_file_bytes, 4, std::uint64_t(1) << 24);
  param(v, {"shared_memory_bytes", "B", "shared memory divided among resident blocks"}, shared_memory_bytes, 0,
        std::uint64_t(1) << 24);
  param_enum(v, {"scheduler", "", "warp scheduler"}, scheduler, warp_policies);
  param(v, {"active_warps", "warps", "two_level: size of the active set"}, active_warps, 1, 64);
  param_enum(v, {"divergence", "", "branch divergence"}, divergence, divergence_policies);
  param(v, {"inflight", "instructions", "instructions per warp in the pipeline (a scoreboard tracks registers)"},
        inflight, 1, 16);
  param(v, {"lat_alu", "cycles", "integer and fp32 pipeline depth"}, lat_alu, 1, 1000);
  param(v, {"lat_mul", "cycles", "multiply, mad, div, rem pipeline depth"}, lat_mul, 1, 1000);
  param(v, {"lat_sfu", "cycles", "special-function unit (fdiv, fsqrt)"}, lat_sfu, 1, 1000);
  param(v, {"lat_branch", "cycles", "branch, barrier and exit"}, lat_branch, 1, 1000);
  param(v, {"lat_lsu", "cycles", "load/store unit: address generation, and write-back after the data"}, lat_lsu, 0, 1000);
  param(v, {"segment_bytes", "B", "global-memory coalescing segment (power of two)"}, segment_bytes, 4, 4096);
  param(v, {"operand_banks", "banks",
            "register-file banks the operand collector reads an instruction's source registers from, one register "
            "(every lane's) per bank per cycle, register r of warp slot s in bank (r + s) mod banks; 0: sources are "
            "read at issue without bank conflicts. A sub-partition whose register file is bound (rfK) reads and writes "
            "through it instead"},
        operand_banks, 0, 32);
  param(v, {"operand_bank_width", "registers", "registers a register-file bank reads per cycle (its width in 32-bit registers)"},
        operand_bank_width, 1, 4);
  param(v, {"quantum", "cycles", "temporal decoupling: cycles the core may run ahead of simulated time (less while memory accesses or asynchronous copies are in flight)"}, quantum, 1, 1u << 30);
  param(v, {"max_instructions", "instructions", "runaway guard: more warp instructions than this is a fault"},
        max_instructions, 1, std::uint64_t(1) << 40);
  visit_clock(v);
}

param_footprint simt_core_params::footprint() const {
  // Per warp slot its state and up to 256 registers of warp_size lanes.
  return {std::uint64_t(max_warps) * (4096 + 256 * 4 * std::uint64_t(warp_size)), 0};
}

std::vector<param_issue> simt_core_params::check() const {
  std::vector<param_issue> r;
  if (lanes > warp_size)
    r.push_back({"lanes", "at most warp_size (" + std::to_string(warp_size) + ")", std::to_string(lanes)});
  if (sfu_lanes > warp_size)
    r.push_back({"sfu_lanes", "at most warp_size (" + std::to_string(warp_size) + ")", std::to_string(sfu_lanes)});
  if (lsu_lanes > warp_size)
    r.push_back({"lsu_lanes", "at most warp_size (" + std::to_string(warp_size) + ")", std::to_string(lsu_lanes)});
  if (sub_partitions > max_warps)
    r.push_back({"sub_partitions", "at most max_warps (" + std::to_string(max_warps) + ")",
                 std::to_string(sub_partitions)});
  if (divergence == divergence_policy::dwf && sub_partitions > 1)
    r.push_back({"sub_partitions", "1 with divergence dwf (dwf forms warps across the whole core)",
                 std::to_string(sub_partitions)});
  if (segment_bytes & (segment_bytes - 1))
    r.push_back({"segment_bytes", "a power of two", std::to_string(segment_bytes)});
  if (max_threads < warp_size)
    r.push_back({"max_threads", "at least warp_size (" + std::to_string(warp_size) + ")", std::to_string(max_threads)});
  return r;
}

simt_core::simt_core(const sc_core::sc_module_name& name, const params& p)
    : module(name, p.clock_ns), global("global"), shared("shared"), gmma("gmma"), tma("tma"), p_(p) {
  throw_if_invalid("simt_core", p_.check());
  global.bind(*this);
  shared.bind(*this);
  sp_ = std::vector<sub_partition>(p_.sub_partitions);
  for (unsigned k = 0; k < p_.sub_partitions; ++k) rf.push_back(std::make_unique<rf_port>(("rf" + std::to_string(k)).c_str()));
  for (unsigned k = 0; k < p_.sub_partitions; ++k) {
    sp_[k].sched = make_scheduler(p_.scheduler, p_.active_warps);
    sp_[k].sched->serve(k, p_.sub_partitions);
  }
  const unsigned class_lanes[unit_classes] = {p_.lanes, p_.sfu_lanes, p_.lsu_lanes};
  for (unsigned c = 0; c < unit_classes; ++c) {
    unit_of_[c] = class_lanes[c] ? c : unsigned(unit_lanes);
    occupancy_[c] = (p_.warp_size + class_lanes[unit_of_[c]] - 1) / class_lanes[unit_of_[c]];
    split_units_ = split_units_ || unit_of_[c] != unit_lanes;
  }
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
  lsu_link_ = std::make_unique<lsu_link>(*this);
  lsu_ = std::make_unique<simt::load_store_unit>(
      *this, *lsu_link_, simt::load_store_unit::config{p_.warp_size, p_.lat_alu, p_.lat_lsu, p_.segment_bytes}, global,
      shared);
  simt::load_store_unit::counters& lsu_n = lsu_->counts();
  async_n_ = std::make_unique<simt::async_counters>();
  mbar_tracer_ = std::make_unique<simt::mbarrier_tracer>();
  SC_HAS_PROCESS(simt_core);
  SC_THREAD(run);
  stats_.add("warp_instructions", warp_instr_, "instructions", "warp instructions issued");
  stats_.add("thread_instructions", thread_instr_, "instructions", "thread instructions (active lanes of issued warp instructions)");
  stats_.add("active_lanes_per_issue", active_hist_, "issues", "histogram: issued warp instructions with k active threads, k = index");
  stats_.add("warp_instructions_per_slot", per_warp_, "instructions", "warp instructions issued per warp slot");
  stats_.add("idle_cycles_memory", idle_memory_, "cycles", "cycles without a ready warp, the next ready one waiting on memory (summed over sub-partitions, as are the other idle cycles)");
  stats_.add("idle_cycles_scoreboard", idle_scoreboard_, "cycles", "cycles without a ready warp, the next ready one waiting on a pipeline result");
  stats_.add("idle_cycles_barrier", idle_barrier_, "cycles", "cycles without a ready warp, the next ready one released from a barrier");
  stats_.add("idle_cycles_async", idle_async_, "cycles",
             "cycles without a ready warp, the next ready one waiting on an asynchronous unit (an mbarrier phase, a "
             "TMA store)");
  stats_.add("idle_cycles_wgmma", idle_wgmma_, "cycles",
             "cycles without a ready warp, the next ready one waiting for its wgmma groups (wgmma.wait_group)");
  stats_.add_ratio("shared_load_latency", lsu_n.shared_load_latency.second, lsu_n.shared_load_latency.first, "cycles",
                   "mean cycles from issuing a shared load to its data in the registers");
  stats_.add_ratio("global_load_latency", lsu_n.global_load_latency.second, lsu_n.global_load_latency.first, "cycles",
                   "mean cycles from issuing a global load to its data in the registers");
  stats_.add_ratio(
      "tma_round_trip", async_n_->tma_trip_cycles, async_n_->tma_trips, "cycles",
      "mean cycles from a tma.load's issue to the completion of the mbarrier phase it signals (copies whose phase "
      "never completed are not counted)");
  stats_.add("mbarrier_ops", async_n_->mbarrier_ops, "operations", "mbarrier init, arrive and wait operations (per thread)");
  stats_.add("tma_loads", async_n_->tma_loads, "copies", "tma.load copies started");
  stats_.add("tma_stores", async_n_->tma_stores, "copies", "tma.store copies started");
  stats_.add("wgmma_issued", async_n_->wgmma_issued, "instructions", "wgmma instructions issued (one per warp)");
  stats_.add("hazards", hazard_accesses_, "accesses",
             "accesses to shared memory or registers that conflict with an earlier access by another agent (warp, TMA "
             "copy, TMA store, wgmma) not ordered before them by the kernel's synchronisation (0 with the checking "
             "off)");
  stats_.add("hazard_pairs", hazard_pairs_, "pairs",
             "distinct pairs of instructions among the hazards (by kind of hazard and of place)");
  stats_.add("operand_conflict_cycles", operand_conflict_cycles_, "cycles",
             "cycles instructions waited past their issue for their source registers, and results for their write-back, "
             "in busy register-file banks or crossbar (the sub-partition's bound register file, else operand_banks), "
             "summed");
  stats_.add("idle_cycles_structural", idle_structural_, "cycles",
             "cycles with a ready warp the scheduler could not pick (outside the two-level active set, or its unit's "
             "lanes busy), summed over sub-partitions");
  stats_.add("global_requests", lsu_n.global_requests, "instructions", "warp loads and stores to global memory");
  stats_.add("global_transactions", lsu_n.global_transactions, "transactions", "coalesced global-memory transactions (one per segment touched)");
  stats_.add("shared_requests", lsu_n.shared_requests, "instructions", "warp loads and stores to shared memory (one multi-lane request each)");
  stats_.add("divergent_branches", divergent_branches_, "branches", "branches whose active threads went both ways");
  stats_.add("blocks_launched", blocks_launched_, "blocks", "thread blocks launched on the core");
  stats_.add("resident_blocks_peak", resident_peak_, "blocks",
             "the most blocks resident at once (limited by warp slots, thread contexts, registers and shared memory)");
  stats_.add("registers_per_thread", registers_per_thread_, "registers",
             "32-bit registers each thread of the loaded kernel holds (r0 .. the highest it names)");
  stats_.add("dwf_merged_warps", dwf_merged_, "warps",
             "dwf: warps whose threads joined another warp's issue (same PC, free lanes)");
  stats_.add("dwf_lane_collisions", dwf_collisions_, "warps",
             "dwf: warps at the same PC left out because a thread's home lane was taken");
  stats_.add_real(
      "ipc", [this] { return end_ ? double(warp_instr_.value()) / double(end_) : 0.0; }, "instructions/cycle",
      "warp instructions per cycle");
  stats_.add_real(
      "simd_utilisation",
      [this] {
        return warp_instr_.value() ? double(thread_instr_.value()) / double(warp_instr_.value() * p_.warp_size) : 0.0;
      },
      "", "active lanes / lanes over all issued warp instructions");
  stats_.add_ratio("transactions_per_request", lsu_n.global_transactions, lsu_n.global_requests, "transactions",
                   "global transactions per warp memory instruction");
}

simt_core::~simt_core() = default;

std::uint64_t simt_core::thread_instructions() const { return thread_instr_.value(); }
std::uint64_t simt_core::thread_count_digest() const { return thread_digest_; }
core_counts simt_core::counts() const { return {warp_instr_.value(), thread_instr_.value(), thread_digest_}; }

// ---------------------------------------------------------------------------- execution

void simt_core::branch(warp& w, const simt::instr& in, std::uint32_t mask) {
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

void simt_core::arrive_barrier(warp& w, std::uint64_t t) {
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

void simt_core::exit_threads(warp& w, std::uint32_t which, std::uint64_t t) {
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
const std::vector<simt::warp*>& simt_core::form_warp(warp& w, std::uint64_t t) {
  if (group_.size() != 1) group_.resize(1);  // (sized at load; merging grows it)
  group_.front() = &w;
  if (p_.divergence == divergence_policy::dwf) merge_warps(group_, t);
  return group_;
}

// Dynamic warp formation: the ready warps that join group (w alone so far) at cycle t.
void simt_core::merge_warps(std::vector<warp*>& group, std::uint64_t t) {
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
void simt_core::issue(const std::vector<warp*>& group, std::uint64_t t) {
  const unsigned k = sub_of(group.front()->slot);
  sub_partition& sub = sp_[k];
  const unsigned unit = decoded_[group.front()->stack.back().pc].unit;
  const std::uint64_t occupancy = occupancy_[unit];
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
  if (sub.issue_warp.enabled()) {  // (the four are attached together)
    const sc_core::sc_time at = to_time(t);
    sub.issue_warp.set(at, static_cast<std::uint64_t>(group.front()->slot));
    sub.issue_pc.set(at, group.front()->stack.back().pc);
    sub.active_mask.set(at, lanes);
    sub.active_lanes.set(at, active);
  }
  // The dispatch is busy until the next cycle when the units are split, else until the lanes
  // are free; a warp's slice in the timeline covers its dispatch.
  const std::uint64_t dispatch = split_units_ ? 1 : occupancy;
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
  sub.dispatch_free = t + dispatch;
  if (split_units_ && occupancy > 1) hold_unit(k, unit, t + occupancy);
}

// The unit `unit` of sub-partition `sub` is busy until cycle `until`: the warps whose next
// instruction needs it cannot issue before (their views learn it now; a warp whose view is
// refreshed later learns it in refresh_views).
void simt_core::hold_unit(unsigned sub, unsigned unit, std::uint64_t until) {
  sp_[sub].unit_free[unit] = until;
  for (std::size_t s = sub; s < warps_.size(); s += p_.sub_partitions) {
    const warp& x = *warps_[s];
    if (!x.live || x.stack.empty() || decoded_[x.stack.back().pc].unit != unit) continue;
    warp_view& v = views_[s];
    if (v.ready_at < until) v.ready_at = until;
  }
}

// Whether what keeps w from issuing until `ready` is its unit's lanes.
bool simt_core::waits_for_unit(const warp& w, std::uint64_t ready) const {
  if (!split_units_ || w.stack.empty()) return false;
  return sp_[sub_of(w.slot)].unit_free[decoded_[w.stack.back().pc].unit] == ready;
}

// The operand collector (operand_banks > 0): the instruction issued at cycle t reads its
// source registers from its sub-partition's register-file banks (register r of the warp in
// the sub-partition's i-th slot in bank (r + i) mod banks), each bank operand_bank_width
// registers a cycle from the first cycle it is free at or after t; the instruction goes on
// to its unit at the cycle its last source is read (t when no bank holds more of its sources
// than it reads in a cycle and every bank is free). The wgmma accumulators and descriptors,
// and the mma.sync fragments, go through the sub-partitions' register files (register_file
// modules) on the GMMA unit's path.
std::uint64_t simt_core::collect_operands(const warp& w, std::uint64_t t) {
  register_file_if* rfi = rf_of(sub_of(w.slot));
  if (!p_.operand_banks && !rfi) return t;
  const std::uint32_t pc = w.stack.back().pc;
  if (kernel_.code[pc].code == op::wgmma || kernel_.code[pc].code == op::mma_sync) return t;
  if (rfi) {  // the sub-partition's register file: the banks and crossbar the tensor path uses too
    rf_regs_.clear();
    decoded_[pc].reads.for_each([&](unsigned r) {
      if (std::find(rf_regs_.begin(), rf_regs_.end(), r) == rf_regs_.end()) rf_regs_.push_back(r);
    });
    if (rf_regs_.empty()) return t;
    const std::uint64_t ready = std::max(t, rfi->read_operands(rf_regs_.data(), rf_regs_.size(), t));
    operand_conflict_cycles_ += ready - t;
    return ready;
  }
  std::array<unsigned, 32> per_bank{};
  std::array<std::uint64_t, simt::num_registers / 64> seen{};  // (a register named twice is read once)
  decoded_[pc].reads.for_each([&](unsigned r) {
    std::uint64_t& word = seen[r / 64];
    if ((word >> (r % 64)) & 1u) return;
    word |= std::uint64_t(1) << (r % 64);
    ++per_bank[(r + static_cast<unsigned>(w.slot) / p_.sub_partitions) % p_.operand_banks];
  });
  std::vector<std::uint64_t>& bank_free = sp_[sub_of(w.slot)].bank_free;
  std::uint64_t ready = t;
  for (unsigned b = 0; b < p_.operand_banks; ++b) {
    if (!per_bank[b]) continue;
    const std::uint64_t start = std::max(t, bank_free[b]);
    const std::uint64_t cycles = (per_bank[b] + p_.operand_bank_width - 1) / p_.operand_bank_width;
    bank_free[b] = start + cycles;
    ready = std::max(ready, start + cycles - 1);
  }
  operand_conflict_cycles_ += ready - t;
  return ready;
}

std::uint64_t simt_core::write_back(const warp& w, const simt::reg_set& written, std::uint64_t done) {
  register_file_if* rfi = rf_of(sub_of(w.slot));
  if (!rfi || done == unknown_cycle) return done;
  rf_regs_.clear();
  written.for_each([&](unsigned r) { rf_regs_.push_back(r); });
  if (rf_regs_.empty()) return done;
  const std::uint64_t landed = std::max(done, rfi->write_results(rf_regs_.data(), rf_regs_.size(), done));
  operand_conflict_cycles_ += landed - done;
  return landed;
}

// The instruction at the top of w's stack, for w's active threads; returns its completion.
std::uint64_t simt_core::execute(warp& w, std::uint64_t t, std::uint64_t occupancy) {
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
      done = write_back(w, decoded_[pc].writes, t + occupancy + execute_alu(w, in, mask));
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
std::uint64_t simt_core::execute_mma_sync(warp& w, const simt::instr& in, std::uint32_t mask, std::uint64_t t) {
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

// ---------------------------------------------------------------------------- main loop

bool simt_core::units_busy() const {
  return (gmma.size() && gmma->in_progress()) || (tma.size() && tma->in_progress());
}

// Waits until cycle `until` or until a copy or MMA in progress reports, whichever is first.
// (The units may have finished since the caller looked: with no news to wait for, it waits
// only until `until`, and returns at once when that is unbounded.)
void simt_core::wait_async(std::uint64_t until) {
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
const simt::warp* simt_core::unknown_warp() const {
  for (const auto& w : warps_)
    if (w->live && !w->at_barrier && w->why == warp::wait::async) return w.get();
  return nullptr;
}

void simt_core::count_idle(const warp* first, std::uint64_t idle) {
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
std::uint64_t simt_core::ready_time(warp& w, std::uint64_t t) {
  if (w.stack.empty()) return w.ready_at;
  const decoded& d = decoded_[w.stack.back().pc];
  if (p_.inflight == 1 && !d.unit_wait) return w.ready_at;  // (the usual case: the last issue says it all)
  return scoreboard_time(w, d, t);
}

std::uint64_t simt_core::scoreboard_time(warp& w, const decoded& d, std::uint64_t t) {
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
bool simt_core::waits_on_units(const warp& w) const {
  return !w.stack.empty() && decoded_[w.stack.back().pc].unit_wait;
}

// Every change to a warp's state that its readiness depends on comes through here.
void simt_core::touch(warp& w) {
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
void simt_core::refresh_views(std::uint64_t t) {
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
    if (split_units_ && !w.stack.empty())  // and not before its unit's lanes are free
      v.ready_at = std::max(v.ready_at, sp_[sub_of(s)].unit_free[decoded_[w.stack.back().pc].unit]);
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
bool simt_core::idle(std::uint64_t& t, bool async_in_progress) {
  // The next cycle a sub-partition can issue at, as the slots' views say at t: the earliest
  // of its live warps' ready cycles, not before its dispatch is free; and the first warp of
  // those with the earliest (a ready one not picked, one ready later, or one waiting on the
  // asynchronous units, asked at t).
  std::uint64_t next = warp_view::never;
  const warp* first = nullptr;
  for (std::size_t s = 0; s < views_.size(); ++s) {
    const std::uint64_t at = std::max(views_[s].ready_at, sp_[sub_of(static_cast<int>(s))].dispatch_free);
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
void simt_core::count_idle_span(std::uint64_t from, std::uint64_t to, bool async_span) {
  for (unsigned k = 0; k < p_.sub_partitions; ++k) {
    const std::uint64_t start = std::max(from, sp_[k].dispatch_free);
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
void simt_core::finish() {
  if (!hazards_) return;
  hazard_accesses_ += hazards_->hazards() - hazard_accesses_.value();
  hazard_pairs_ += hazards_->distinct() - hazard_pairs_.value();
}

std::string simt_core::hazard_report() const {
  if (!hazards_ || hazards_->hazards() == 0) return {};
  std::string s = std::to_string(hazards_->hazards()) + " accesses not ordered after a conflicting access, in " +
                  std::to_string(hazards_->distinct()) + " distinct pairs of instructions";
  for (const auto& r : hazards_->reports()) s += "\n  hazard: " + r;
  if (hazards_->distinct() > hazards_->reports().size())
    s += "\n  (" + std::to_string(hazards_->distinct() - hazards_->reports().size()) + " more pairs not shown)";
  return s;
}

void simt_core::run() {
  if (!loaded_) return;
  if (hazard_check_) hazards_ = std::make_unique<simt::hazard_checker>(kernel_);
  lsu_->check_hazards(hazards_.get());
  now_ = sc_core::sc_time_stamp();
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
      if (sp_[k].dispatch_free <= t && (s = sp_[k].sched->pick(views_, t)) >= 0) break;
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
    for (const auto& sub : sp_) free = std::min(free, sub.dispatch_free);
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

void simt_core::attach_trace(trace_sink& sink) {
  if (sink.wants_timeline()) timeline_ = &sink;
  for (unsigned k = 0; k < p_.sub_partitions; ++k) {  // sub-partition 0's without a prefix
    const std::string prefix = k ? "sp" + std::to_string(k) + "_" : "";
    sp_[k].issue_warp.attach(&sink, name(), prefix + "issue_warp", 8);
    sp_[k].issue_pc.attach(&sink, name(), prefix + "issue_pc", 16);
    sp_[k].active_mask.attach(&sink, name(), prefix + "active_mask", 32, trace_format::hex);
    sp_[k].active_lanes.attach(&sink, name(), prefix + "active_lanes", 8);
  }
  lsu_->transactions_trace().attach(&sink, name(), "lsu_transactions", 8);
  warp_state_.resize(warps_.size());
  for (std::size_t s = 0; s < warps_.size(); ++s)
    warp_state_[s].attach(&sink, name(), "warp" + std::to_string(s) + "_state", 2);
  if (async_kernel_) mbar_tracer_->attach(sink, name(), 8, clock_period());  // the first 8 mbarriers block slot 0 initialises
}

}  // namespace flynn

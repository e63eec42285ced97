// The SIMT core's issue loop and the parts it drives (private to modules/simt/src): the
// warp and block slots, the sub-partitions, the load/store unit, the block launcher, the
// asynchronous units' bookkeeping and the statistics. simt_core (the module) owns one and
// gives it its clock, sockets, debug lines and statistics group.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "async_ops.h"
#include "core_state.h"
#include "flynn/common/stats.h"
#include "flynn/simt/simt_core.h"
#include "load_store_unit.h"

namespace flynn {

namespace simt {
struct lane_groups;
class load_store_unit;
class lsu_host;
class block_launcher;
class sub_partition;
struct dispatch_units;
struct async_counters;
class mbarrier_tracer;
class hazard_checker;
}  // namespace simt

class simt_core::engine {
 public:
  using params = simt_core_params;
  using warp = simt::warp;
  using block_slot = simt::block_slot;
  explicit engine(simt_core& core);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // What the module gives the loop: its parameters, sockets and ports, statistics group,
  // clock, debug lines, log and faults.
  simt_core& core_;
  const params& p_;
  tlm::tlm_initiator_socket<32>& global;
  tlm::tlm_initiator_socket<32>& shared;
  sc_core::sc_port<gmma_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND>& gmma;
  sc_core::sc_port<tma_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND>& tma;
  std::vector<std::unique_ptr<rf_port>>& rf;
  stats_group& stats_;
  const char* name() const { return core_.name(); }
  sc_core::sc_time to_time(std::uint64_t n) const { return core_.to_time(n); }
  std::uint64_t to_cycles(const sc_core::sc_time& t) const { return core_.to_cycles(t); }
  std::uint64_t to_cycles_ceil(const sc_core::sc_time& t) const { return core_.to_cycles_ceil(t); }
  const sc_core::sc_time& clock_period() const { return core_.clock_period(); }
  bool debugging(const debug_flag& flag) const { return core_.debugging(flag); }
  void debug(const debug_flag& flag, std::uint64_t cycle, const std::string& what) const { core_.debug(flag, cycle, what); }
  bool log_enabled(int verbosity) const { return core_.log_enabled(verbosity); }
  void log(int verbosity, const std::string& msg) const { core_.log(verbosity, msg); }
  void fault(const std::string& what) const { core_.fault(what); }
  template <class Socket>
  unsigned debug_transport(Socket& socket, tlm::tlm_command command, std::uint64_t address, unsigned char* data,
                           unsigned length) {
    return core_.debug_transport(socket, command, address, data, length);
  }

  // What simt_core's own interface asks of it.
  void run();
  void load(const simt::kernel& k, const simt_launch& l);
  void load_program(const core_program& p);
  core_counts counts() const;
  std::string pending_work() const;
  void attach_trace(trace_sink& sink);
  std::string hazard_report() const;
  void finish();

  std::uint64_t ready_time(warp& w, std::uint64_t t);
  bool waits_on_units(const warp& w) const;
  void touch(warp& w);
  void refresh_views(std::uint64_t t);
  // The scheduler's view of the slots (see refresh_views) and the slots to look at again.
  std::vector<warp_view> views_;
  std::vector<int> dirty_, refresh_;
  bool idle(std::uint64_t& t, bool async_in_progress);
  void launch_blocks(std::uint64_t t);
  void issue(const std::vector<warp*>& group, std::uint64_t t);
  std::uint64_t execute(warp& w, std::uint64_t t, std::uint64_t occupancy);
  const std::vector<warp*>& form_warp(warp& w, std::uint64_t t);
  void merge_warps(std::vector<warp*>& group, std::uint64_t t);
  std::vector<warp*> group_;  // form_warp's answer
  std::uint64_t execute_mma_sync(warp& w, const simt::instr& in, std::uint32_t mask, std::uint64_t t);
  std::uint64_t execute_alu(warp& w, const simt::instr& in, std::uint32_t mask);
  void branch(warp& w, const simt::instr& in, std::uint32_t mask);
  void arrive_barrier(warp& w, std::uint64_t t);
  void exit_threads(warp& w, std::uint32_t which, std::uint64_t t);
  unsigned block_registers() const;
  void set_fault(const warp& w, unsigned lane, const std::string& what);
  void set_fault(unsigned block, unsigned warp_index, unsigned lane, std::uint32_t pc, const std::string& what);
  // The bound asynchronous units, nullptr where none is bound.
  gmma_if* gmma_unit() { return gmma.size() ? gmma.operator->() : nullptr; }
  tma_if* tma_unit() { return tma.size() ? tma.operator->() : nullptr; }
  // TMA loads or MMAs whose results are not known yet (only a kernel with asynchronous
  // instructions, TMA, mbarrier or wgmma, starts any).
  bool async_pending() const { return async_kernel_ && units_busy(); }
  bool units_busy() const;
  bool async_kernel_ = false;
  void wait_async(std::uint64_t until);       // until that cycle or news from them
  const warp* unknown_warp() const;
  void count_idle(const warp* first, std::uint64_t idle);

  // The load/store unit (load_store_unit.h) and what it asks of the core.
  static constexpr std::uint64_t unknown_cycle = std::numeric_limits<std::uint64_t>::max();
  class lsu_link;
  std::unique_ptr<lsu_link> lsu_link_;
  std::unique_ptr<simt::load_store_unit> lsu_;
  std::uint64_t access_done(const simt::memory_op& mo);
  void retire_block(unsigned slot, std::uint64_t t);
  std::uint64_t memory_horizon();
  void forget_memory_horizon();
  // The core's thread waits only through pause, which notes the simulated time it resumes
  // at: the issue loop reads it (now_, now_cycle_) instead of asking the kernel each time.
  template <class... A>
  void pause(const A&... a) {
    sc_core::wait(a...);
    now_ = flynn::sim_now();
    now_cycle_ = to_cycles(now_);
    forget_memory_horizon();
  }
  void pause_until(std::uint64_t t) {
    if (to_time(t) > now_) pause(to_time(t) - now_);
  }
  sc_core::sc_time now_;
  std::uint64_t now_cycle_ = 0;
  // Register-file writes (MMA results) land in the warps' registers at their cycles in
  // simulated time: until this cycle the core decides at simulated time, so that what it
  // reads at a cycle holds the results landed by then.
  std::uint64_t registers_land_until_ = 0;
  void sync_for_memory(std::uint64_t t);
  void wait_memory(std::uint64_t next);
  sc_core::sc_time settled_at_ = sc_core::sc_max_time();
  std::uint64_t generations_ = 0;

  simt::kernel kernel_;
  simt_launch launch_;
  std::vector<std::uint32_t> ipdom_;  // reconvergence PC per instruction
  // Per instruction, worked out once at load (the issue loop asks at every decision): the
  // registers and predicates it reads and writes (the scoreboard), its pipeline's latency
  // (ALU class) and whether it waits on the asynchronous units.
  struct decoded {
    simt::reg_set reads, writes;
    std::uint64_t latency = 0;
    bool unit_wait = false;
    unsigned unit = 0;  // the unit it is dispatched to (unit_class, as mapped by unit_of_)
  };
  std::vector<decoded> decoded_;
  // ready_time with several instructions in flight or a wait on the asynchronous units.
  std::uint64_t scoreboard_time(warp& w, const decoded& d, std::uint64_t t);
  bool loaded_ = false, done_ = false;
  std::string fault_;
  std::vector<std::unique_ptr<warp>> warps_;
  std::vector<block_slot> blocks_;
  std::unique_ptr<simt::block_launcher> launcher_;
  unsigned registers_used_ = 0;  // per thread: r0 .. r(n-1)
  // The sub-partitions (sub_partition.h): warp slot s is on sub-partition s mod their count.
  std::vector<std::unique_ptr<simt::sub_partition>> sp_;
  std::unique_ptr<simt::dispatch_units> units_;
  unsigned sub_of(int slot) const { return static_cast<unsigned>(slot) % p_.sub_partitions; }
  warp_scheduler& scheduler_of(int slot);
  void hold_unit(unsigned sub, unsigned unit, std::uint64_t until);
  bool waits_for_unit(const warp& w, std::uint64_t ready) const;
  void count_idle_span(std::uint64_t from, std::uint64_t to, bool async_span);
  std::uint64_t age_ = 0, end_ = 0;
  const warp* executing_ = nullptr;  // the instruction being executed (cleared between issues)
  std::uint32_t executing_pc_ = 0;
  std::uint64_t executing_at_ = 0;

  std::uint64_t thread_digest_ = 0;
  std::uint64_t collect_operands(const warp& w, std::uint64_t t);
  // The sub-partition's bound register file (nullptr: none).
  register_file_if* rf_of(unsigned sub) { return sub < rf.size() && rf[sub]->size() ? rf[sub]->operator->() : nullptr; }
  std::unique_ptr<simt::async_counters> async_n_;  // mbarrier, TMA and wgmma operations
  std::vector<trace_signal> warp_state_;
  std::unique_ptr<simt::mbarrier_tracer> mbar_tracer_;
  bool hazard_check_ = true;
  std::unique_ptr<simt::hazard_checker> hazards_;  // while checking, from the start of the run
  trace_sink* timeline_ = nullptr;             // warp instructions as slices

  // Statistics, in the order they are written; the load/store unit and the asynchronous
  // units' bookkeeping own their counters, entered here where they belong in the listing.
  const simt::load_store_unit::counters& lsu_n_;
  statistic warp_instr_{stats_, "warp_instructions", "instructions", "warp instructions issued"};
  statistic thread_instr_{stats_, "thread_instructions", "instructions",
                          "thread instructions (active lanes of issued warp instructions)"};
  statistic_vector active_hist_{stats_, "active_lanes_per_issue", "issues",
                                "histogram: issued warp instructions with k active threads, k = index"};
  statistic_vector per_warp_{stats_, "warp_instructions_per_slot", "instructions",
                             "warp instructions issued per warp slot"};
  statistic idle_memory_{stats_, "idle_cycles_memory", "cycles",
                         "cycles without a ready warp, the next ready one waiting on memory (summed over "
                         "sub-partitions, as are the other idle cycles)"};
  statistic idle_scoreboard_{stats_, "idle_cycles_scoreboard", "cycles",
                             "cycles without a ready warp, the next ready one waiting on a pipeline result"};
  statistic idle_barrier_{stats_, "idle_cycles_barrier", "cycles",
                          "cycles without a ready warp, the next ready one released from a barrier"};
  statistic idle_async_{stats_, "idle_cycles_async", "cycles",
                        "cycles without a ready warp, the next ready one waiting on an asynchronous unit (an mbarrier "
                        "phase, a TMA store)"};
  statistic idle_wgmma_{stats_, "idle_cycles_wgmma", "cycles",
                        "cycles without a ready warp, the next ready one waiting for its wgmma groups "
                        "(wgmma.wait_group)"};
  stat_ratio shared_load_latency_{stats_, "shared_load_latency", lsu_n_.shared_load_latency.second,
                                  lsu_n_.shared_load_latency.first, "cycles",
                                  "mean cycles from issuing a shared load to its data in the registers"};
  stat_ratio global_load_latency_{stats_, "global_load_latency", lsu_n_.global_load_latency.second,
                                  lsu_n_.global_load_latency.first, "cycles",
                                  "mean cycles from issuing a global load to its data in the registers"};
  stat_ratio tma_round_trip_{stats_, "tma_round_trip", async_n_->tma_trip_cycles, async_n_->tma_trips, "cycles",
                             "mean cycles from a tma.load's issue to the completion of the mbarrier phase it signals "
                             "(copies whose phase never completed are not counted)"};
  stat_alias mbarrier_ops_{stats_, "mbarrier_ops", async_n_->mbarrier_ops, "operations",
                           "mbarrier init, arrive and wait operations (per thread)"};
  stat_alias tma_loads_{stats_, "tma_loads", async_n_->tma_loads, "copies", "tma.load copies started"};
  stat_alias tma_stores_{stats_, "tma_stores", async_n_->tma_stores, "copies", "tma.store copies started"};
  stat_alias wgmma_issued_{stats_, "wgmma_issued", async_n_->wgmma_issued, "instructions",
                           "wgmma instructions issued (one per warp)"};
  statistic hazard_accesses_{stats_, "hazards", "accesses",
                             "accesses to shared memory or registers that conflict with an earlier access by another "
                             "agent (warp, TMA copy, TMA store, wgmma) not ordered before them by the kernel's "
                             "synchronisation (0 with the checking off)"};
  statistic hazard_pairs_{stats_, "hazard_pairs", "pairs",
                          "distinct pairs of instructions among the hazards (by kind of hazard and of place)"};
  statistic operand_conflict_cycles_{
      stats_, "operand_conflict_cycles", "cycles",
      "cycles instructions waited past their issue for their source registers, and results for their write-back, in "
      "busy register-file banks or crossbar (the sub-partition's bound register file, else operand_banks), summed"};
  statistic idle_structural_{stats_, "idle_cycles_structural", "cycles",
                             "cycles with a ready warp the scheduler could not pick (outside the two-level active "
                             "set, or its unit's lanes busy), summed over sub-partitions"};
  stat_alias global_requests_{stats_, "global_requests", lsu_n_.global_requests, "instructions",
                              "warp loads and stores to global memory"};
  stat_alias global_transactions_{stats_, "global_transactions", lsu_n_.global_transactions, "transactions",
                                  "coalesced global-memory transactions (one per segment touched)"};
  stat_alias shared_requests_{stats_, "shared_requests", lsu_n_.shared_requests, "instructions",
                              "warp loads and stores to shared memory (one multi-lane request each)"};
  statistic divergent_branches_{stats_, "divergent_branches", "branches",
                                "branches whose active threads went both ways"};
  statistic blocks_launched_{stats_, "blocks_launched", "blocks", "thread blocks launched on the core"};
  statistic resident_peak_{stats_, "resident_blocks_peak", "blocks",
                           "the most blocks resident at once (limited by warp slots, thread contexts, registers and "
                           "shared memory)"};
  statistic registers_per_thread_{stats_, "registers_per_thread", "registers",
                                  "32-bit registers each thread of the loaded kernel holds (r0 .. the highest it "
                                  "names)"};
  statistic dwf_merged_{stats_, "dwf_merged_warps", "warps",
                        "dwf: warps whose threads joined another warp's issue (same PC, free lanes)"};
  statistic dwf_collisions_{stats_, "dwf_lane_collisions", "warps",
                            "dwf: warps at the same PC left out because a thread's home lane was taken"};
  stat_formula ipc_{stats_, "ipc", [this] { return end_ ? double(warp_instr_.value()) / double(end_) : 0.0; },
                    "instructions/cycle", "warp instructions per cycle"};
  stat_formula simd_utilisation_{
      stats_, "simd_utilisation",
      [this] {
        return warp_instr_.value() ? double(thread_instr_.value()) / double(warp_instr_.value() * p_.warp_size) : 0.0;
      },
      "", "active lanes / lanes over all issued warp instructions"};
  stat_ratio transactions_per_request_{stats_, "transactions_per_request", lsu_n_.global_transactions,
                                       lsu_n_.global_requests, "transactions",
                                       "global transactions per warp memory instruction"};
};

}  // namespace flynn

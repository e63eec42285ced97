// SIMT core (a GPU streaming multiprocessor in the spirit of a GTX 285 core): warps of
// threads sharing a PC, fine-grained multithreading over warp slots, a warp scheduler
// (named policies), SIMD lanes, per-warp reconvergence stacks for branch divergence, and
// a load/store unit that coalesces global accesses into transactions and sends shared
// accesses as multi-lane requests, both over TLM sockets. See docs/modules/simt_core.md.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/common/bits.h"
#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/gmma/wgmma.h"
#include "flynn/regfile/register_file_if.h"
#include "flynn/simt/isa.h"
#include "flynn/simt/launch.h"
#include "flynn/simt/simt_program.h"
#include "flynn/simt/scheduler.h"
#include "flynn/sync/tx_barrier.h"
#include "flynn/tlm/at_request_queue.h"
#include "flynn/tlm/begin_request.h"
#include "flynn/tlm/lanes_extension.h"
#include "flynn/tlm/memory_manager.h"
#include "flynn/tlm/no_dmi_initiator.h"
#include "flynn/tma/tma_if.h"
#include "flynn/tma/tma_loader.h"

namespace flynn {

namespace simt {  // the core's parts (modules/simt/src)
struct warp;
struct block_slot;
struct memory_request;
struct memory_op;
struct lane_groups;
class load_store_unit;
class block_launcher;
class sub_partition;
struct dispatch_units;
struct async_counters;
class mbarrier_tracer;
class hazard_checker;
}  // namespace simt

// The launch the core runs (the same description the golden interpreter takes).
using simt_launch = simt::launch;

// Branch divergence handling: per-warp reconvergence stacks alone, or with dynamic warp
// formation (threads of other warps at the same PC join an issue when their lanes are free).
enum class divergence_policy { stack, dwf };

// The divergence_policy values with their names (the `divergence` parameter) and descriptions.
inline constexpr named_choice<divergence_policy> divergence_policies[] = {
    {divergence_policy::stack, "stack", "reconvergence stacks"},
    {divergence_policy::dwf, "dwf", "plus dynamic warp formation"},
};

struct simt_core_params : clocked_params {
  unsigned warp_size = 32;
  unsigned sub_partitions = 1;    // schedulers, each with its warps, lanes and register-file banks
  unsigned lanes = 8;             // per sub-partition
  unsigned sfu_lanes = 0;         // 0: sfu instructions use the lanes
  unsigned lsu_lanes = 0;         // 0: memory instructions use the lanes
  unsigned max_warps = 32;        // warp slots
  unsigned max_threads = 1024;    // thread contexts
  std::uint64_t register_file_bytes = 65536;
  std::uint64_t shared_memory_bytes = 16384;
  warp_policy scheduler = warp_policy::lrr;
  divergence_policy divergence = divergence_policy::stack;
  unsigned active_warps = 8;      // two-level: size of the active set
  unsigned inflight = 1;          // instructions per warp in the pipeline
  unsigned lat_alu = 4, lat_mul = 4, lat_sfu = 16, lat_branch = 4;
  unsigned lat_lsu = 4;           // address generation and write-back around a memory access
  unsigned segment_bytes = 128;   // global coalescing segment
  unsigned operand_banks = 0;     // register-file banks of the operand collector (0: no conflicts)
  unsigned operand_bank_width = 1;  // registers a bank reads per cycle
  unsigned quantum = 1000;
  std::uint64_t max_instructions = 1000000000;  // runaway guard (warp instructions)

  void visit(param_visitor& v);
  std::vector<param_issue> check() const;
  // What it allocates by these parameters (see param_footprint).
  param_footprint footprint() const;
};

// How many blocks of the launch are resident on the core at once, limited by its warp slots,
// thread contexts, register file (registers_per_thread x 4 B per thread) and shared memory.
// Throws std::invalid_argument when not even one block fits.
unsigned resident_blocks(const simt_core_params& p, const simt_launch& l, unsigned registers_per_thread);

class simt_core : public module, public no_dmi_initiator, public programmable_core {
 public:
  using params = simt_core_params;
  tlm::tlm_initiator_socket<32> global;  // global memory
  tlm::tlm_initiator_socket<32> shared;  // shared memory (one region per resident block)
  // Asynchronous units (optional): the GMMA state machine (wgmma) and a TMA-style loader.
  sc_core::sc_port<gmma_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND> gmma;
  sc_core::sc_port<tma_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND> tma;
  // Sub-partition k's register file (rfK, optional): its operand collector reads each
  // instruction's sources and its results are written back there, through the banks and
  // crossbar the tensor path uses too; without one, operand_banks models the collector.
  using rf_port = sc_core::sc_port<register_file_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
  std::vector<std::unique_ptr<rf_port>> rf;

  simt_core(const sc_core::sc_module_name& name, const params& p);
  ~simt_core() override;

  // The kernel and its launch (before simulation starts). Throws std::invalid_argument
  // if the launch cannot run on this core (block larger than the thread contexts, ...).
  void load(const simt::kernel& k, const simt_launch& l);
  const params& parameters() const { return p_; }
  std::uint64_t thread_instructions() const;
  // The per-thread instruction counts of the finished warps as simt::thread_count_term sums.
  std::uint64_t thread_count_digest() const;

  programmable_core* as_core() override { return this; }
  std::vector<std::string> program_kinds() const override { return {"simt"}; }
  void load_program(const core_program& p) override;
  bool has_program() const override { return loaded_; }
  core_limits limits() const override { return {p_.max_instructions, p_.warp_size, 0}; }
  core_counts counts() const override;
  std::string pending_work() const override;
  std::string socket_lanes(const std::string& s) const override {
    return s == "global" || s == "shared"
               ? "sends: a warp access as one request of per-lane addresses (contiguous ones as plain bytes)"
               : "";
  }
  void attach_trace(trace_sink& sink) override;
  bool optional_socket(const std::string& s) const override {
    return s == "gmma" || s == "tma" || s.rfind("rf", 0) == 0;
  }
  // Hazard reports (on by default): accesses to shared memory and registers that the
  // kernel's synchronisation does not order (docs/hazards.md).
  void check_hazards(bool on) override { hazard_check_ = on; }
  std::string hazard_report() const override;
  void finish() override;

 private:
  using warp = simt::warp;
  using block_slot = simt::block_slot;
  void run();
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
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& delay) override;
  std::uint64_t access_done(const simt::memory_op& mo);
  void retire_block(unsigned slot, std::uint64_t t);
  std::uint64_t memory_horizon();
  void forget_memory_horizon();
  // The core's thread waits only through pause, which notes the simulated time it resumes
  // at: the issue loop reads it (now_, now_cycle_) instead of asking the kernel each time.
  template <class... A>
  void pause(const A&... a) {
    wait(a...);
    now_ = sc_core::sc_time_stamp();
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

  params p_;
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
  stat_counter warp_instr_, thread_instr_, idle_memory_, idle_scoreboard_, idle_barrier_, idle_async_, idle_wgmma_,
      idle_structural_, divergent_branches_, blocks_launched_,
      dwf_merged_, dwf_collisions_, resident_peak_, registers_per_thread_, operand_conflict_cycles_;
  std::uint64_t collect_operands(const warp& w, std::uint64_t t);
  // The sub-partition's bound register file (nullptr: none).
  register_file_if* rf_of(unsigned sub) { return sub < rf.size() && rf[sub]->size() ? rf[sub]->operator->() : nullptr; }
  std::unique_ptr<simt::async_counters> async_n_;  // mbarrier, TMA and wgmma operations
  std::vector<stat_counter> per_warp_, active_hist_;
  std::vector<trace_signal> warp_state_;
  std::unique_ptr<simt::mbarrier_tracer> mbar_tracer_;
  bool hazard_check_ = true;
  std::unique_ptr<simt::hazard_checker> hazards_;  // while checking, from the start of the run
  stat_counter hazard_accesses_, hazard_pairs_;
  trace_sink* timeline_ = nullptr;             // warp instructions as slices
};

}  // namespace flynn

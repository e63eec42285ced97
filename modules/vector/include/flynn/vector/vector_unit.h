// Cray-style vector unit: vector register file (max_vl elements of 64 bits per register),
// VL, VS and VM registers, pipelined functional units (one element per lane per cycle),
// L lanes (element i on lane i mod L), memory ports as TLM initiators (base + i * stride,
// or gather/scatter), chaining policies and two masked-execution implementations.
// See docs/modules/vector_unit.md.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/tlm/begin_request.h"
#include "flynn/tlm/lanes_extension.h"
#include "flynn/tlm/memory_manager.h"
#include "flynn/vector/dispatch.h"

namespace flynn {

enum class chaining_policy { none, flexible, cray1 };
enum class mask_policy { simple, density_time };

// The policies' values with their names (the `chaining` and `masking` parameters) and
// descriptions.
inline constexpr named_choice<chaining_policy> chaining_policies[] = {
    {chaining_policy::none, "none", "a consumer waits for the whole source vector"},
    {chaining_policy::flexible, "flexible", "element-wise forwarding"},
    {chaining_policy::cray1, "cray1",
     "chain slot: chains only if issued by the first source element's arrival"},
};
inline constexpr named_choice<mask_policy> mask_policies[] = {
    {mask_policy::simple, "simple", "all elements, write-back suppressed"},
    {mask_policy::density_time, "density_time", "only elements with their mask bit set take slots"},
};

struct vector_unit_params : clocked_params {
  property<unsigned> max_vl{this, {"max_vl", "elements",
      "vector register length (elements of 64 bits)"}, 64, 1, 4096};
  property<unsigned> lanes{this, {"lanes", "",
      "lanes: element i runs on lane i mod lanes, one element per lane per cycle"}, 1, 1, 32};
  property<chaining_policy> chaining{this, {"chaining", "",
      "chaining of dependent instructions"}, chaining_policy::flexible, chaining_policies};
  property<mask_policy> masking{this, {"masking", "",
      "masked execution"}, mask_policy::simple, mask_policies};
  property<unsigned> shared_ports{this, {"shared_ports", "",
      "memory ports for loads and stores"}, 1, 0, 16};
  property<unsigned> load_ports{this, {"load_ports", "", "load-only memory ports"}, 0, 0, 16};
  property<unsigned> store_ports{this, {"store_ports", "", "store-only memory ports"}, 0, 0, 16};
  property<bool> port_held_until_done{this, {"port_held_until_done", "",
      "a memory instruction holds its port until its last element is done (false: until its last "
      "element issued)"}, true};
  property<unsigned> queue_depth{this, {"queue_depth", "instructions",
      "instructions that may wait for a busy unit or port without blocking issue (0: issue "
      "waits, as the Cray-1)"}, 0, 0, 64};
  property<unsigned> lat_add{this, {"lat_add", "cycles",
      "integer add/subtract pipeline latency"}, 4, 1, 1000};
  property<unsigned> lat_logic{this, {"lat_logic", "cycles", "logic pipeline latency"}, 1, 1, 1000};
  property<unsigned> lat_shift{this, {"lat_shift", "cycles", "shift pipeline latency"}, 1, 1, 1000};
  property<unsigned> lat_mul{this, {"lat_mul", "cycles",
      "integer multiply pipeline latency"}, 7, 1, 1000};
  property<unsigned> lat_div{this, {"lat_div", "cycles",
      "divide/reciprocal pipeline latency"}, 20, 1, 1000};
  property<unsigned> lat_fadd{this, {"lat_fadd", "cycles",
      "floating-point add pipeline latency"}, 6, 1, 1000};
  property<unsigned> lat_fmul{this, {"lat_fmul", "cycles",
      "floating-point multiply pipeline latency"}, 7, 1, 1000};
  property<unsigned> lat_cmp{this, {"lat_cmp", "cycles",
      "compare (mask-setting) pipeline latency"}, 1, 1, 1000};
  property<unsigned> lat_control{this, {"lat_control", "cycles",
      "setvl, setvs and mask-register instructions"}, 1, 1, 1000};

  unsigned ports() const { return shared_ports + load_ports + store_ports; }
  std::vector<param_issue> check() const;
  // What it allocates by these parameters (see param_footprint).
  param_footprint footprint() const;
};

class vector_unit : public module, public vec::vector_dispatch_if {
 public:
  using params = vector_unit_params;
  using initiator_socket = tlm::tlm_initiator_socket<32>;
  enum class fu { add, logic, shift, mul, div, fadd, fmul, cmp, count_ };

  sc_core::sc_export<vec::vector_dispatch_if> dispatch_export;

  vector_unit(const sc_core::sc_module_name& name, const params& p);
  ~vector_unit() override;

  initiator_socket& port(unsigned i);
  unsigned port_count() const { return static_cast<unsigned>(ports_.size()); }
  const params& parameters() const { return p_; }
  std::uint64_t element(unsigned v, unsigned i) const { return vr_[v][i]; }

  vec::dispatch_result dispatch(const vec::instr& in, const vec::scalar_operands& ops,
                                std::uint64_t earliest) override;
  vec::dispatch_result drain() override;
  sc_core::sc_time clock() const override { return clock_period(); }
  unsigned max_vl() const override { return p_.max_vl; }

  void attach_trace(trace_sink& sink) override;
  void finish() override;
  std::string pending_work() const override;
  std::string socket_lanes(const std::string& s) const override {
    return s.rfind("port", 0) == 0 ? "sends: an element group as one request of per-lane addresses (lanes > 1)" : "";
  }

 private:
  // A time that is not known yet: a memory response still to come, or what depends on one.
  static constexpr std::uint64_t unknown = ~std::uint64_t(0);
  using time_cell = std::shared_ptr<std::uint64_t>;  // a time filled in when it is known

  struct mem_port;
  struct flight;
  struct request;
  struct unit_state {
    time_cell free_at = std::make_shared<std::uint64_t>(0);  // the last instruction's release
    std::deque<time_cell> waiting;  // first-element start of queued instructions
    stats_group stats;              // nested in the unit's as "fu_<name>_"
    statistic element_ops{stats, "elements", "elements", "element operations"};
    statistic busy_cycles{stats, "busy_cycles", "cycles", "cycles an element group entered the pipeline"};
    stat_counter instructions;
    trace_signal busy, element;
  };

  // The first and the last element result of one write of a vector register.
  struct write_times {
    std::uint64_t first = 0, full = 0;
  };
  // Timing of a vector register, per element: written (available) at, last read at.
  struct reg_timing {
    std::vector<std::uint64_t> ready;
    std::vector<std::uint64_t> read_until;
    std::shared_ptr<write_times> last = std::make_shared<write_times>();  // the latest write's
  };

  // Issue (decisions taken at the issue cycle at the latest, see dispatch).
  struct issue_plan;
  bool plan_issue(const vec::instr& in, std::uint64_t t, issue_plan& p, std::uint64_t& until);
  int later(std::uint64_t x, std::uint64_t t, std::uint64_t& until) const;
  int chains(const write_times& r, std::uint64_t& t, std::uint64_t& until) const;
  bool admit(std::deque<time_cell>& waiting, std::uint64_t& t, std::uint64_t free_at,
             std::uint64_t& until) const;
  std::string commit(const vec::instr& in, const vec::scalar_operands& ops, const issue_plan& p);
  void settle();
  // Element groups, in simulated time.
  void advance();
  // Per register (bit v of a flight's reads and writes; 8: VM), the first element still to
  // start among the earlier instructions in flight that write it and that read it.
  struct hazard_fronts {
    std::array<std::uint64_t, 9> write, read;
  };
  bool blocked(const flight& f, const hazard_fronts& h) const;
  void add_front(const flight& f, hazard_fronts& h) const;
  bool start_group(flight& f);
  bool start_arith_group(flight& f);
  bool start_memory_group(flight& f);
  void finish_flight(flight& f);
  const std::uint64_t* unknown_of(unsigned v, unsigned e, bool chained, const write_times& w) const;
  bool waits(flight& f, const std::uint64_t* t);
  std::uint64_t operand_ready(unsigned v, unsigned e, bool chained, const write_times& w) const;
  void send_requests(mem_port& port);
  void complete(request& rq, std::uint64_t done);
  void group_done(const request& rq, std::uint64_t done);
  void set_fault(const flight& f, const std::string& what);
  tlm::tlm_sync_enum nb_transport_bw(mem_port& port, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& delay);
  std::uint64_t alu(vec::op o, std::uint64_t a, std::uint64_t b) const;
  fu unit_of(vec::op o) const;
  unsigned latency_of(fu u) const;
  void count_ops(std::uint64_t cycle, unsigned n);
  // A trace signal's change at `cycle` (the time is computed only when the signal is traced).
  void trace(trace_signal& sig, std::uint64_t cycle, std::uint64_t value) const {
    if (sig.enabled()) sig.set(to_time(cycle), value);
  }
  void flush_ops(std::uint64_t before);
  std::vector<unsigned> active_elements(bool masked) const;

  params p_;
  std::vector<std::vector<std::uint64_t>> vr_;  // architectural vector registers
  std::vector<reg_timing> rt_;
  std::vector<bool> vm_;
  std::uint64_t vl_ = 0, vs_ = 1;
  std::uint64_t vl_ready_ = 0, vm_ready_ = 0;
  unsigned compares_in_flight_ = 0;  // vm_ready_ and vm_ are final when none
  std::uint64_t first_issue_ = 0, last_issue_ = 0, drain_ = 0;
  bool issued_any_ = false;
  std::array<unit_state, static_cast<std::size_t>(fu::count_)> units_;
  std::vector<std::unique_ptr<mem_port>> ports_;

  // Instructions whose element groups are still to start or whose memory responses are still
  // to come, in program order.
  std::vector<std::unique_ptr<flight>> flights_;  // (a few: a vector, scanned often)
  // Request records (in flight while their gp is set; kept and reused) and the free ones.
  std::vector<std::unique_ptr<request>> requests_;
  std::vector<request*> free_requests_;
  request* new_request();
  void free_request(request& rq);
  request* request_of(const tlm::tlm_generic_payload& gp) const;
  payload_pool pool_;
  end_resp_sender end_resp_owed_;
  std::uint64_t next_seq_ = 0;
  bool advancing_ = false, advance_again_ = false;
  // The issue stage (dispatch, drain: the core's thread) waits for something to become known.
  // It is woken in the evaluation phase after each one in which groups advanced, as a wait for
  // every advance would be, but only when what it reads changed since it last looked (a wake
  // that would find nothing new is left out: it would change nothing).
  sc_core::sc_event progress_ev_;
  bool issue_waiting_ = false;  // the issue stage waits on progress_ev_
  bool issue_news_ = false;     // what it reads changed since it last looked
  std::uint64_t advanced_phase_ = ~std::uint64_t(0);  // the latest evaluation phase (delta count) with an advance
  sc_core::sc_time advanced_at_;                      // and its time
  bool advanced_before_ = false;  // that phase follows one with an advance, at the same time
  std::uint64_t issue_phase_ = ~std::uint64_t(0);     // the latest phase the issue stage looked in
  sc_core::sc_time issue_at_;
  void progress();
  void issue_looks();
  void wait_progress();
  void wait_progress(const sc_core::sc_time& timeout);
  sc_core::sc_time settled_at_ = sc_core::SC_ZERO_TIME;
  bool settled_ = false;                   // every response of settled_at_ has arrived
  std::string fault_;                      // a fault met by an instruction in flight
  std::int64_t fault_pc_ = -1;

  // Element operations per cycle: a window of recent cycles, folded into a histogram.
  // ops_window_[i] is cycle ops_window_base_ + i: 0 when no group started then, else 1 + the
  // element ops starting then (a few cycles ahead of the flushed ones: indexed by cycle, as
  // groups of different instructions start out of cycle order).
  std::vector<std::uint32_t> ops_window_;
  std::uint64_t ops_window_base_ = 0;
  std::uint64_t ops_base_ = 0;                          // first cycle not yet folded
  bool ops_started_ = false;

  // Statistics, in the order they are written.
  statistic instructions_{stats_, "instructions", "instructions",
                          "vector instructions dispatched (control included)"};
  statistic element_ops_{stats_, "element_ops", "elements", "element operations (arithmetic, compare, memory)"};
  statistic mem_elements_{stats_, "memory_elements", "elements", "elements loaded or stored"};
  statistic chained_{stats_, "chained_operands", "operands",
                     "vector source operands read element by element from an instruction still in flight"};
  statistic unchained_{stats_, "unchained_operands", "operands",
                       "vector source operands that waited for the whole producing instruction"};
  statistic masked_skipped_{stats_, "masked_off_elements", "elements",
                            "elements not written because their mask bit is 0"};
  statistic port_stall_{stats_, "port_stall_cycles", "cycles",
                        "cycles memory instructions waited for a port held by an earlier one"};
  // Each function unit's, then each memory port's (their number is a parameter): nested
  // groups the constructor places here.
  stats_group parts_stats_{stats_, ""};
  statistic_vector ops_hist_{stats_, "element_ops_per_cycle", "cycles",
                             "histogram: cycles (from the first vector element to the last) with k element operations "
                             "starting, k = index"};
  stat_formula peak_ops_{stats_, "peak_element_ops_per_cycle",
                         [this] {
                           for (std::size_t k = ops_hist_.size(); k-- > 0;)
                             if (ops_hist_[k].value()) return double(k);
                           return 0.0;
                         },
                         "elements/cycle", "most element operations started in one cycle"};
  stat_formula issue_rate_{stats_, "issue_rate",
                           [this] {
                             return issued_any_ ? double(instructions_.value()) / double(last_issue_ - first_issue_ + 1)
                                                : 0.0;
                           },
                           "instructions/cycle", "vector instructions issued per cycle from the first issue to the last"};
  stat_formula lane_utilisation_{stats_, "lane_utilisation",
                                 [this] {
                                   std::uint64_t busy = 0;
                                   for (const auto& u : units_) busy += u.busy_cycles.value();
                                   return busy ? double(element_ops_.value() - mem_elements_.value()) /
                                                     double(busy * p_.lanes)
                                               : 0.0;
                                 },
                                 "", "arithmetic element operations / (lanes x unit busy cycles)"};
  trace_signal vl_sig_, vm_pop_sig_;
  std::vector<trace_signal> reg_progress_;
};

}  // namespace flynn

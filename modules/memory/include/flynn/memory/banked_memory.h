// Banked memory: N independently accessible banks behind one or more ports, as vector main
// memory, GPU global memory or GPU shared memory. A TLM-2.0 base-protocol target per port
// (b_transport, 4-phase nb_transport_fw, DMI, transport_dbg). See docs/modules/banked_memory.md.
#pragma once

#include <cstdint>
#include <array>
#include <deque>
#include <functional>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/common/cycle_times.h"
#include "flynn/common/golden.h"
#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/memory/bank_mapping.h"
#include "flynn/memory/occupancy_calendar.h"
#include "flynn/memory/word_records.h"
#include "flynn/tlm/lanes_extension.h"

namespace flynn {

class atomic_extension;

enum class memory_init { zero, iota, random };

inline constexpr std::pair<memory_init, const char*> memory_init_names[] = {
    {memory_init::zero, "zero"}, {memory_init::iota, "iota"}, {memory_init::random, "random"}};

struct banked_memory_params : clocked_params {
  property<std::uint64_t> size_bytes{this, {"size_bytes", "B",
      "capacity in bytes (a multiple of word_bytes)"}, 1 << 20, 1, std::uint64_t(1) << 30};
  property<unsigned> word_bytes{this, {"word_bytes", "B",
      "bytes per bank word (power of two)"}, 8, 1, 4096};
  property<unsigned> banks{this, {"banks", "",
      "number of independently accessible banks"}, 16, 1, 4096};
  property<bank_mapping_kind> mapping{this, {"mapping", "",
      "address to bank mapping"}, bank_mapping_kind::word_interleaved, bank_mappings};
  property<unsigned> block_words{this, {"block_words", "words",
      "words per block for the block mapping"}, 4, 1, 1 << 20};
  property<unsigned> latency{this, {"latency", "cycles",
      "bank access latency: request issue to data delivered"}, 11, 1, 1 << 20};
  property<unsigned> bank_busy{this, {"bank_busy", "cycles",
      "cycles a bank stays busy per access (0: = latency)"}, 0, 0, 1 << 20};
  property<unsigned> shared_ports{this, {"shared_ports", "",
      "ports that serve loads and stores"}, 1, 0, 64};
  property<unsigned> load_ports{this, {"load_ports", "", "load-only ports"}, 0, 0, 64};
  property<unsigned> store_ports{this, {"store_ports", "", "store-only ports"}, 0, 0, 64};
  property<bool> multiported_banks{this, {"multiported_banks", "",
      "each port has its own access path into every bank (false: ports share the banks)"}, true};
  property<bool> lt_race_fault{this, {"lt_race_fault", "",
      "a write landing in a word before an LT read that was answered earlier reads it is a fault "
      "(false: the read keeps the value it was answered with)"}, true};
  property<bool> lt_time_order{this, {"lt_time_order", "",
      "an LT call for a later cycle (made from a thread) waits in the memory until that cycle "
      "and is granted in time order with the others (false: booked at once, in call order, and "
      "the run's summary says so)"}, true};
  property<bool> dmi{this, {"dmi", "", "grant direct memory interface pointers"}, true};
  property<bool> ideal{this, {"ideal", "",
      "an ideal memory for attribution (flynn attribute): every request is served at its arrival "
      "cycle in one pass, whatever its banks and port, with no latency; the data and statistics "
      "of requests as before"}, false};
  property<memory_init> init{this, {"init", "",
      "initial contents: zero, iota (word index) or random"}, memory_init::zero, memory_init_names};
  property<std::uint64_t> seed{this, {"seed", "", "seed of the random initial contents"}, 1};

  unsigned ports() const { return shared_ports + load_ports + store_ports; }
  unsigned busy_cycles() const { return bank_busy ? bank_busy : latency; }

  std::vector<param_issue> check() const;
  // What it allocates by these parameters (see param_footprint).
  param_footprint footprint() const;
};

class banked_memory : public module, public golden_memory, public backdoor_memory {
 public:
  using params = banked_memory_params;
  enum class port_kind { shared, load, store };
  using target_socket = tlm::tlm_target_socket<32>;

  banked_memory(const sc_core::sc_module_name& name, const params& p);
  ~banked_memory() override;

  // Port sockets, in order: shared ports, then load-only, then store-only ports.
  // Named port0, port1, ...
  target_socket& port(unsigned i);
  unsigned port_count() const { return static_cast<unsigned>(ports_.size()); }
  port_kind kind_of_port(unsigned i) const;
  const params& parameters() const { return p_; }

  // Changes the access latency at run time; invalidates every DMI pointer handed out.
  void set_latency(unsigned cycles);
  // Functional access without timing (the golden view of the contents).
  void peek(std::uint64_t addr, unsigned char* dst, std::size_t len) const override;
  void poke(std::uint64_t addr, const unsigned char* src, std::size_t len) override;
  std::string backdoor_name() const override { return name(); }
  std::uint64_t backdoor_bytes() const override { return p_.size_bytes; }
  backdoor_memory* as_backdoor() override { return this; }
  // The initial value of the byte at `addr` given the init parameters.
  static void initial_image(const params& p, std::vector<unsigned char>& image);
  void golden_initial_image(std::vector<unsigned char>& image) const override { initial_image(p_, image); }
  void golden_final_image(std::vector<unsigned char>& image) const override {
    image.resize(p_.size_bytes);
    peek(0, image.data(), image.size());
  }

  void attach_trace(trace_sink& sink) override;
  void finish() override;
  // AT: a response whose END_RESP never came (the initiator broke the handshake).
  std::string pending_work() const override;
  std::vector<std::string> run_notes() const override;
  std::string socket_lanes(const std::string& s) const override {
    (void)s;
    return "serves: one address per lane, as many wavefronts as the most words in one bank";
  }

 private:
  struct port_state;
  struct timing {
    std::uint64_t start = 0;  // first wavefront issued (END_REQ)
    std::uint64_t done = 0;   // last word delivered (BEGIN_RESP)
  };

  [[gnu::cold, gnu::noinline]] void debug_request(std::size_t port, const tlm::tlm_generic_payload& gp,
                                                 std::uint64_t arrival, std::uint64_t words,
                                                 std::uint64_t wavefronts, std::uint64_t first,
                                                 std::uint64_t done) const;
  // Validates a payload for a port; sets the response status and returns false on error.
  // The extensions of a request that the memory acts on, looked up once per call (a lookup
  // is a call into the kernel library).
  struct request_ext {
    atomic_extension* atomic;
    lanes_extension* lanes;
  };
  static request_ext extensions_of(tlm::tlm_generic_payload& gp);
  bool admit(tlm::tlm_generic_payload& gp, const port_state& ps, const request_ext& x) const;
  // Reserves port and banks for a request arriving at `arrival` (cycles).
  // `latency`: the access latency that applies to it.
  timing reserve(port_state& ps, tlm::tlm_generic_payload& gp, const lanes_extension* lx, std::uint64_t arrival,
                 unsigned latency);
  std::size_t plan_waves(bool direct);
  timing reserve_ideal(port_state& ps, tlm::tlm_generic_payload& gp, std::uint64_t arrival);
  void book_passes(std::size_t max_run, std::size_t min_passes, std::uint64_t t0, std::size_t group, std::uint64_t busy);
  timing served(port_state& ps, tlm::tlm_generic_payload& gp, std::uint64_t arrival, std::uint64_t t0,
                std::uint64_t last, std::size_t max_run, std::size_t words, std::size_t min_passes, unsigned latency);
  trace_sink* timeline_ = nullptr;  // memory transactions as async spans
  std::uint64_t spans_ = 0;
  void collect_words(tlm::tlm_generic_payload& gp, const lanes_extension* lx);
  bool one_range_banks(tlm::tlm_generic_payload& gp, const lanes_extension* lx);
  // The banks of a one-wavefront request: as a mask with at most 64 banks, else listed; and
  // its words (one per bank).
  std::uint64_t wave_mask_ = 0, all_banks_ = 0;  // (all_banks_: the mask of every bank)
  std::vector<unsigned> wave_banks_;
  std::size_t wave_words_ = 0;
  // (address, bytes) of the request reserve saw last when its words are one range (its active
  // lanes at consecutive addresses), else bytes 0: move_data moves it as one block.
  std::pair<std::uint64_t, std::uint64_t> range_;
  std::vector<std::uint64_t> bank_seen_;  // scratch of one_range_banks: a bank's mark
  std::uint64_t bank_stamp_ = 0;
  // `answer_later`: an AT read, answered at its BEGIN_RESP, whose words a write granted after
  // it but landing at or before their cycles still changes (see watch_).
  void move_data(tlm::tlm_generic_payload& gp, const request_ext& x, unsigned port, bool answer_later = false);
  std::uint64_t arrival_cycle(const sc_core::sc_time& delay) const;
  cycle_times done_times_{*this};     // LT: the times of the completions, mostly rising
  cycle_times arrival_times_{*this};  // LT: the arrival cycles, mostly rising

  // Transport, per port.
  void b_transport(unsigned port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(unsigned port, tlm::tlm_generic_payload& gp,
                                     tlm::tlm_phase& phase, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(unsigned port, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);
  void end_req_process(unsigned port);
  void arbitrate();
  void schedule_arbiter(std::uint64_t cycle);
  sc_core::sc_time timed_wake_;  // the cycle of the arbiter's pending timed wake-up
  // AT requests waiting for their cycle; granted by (arrival cycle, port, sequence).
  // An LT call for the current cycle, waiting in b_transport for its grant.
  struct lt_grant {
    sc_core::sc_event granted;
    timing t;
  };
  struct at_request {
    std::uint64_t arrival;
    unsigned port;
    std::uint64_t seq;
    tlm::tlm_generic_payload* gp;
    lt_grant* lt = nullptr;  // set for an LT call
    unsigned latency = 0;    // the access latency when the request arrived (set_latency applies to later ones)
    request_ext x{};         // its extensions, looked up when it came (a payload in flight keeps them)
  };
  std::vector<at_request> at_pending_, batch_;
  bool grant_at(const at_request& r, std::uint64_t now);
  std::uint64_t at_seq_ = 0;
  sc_core::sc_event arbiter_ev_;
  bool arbiter_settled_ = false;
  void respond();
  void respond_port(port_state& ps, std::uint64_t now_cycle);
  sc_core::sc_event respond_ev_;  // the responder's wake-up (see respond())
  void invalidate_dmi();
  bool dmi_granted_ = false;  // a DMI pointer may be held (none invalidated since the last grant)

  params p_;
  std::unique_ptr<bank_mapping> mapping_;
  fixed_divisor word_;  // word_bytes
  mutable std::vector<unsigned char> data_;  // mutable: queued writes land on a const view
  std::vector<std::unique_ptr<port_state>> ports_;
  std::vector<occupancy_calendar> banks_;  // per bank, or per (port, bank) when multiported
  // The end of each bank's latest booking: the larger of bank_end_ (the same indices as
  // banks_) and full_end_ of its bank group (the banks_ of one port when multiported, else
  // all): the end of the latest wavefront over every bank of the group, kept once for all of
  // them. group_end_: the latest end over the group's banks.
  std::vector<std::uint64_t> bank_end_, full_end_, group_end_;
  // One-wavefront bookings made after everything their banks had booked, one for all of
  // their banks: they go into the bank calendars (book_waves) before a calendar is asked.
  struct wave {
    std::uint64_t from, to, banks;  // banks: bit b for bank b (+ bank_base)
    std::size_t bank_base;
  };
  std::vector<wave> waves_;
  void book_waves();
  std::vector<std::uint64_t> passes_;     // scratch: the issue cycle of each wavefront
  // Scratch: the cycle of each word of the last request reserved with several wavefronts: by
  // word - when_base_ in when_flat_ when its words lie close together, else (word, cycle)
  // pairs sorted by word in word_when_ (word_cycle reads either).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> word_when_;
  std::vector<std::uint64_t> when_flat_;
  std::uint64_t when_base_ = 0;
  bool one_wavefront_ = false;  // the last request reserved had one wavefront (neither is then filled)
  std::uint64_t word_cycle(std::uint64_t w) const;
  // Writes for cycles ahead of simulated time: by word (see word_records.h), and by cycle
  // (cycle_buckets: in (cycle, order made) order) for landing them in the array when their
  // cycle has come.
  struct pending_write {
    std::uint64_t cycle, seq, addr;
    unsigned len;
    std::array<unsigned char, 16> small;  // the bytes, when they fit (words of up to 16 B)
    std::vector<unsigned char> large;     // else here
    const unsigned char* bytes() const { return len <= small.size() ? small.data() : large.data(); }
  };
  struct landing {
    std::uint64_t word;
    std::uint32_t slot;  // in pending_
  };
  mutable word_records<pending_write> pending_;
  mutable cycle_buckets<landing> commit_order_;
  std::uint64_t write_seq_ = 0;
  mutable std::vector<const pending_write*> overlay_scratch_;
  void write_word(std::uint64_t w, std::uint64_t when, std::uint64_t lo, std::uint64_t hi, const unsigned char* src,
                  unsigned port, std::uint64_t now);
  // LT reads answered when granted, for a word cycle not yet past: a write granted after one
  // that lands at or before its cycle is a race the LT read cannot see (see check_lt_reads).
  struct lt_read {
    std::uint64_t cycle, granted;
    unsigned port;
  };
  word_records<lt_read> lt_reads_;
  std::size_t lt_reads_sweep_at_ = 4096;  // the count at which those of past cycles are swept out
  void check_lt_reads(std::uint64_t w, std::uint64_t when, unsigned port, std::uint64_t now);
  std::string race_;          // the first race found, reported by a thread of its own
  sc_core::sc_event race_ev_;
  void overlay(std::uint64_t w, std::uint64_t when, std::uint64_t lo, std::uint64_t hi, unsigned char* dst) const;
  void commit_until(std::uint64_t cycle) const;
  // AT reads not answered yet, by word: the cycle the word is read, and where its bytes go;
  // and by request, the (word, slot) of each of its records.
  struct read_watch {
    std::uint64_t cycle, lo, hi;
    unsigned char* dst;
  };
  word_records<read_watch> watch_;
  using watch_list = std::vector<std::pair<std::uint64_t, std::uint32_t>>;
  // The records move_data made for the request it moved last (an AT read): grant_at hands
  // them to the request's response, which removes them when it is answered.
  watch_list new_watches_;
  std::vector<watch_list> spare_watch_lists_;  // emptied lists, keeping their capacity
  void refresh_watchers(std::uint64_t w, std::uint64_t when);
  void unwatch(watch_list& records);
  unsigned since_forget_ = 0;
  // The latest cycle served at once to a caller alone until it (b_transport): no request can
  // come for an earlier cycle, so the bookings that ended before it are the past too.
  std::uint64_t served_alone_until_ = 0;
  void forget_past();
  std::vector<std::pair<unsigned, std::uint64_t>> scratch_;  // (bank, word) of a request
  std::vector<unsigned> bank_scratch_;                        // the banks of a range of words
  std::vector<std::pair<unsigned, std::uint64_t>> sorted_;    // scratch of sort_words
  std::vector<std::size_t> bank_counts_;                      // scratch of sort_words
  void sort_words();
  std::vector<std::size_t> runs_;                             // scratch: bank run starts
  std::uint64_t first_cycle_ = UINT64_MAX, last_cycle_ = 0;

  // Statistics, in the order they are written.
  statistic reads_{stats_, "reads", "requests", "read requests served"};
  statistic writes_{stats_, "writes", "requests", "write requests served"};
  statistic bytes_read_{stats_, "bytes_read", "B", "bytes read"};
  statistic bytes_written_{stats_, "bytes_written", "B", "bytes written"};
  statistic atomics_{stats_, "atomic_operations", "elements",
                     "elements read, modified and written by atomic requests (one per lane)"};
  statistic word_accesses_{stats_, "word_accesses", "words", "bank word accesses (lanes reading one word share it)"};
  statistic wavefronts_{stats_, "wavefronts", "wavefronts",
                        "bank passes issued; a request needs as many as the most words it has in one bank"};
  statistic_vector bank_accesses_{stats_, "bank_accesses", "words", "word accesses per bank"};
  statistic_vector port_requests_{stats_, "port_requests", "requests", "requests per port"};
  statistic conflicts_{stats_, "bank_conflicts", "accesses",
                       "word accesses that waited for a bank: issued in a pass beyond the fewest a request's distinct "
                       "words need (ceil(words / banks)), or in a pass delayed by a bank still busy"};
  statistic bank_stall_{stats_, "bank_stall_cycles", "cycles",
                        "cycles requests finished later than the fewest passes their distinct words need would let "
                        "them, because of busy banks"};
  statistic port_stall_{stats_, "port_stall_cycles", "cycles",
                        "cycles requests waited for a port still issuing an earlier request's wavefronts"};
  statistic call_order_grants_{
      stats_, "call_order_grants", "requests",
      "requests granted after another port's LT call for a later cycle had been booked (an initiator running "
      "ahead of simulated time): their arbitration followed call order, not simulated time (see lt_time_order)"};
  statistic errors_{stats_, "errors", "requests", "requests answered with an error response"};
  statistic dbg_{stats_, "debug_accesses", "requests", "transport_dbg calls"};
  stat_formula elements_per_cycle_{
      stats_, "elements_per_cycle",
      [this] {
        if (word_accesses_.value() == 0) return 0.0;
        return double(word_accesses_.value()) / double(last_cycle_ - first_cycle_ + 1);
      },
      "words/cycle", "word accesses per cycle from the first to the last wavefront issued"};
  std::vector<std::uint64_t> lt_ahead_;  // per port: the latest cycle an LT call booked ahead of time
  void note_call_order(unsigned port, std::uint64_t arrival);
  struct caller_info {
    bool thread = false, local_time = false;
  };
  const caller_info& know_caller(sc_core::sc_process_b* caller);
  sc_core::sc_process_handle last_caller_;
  caller_info last_caller_info_;

  // Tracing: busy intervals merged per bank / port before they are recorded.
  struct interval_trace {
    trace_signal sig;
    std::uint64_t from = 0, to = 0;
    bool open = false;
  };
  std::vector<interval_trace> bank_trace_, port_trace_;
  bool tracing_ = false;
  void record(interval_trace& t, std::uint64_t from, std::uint64_t to);
  void flush(interval_trace& t);

  friend struct port_adapter;
};

}  // namespace flynn

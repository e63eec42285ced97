// A timing stage of a memory hierarchy: target ports upstream, one initiator socket `down`
// to the next stage or the data array. The base class takes care of the TLM-2.0 base
// protocol on both sides (AT and LT upstream; AT downstream, or LT for an LT call, carried
// down in its caller's thread; one request phase and one response phase open per socket)
// and of simulated-time order: requests are handed to the stage's schedule() at their
// arrival cycle, one delta cycle after it starts, in (arrival cycle, port, order) order,
// whatever order the initiators ran in. The stage decides when END_REQ goes back
// (end_req_at), when the request goes on down (forward_at) and when its response goes up
// (respond_at, by default when the next level answers); it may send requests of its own
// (fills, write-backs: issue_own). Requests a cache level has already served
// (hierarchy_extension::serviced) pass straight through.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/common/module.h"
#include "flynn/tlm/at_request_queue.h"
#include "flynn/tlm/begin_request.h"
#include "flynn/tlm/hierarchy_extension.h"
#include "flynn/tlm/memory_manager.h"

namespace flynn {

class timing_stage : public module {
 public:
  // `outputs` initiator sockets to the next stage or the data array: "down" when there is
  // one, else down0, down1, ...
  timing_stage(const sc_core::sc_module_name& name, double clock_ns, unsigned ports, unsigned outputs = 1);
  ~timing_stage() override;

  tlm::tlm_target_socket<32>& port(unsigned i);
  tlm::tlm_initiator_socket<32>& output(unsigned i);
  unsigned port_count() const { return static_cast<unsigned>(sockets_.size()); }
  unsigned output_count() const { return static_cast<unsigned>(downs_.size()); }
  std::string pending_work() const override;
  std::string socket_lanes(const std::string& s) const override {
    (void)s;
    return "passes on: the blocks every lane touches are looked up";
  }

 protected:
  struct request {
    tlm::tlm_generic_payload* gp = nullptr;
    unsigned port = 0;
    std::uint64_t arrival = 0, seq = 0;
    unsigned out = 0;  // the output it goes down through
    bool lt = false, answered = false, own = false, serviced = false;
    bool lt_send = false;  // an LT request the stage sends on: its caller's thread calls b_transport down
    bool passed_on = false;  // for the stage's own use (a cache: passed on, out of its queue before the response)
    std::function<void(std::uint64_t)> on_answer;  // own requests: the answer's cycle
    hierarchy_extension mark;                      // own requests, and serviced marks set here
    bool marked = false;                           // `mark` is set on an initiator's payload
    bool flagged = false;                          // serviced set on the initiator's own mark, to undo
    sc_core::sc_event lt_answer;
  };

  // A request whose arrival cycle has come (not a serviced one: those pass through).
  virtual void schedule(request& r) = 0;
  // The next level answered the request forwarded for r at cycle `at` (not own or serviced
  // ones): by default the response goes up at once.
  virtual void answered(request& r, std::uint64_t at) { respond_at(r, at); }
  // The least cycles from a payload's arrival to its response here, whatever happens to it
  // (a promise to initiators that ask; 0 promises nothing).
  virtual std::uint64_t least_latency(const tlm::tlm_generic_payload& gp) const = 0;
  // The output a payload goes down through (served requests and debug accesses too).
  virtual unsigned route(const tlm::tlm_generic_payload& gp) const {
    (void)gp;
    return 0;
  }
  // The response of a request schedule() took has gone up (BEGIN_RESP sent, or an LT call
  // answered); r is then recycled.
  virtual void response_sent(request& r) { (void)r; }

  void end_req_at(request& r, std::uint64_t cycle);
  void forward_at(request& r, std::uint64_t cycle);  // through output route(*r.gp)
  void respond_at(request& r, std::uint64_t cycle);
  // Marks r's payload as served by this level (for the levels below) until its response.
  void mark_serviced(request& r);
  void unmark(request& r);
  // A request of the stage's own to the next level at `cycle` (timed as a read or a write;
  // no data moves): `done` gets the cycle its answer comes. Its payload carries a valid data
  // pointer to `length` bytes nobody reads or writes (the base protocol asks for one whenever
  // the length is not 0); `length` is at most what own_request_bytes declared.
  void issue_own(bool write, std::uint64_t address, unsigned length, std::uint64_t cycle,
                 std::function<void(std::uint64_t)> done);  // through output 0
  // The bytes r touches, as `block`-aligned block numbers in order, each once (its lanes'
  // elements, or its address range).
  // An ideal stage (attribution: `ideal` parameter) adds no time and no limit: each request
  // goes on down at its arrival cycle, untimed here, and its response goes up when the next
  // level answers. `serves`: the stage serves everything itself (a perfect cache), so the
  // levels below do not time its requests either. Its own statistics count nothing.
  void set_ideal(bool ideal, bool serves) {
    ideal_ = ideal;
    ideal_serves_ = serves;
  }
  bool ideal() const { return ideal_; }
  // Declares the longest own request (before the first): the size of its payloads' buffers.
  void own_request_bytes(unsigned bytes) { own_pool_.set_capacity(bytes); }
  static void blocks_of(const tlm::tlm_generic_payload& gp, std::uint64_t block, std::vector<std::uint64_t>& out);
  // Whether a payload is a write for timing (a write command, or an own write-back).
  static bool is_write(const tlm::tlm_generic_payload& gp);
  std::uint64_t now_cycle() const { return to_cycles_ceil(flynn::sim_now()); }
  trace_signal in_flight_sig_;

 private:
  struct port_adapter;
  struct output_adapter;
  tlm::tlm_sync_enum nb_transport_fw(unsigned port, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& delay);
  void b_transport(unsigned port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);
  tlm::tlm_sync_enum nb_transport_bw(unsigned output, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& delay);
  request* new_request(tlm::tlm_generic_payload& gp, unsigned port, std::uint64_t arrival, bool lt);
  void finish_request(request* r);
  request* request_of(const tlm::tlm_generic_payload* gp) const;
  void arbitrate();
  void wake_arbiter(std::uint64_t cycle);
  void send_down(unsigned output);
  void down_answered(request* r, const sc_core::sc_time& when);
  void send_response(unsigned port);

  enum class action { end_req, send_down, respond };
  struct timed {
    std::uint64_t cycle, seq;
    action what;
    request* r;
    bool operator>(const timed& o) const { return std::tie(cycle, seq) > std::tie(o.cycle, o.seq); }
    bool operator<(const timed& o) const { return std::tie(cycle, seq) < std::tie(o.cycle, o.seq); }
  };
  void at(std::uint64_t cycle, action what, request* r);
  void run_actions();
  void notify_actions(const sc_core::sc_time& when, const sc_core::sc_time& now);
  sc_core::sc_time timed_at_ = sc_core::SC_ZERO_TIME;  // see notify_actions

  std::vector<std::unique_ptr<tlm::tlm_target_socket<32>>> sockets_;
  std::vector<std::unique_ptr<port_adapter>> adapters_;
  std::vector<std::unique_ptr<request>> requests_;  // records in use or free
  std::vector<request*> free_;
  // In-flight requests by payload: open addressing with linear probing (a lookup per phase
  // call, an insert and an erase per request; a node-based map allocates for each insert).
  class payload_index {
   public:
    void insert(const tlm::tlm_generic_payload* gp, request* r);
    request* find(const tlm::tlm_generic_payload* gp) const;
    void erase(const tlm::tlm_generic_payload* gp);

   private:
    struct slot {
      const tlm::tlm_generic_payload* gp = nullptr;
      request* r = nullptr;
    };
    std::size_t home(const tlm::tlm_generic_payload* gp) const {
      const auto v = reinterpret_cast<std::uintptr_t>(gp);
      return static_cast<std::size_t>((v >> 4) * 0x9E3779B97F4A7C15ull >> 32) & (slots_.size() - 1);
    }
    void grow();
    std::vector<slot> slots_;
    std::size_t used_ = 0;
  };
  payload_index by_payload_;  // in flight
  std::vector<request*> pending_, batch_;  // accepted, waiting for their arrival cycle
  std::uint64_t seq_ = 0;
  sc_core::sc_event arbiter_ev_, actions_ev_;
  sc_core::sc_time arbiter_at_ = sc_core::SC_ZERO_TIME;
  bool settled_ = false;
  std::priority_queue<timed, std::vector<timed>, std::greater<timed>> actions_;
  // Actions for the current cycle made at that cycle, in the order made (from now_head_):
  // run with the heap's due ones, in (cycle, seq) order, without a heap push and pop.
  std::vector<timed> now_actions_;
  std::size_t now_head_ = 0;
  std::vector<std::unique_ptr<tlm::tlm_initiator_socket<32>>> downs_;
  std::vector<std::unique_ptr<output_adapter>> output_adapters_;
  std::vector<at_request_queue> down_q_;  // per output
  end_resp_sender owed_;
  std::vector<std::deque<request*>> responses_;  // per port: ready to go up, oldest first
  std::vector<request*> resp_open_;               // per port: the response awaiting END_RESP
  payload_pool own_pool_{0};  // the payloads of own requests
  bool ideal_ = false, ideal_serves_ = false;
  unsigned in_flight_ = 0;
};

}  // namespace flynn

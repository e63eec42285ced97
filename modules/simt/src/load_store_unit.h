// The SIMT core's load/store unit: a warp's global access coalesced into one request per
// segment, a shared access as one multi-lane request, both sent as AT transactions for
// their arrival cycles; responses land the loaded data in the warp's registers. It owns its
// requests, payloads and queues; what it needs of the core (faults, block slots, the
// scoreboard) goes through lsu_host.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "core_state.h"
#include "flynn/common/bits.h"
#include "flynn/common/stats.h"
#include "flynn/common/trace.h"
#include "flynn/tlm/at_request_queue.h"
#include "flynn/tlm/begin_request.h"
#include "flynn/tlm/memory_manager.h"

namespace flynn {
class module;
}

namespace flynn::simt {

struct lane_groups;
class hazard_checker;

// What the load/store unit asks of the core it serves.
class lsu_host {
 public:
  virtual ~lsu_host() = default;
  // Lane `lane` of warp w fails its access (a fault of the kernel).
  virtual void lane_fault(const warp& w, unsigned lane, const std::string& what) = 0;
  // A warp's global access went out (its scheduler may set the warp back).
  virtual void long_latency(const warp& w) = 0;
  // The shared-memory region of block slot `block` and the block it holds.
  virtual std::uint64_t shared_base(unsigned block) const = 0;
  virtual unsigned block_id(unsigned block) const = 0;
  // The last response of a warp access is in (a load's data in the warp's registers, if it
  // is still the same warp): the core writes the results back, updates the scoreboard, or
  // reports mo.failure. Returns the cycle the warp can use the result.
  virtual std::uint64_t access_done(const memory_op& mo) = 0;
  // Every shared access of block slot `block` has been answered (at cycle `t`).
  virtual void shared_quiet(unsigned block, std::uint64_t t) = 0;
  // A target broke the AT protocol.
  virtual void protocol_fault(const std::string& what) = 0;
};

class load_store_unit {
 public:
  static constexpr std::uint64_t unknown_cycle = std::numeric_limits<std::uint64_t>::max();
  // The parameters it works by: lat_alu (an access with no lane taking part), lat_lsu
  // (address generation before a request, write-back after its response), the global
  // coalescing segment and the lanes of a warp.
  struct config {
    unsigned warp_size = 32, lat_alu = 4, lat_lsu = 4, segment_bytes = 128;
  };
  // Counters it keeps (the core names them in its statistics).
  struct counters {
    stat_counter global_requests, global_transactions, shared_requests;
    std::pair<stat_counter, stat_counter> shared_load_latency, global_load_latency;  // count, cycles
  };

  load_store_unit(const module& owner, lsu_host& host, const config& c, tlm::tlm_initiator_socket<32>& global,
                  tlm::tlm_initiator_socket<32>& shared);
  ~load_store_unit();
  load_store_unit(const load_store_unit&) = delete;
  load_store_unit& operator=(const load_store_unit&) = delete;

  // A launch's shared-memory region size (an access past it is a fault) and its block slots.
  void start(std::uint64_t shared_bytes, unsigned block_slots);
  void check_hazards(hazard_checker* h) { hazards_ = h; }

  // Issues warp w's access `in` over the lanes of `mask` at cycle t (the unit held for
  // `occupancy` cycles). Returns the completion cycle when it is known at issue (no lane
  // takes part, or a fault), else unknown_cycle: lsu_host::access_done tells it later.
  std::uint64_t execute(warp& w, const instr& in, std::uint32_t mask, std::uint64_t t, std::uint64_t occupancy);
  // Sends the requests execute queued, once the core has recorded the instruction (a
  // response may come within the call).
  void send() {
    send_requests(0);
    send_requests(1);
  }
  // The core's nb_transport_bw for its global and shared sockets.
  tlm::tlm_sync_enum transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& delay);

  // Accesses in flight, and those of one block slot's shared memory.
  unsigned in_flight() const { return in_flight_; }
  unsigned shared_in_flight(unsigned block) const { return shared_in_flight_[block]; }
  // Notified on each response.
  const sc_core::sc_event& news() const { return news_; }
  // The first cycle at which an access not answered yet could make its warp ready, as seen
  // at cycle `now` (settled: the responses due at `now` have all come, with lat_lsu 0). The
  // answer is kept until forget_horizon, a request sent or a response.
  std::uint64_t horizon(std::uint64_t now, bool settled);
  void forget_horizon() { horizon_known_ = false; }
  // The oldest access never answered, for a stall report ("" when none).
  std::string report() const;

  counters& counts() { return n_; }
  trace_signal& transactions_trace() { return transactions_; }

 private:
  const module& m_;
  lsu_host& host_;
  config c_;
  tlm::tlm_initiator_socket<32>* socket_[2];  // 0: global, 1: shared
  std::uint64_t shared_bytes_ = 0;
  hazard_checker* hazards_ = nullptr;
  counters n_;
  trace_signal transactions_;

  bool addresses_ok(warp& w, const instr& in, std::uint32_t active);
  void group_lanes(const warp& w, const instr& in, bool atomic);
  memory_op* new_op(warp& w, const instr& in, std::uint64_t t, std::uint64_t occupancy);
  void send_group(warp& w, const instr& in, memory_op* mo, std::size_t g, std::uint64_t t);
  void send_requests(unsigned port);
  void complete(tlm::tlm_generic_payload* gp, const sc_core::sc_time& at);
  void land(const memory_request& rq, const memory_op& mo, const tlm::tlm_generic_payload& gp);
  memory_request* request_of(tlm::tlm_generic_payload& gp) const;

  payload_pool pool_{32 * 16};  // a warp's lanes x the widest access
  // Request records (in flight while their gp is set; reused) and warp accesses in flight
  // (kept and reused likewise), with the free ones.
  std::vector<std::unique_ptr<memory_request>> requests_;
  std::vector<memory_request*> free_requests_;
  std::vector<std::unique_ptr<memory_op>> ops_;
  std::vector<memory_op*> free_ops_;
  // execute's scratch: the executing lanes, each lane's address, the lanes left to group.
  std::vector<unsigned> lanes_, pending_;
  std::vector<std::uint64_t> addr_;
  fixed_divisor segment_;
  std::unique_ptr<lane_groups> groups_;
  at_request_queue out_[2];  // per port
  unsigned in_flight_ = 0;
  std::vector<unsigned> shared_in_flight_;  // per block slot (its region outlives the block until they land)
  sc_core::sc_event news_;
  end_resp_sender end_resp_owed_;  // for responses on the return path of BEGIN_REQ
  // The accesses in flight by the earliest cycle each can be answered at, as known when the
  // entry was made (a later promise raises it; an answered request leaves a stale entry):
  // {cycle, use of the record, record}, earliest first.
  struct response_bound {
    std::uint64_t cycle, use;
    memory_request* rq;
    bool operator>(const response_bound& o) const { return cycle > o.cycle; }
  };
  std::priority_queue<response_bound, std::vector<response_bound>, std::greater<response_bound>> bounds_;
  std::uint64_t uses_ = 0;
  std::uint64_t horizon_ = 0;
  bool horizon_known_ = false;
};

}  // namespace flynn::simt

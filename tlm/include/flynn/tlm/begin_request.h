// Sending BEGIN_REQ as an AT initiator that keeps one request phase open at a time and does
// not hold responses back: every answer the base protocol allows on the return path, sorted
// into what the initiator does next.
#pragma once

#include <cstdint>
#include <queue>
#include <tuple>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/tlm/sim_now.h"

namespace flynn {

// Sends the END_RESP an initiator owes for a response that came on the return path of
// BEGIN_REQ (TLM_UPDATED with BEGIN_RESP), at the time that response takes effect. A member
// of the initiator, constructed with it (it spawns its process then).
class end_resp_sender {
 public:
  end_resp_sender() {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&due_ev_);
    sc_core::sc_spawn([this] { send_due(); }, sc_core::sc_gen_unique_name("end_resp"), &o);
  }
  // END_RESP for gp through `fw` at now + delay (the payload is held until then).
  void owe(tlm::tlm_fw_transport_if<>* fw, tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
    if (gp.has_mm()) gp.acquire();
    due_.push({flynn::sim_now() + delay, seq_++, &gp, fw});
    due_ev_.notify(delay);
  }

 private:
  struct owed {
    sc_core::sc_time at;
    std::uint64_t seq;
    tlm::tlm_generic_payload* gp;
    tlm::tlm_fw_transport_if<>* fw;
    bool operator>(const owed& o) const { return std::tie(at, seq) > std::tie(o.at, o.seq); }
  };
  void send_due() {
    const sc_core::sc_time now = flynn::sim_now();
    while (!due_.empty() && due_.top().at <= now) {
      const owed o = due_.top();
      due_.pop();
      tlm::tlm_phase ph = tlm::END_RESP;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      o.fw->nb_transport_fw(*o.gp, ph, d);
      if (o.gp->has_mm()) o.gp->release();
    }
    if (!due_.empty()) due_ev_.notify(due_.top().at - now);
  }
  std::priority_queue<owed, std::vector<owed>, std::greater<owed>> due_;
  std::uint64_t seq_ = 0;
  sc_core::sc_event due_ev_;
};

enum class begin_request_answer {
  request_open,  // TLM_ACCEPTED: END_REQ (or BEGIN_RESP) comes on the backward path
  request_over,  // TLM_UPDATED with END_REQ: the next request may go; the response follows
  responded,     // TLM_COMPLETED, or TLM_UPDATED with BEGIN_RESP: the response is final at now + delay
  illegal        // TLM_UPDATED with another phase
};

// Sends BEGIN_REQ through `socket` with `delay`; on return `delay` is the target's
// annotation. The END_RESP a BEGIN_RESP on the return path owes goes through `owed` at the
// time that response takes effect.
template <class Socket>
begin_request_answer begin_request(Socket& socket, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay,
                                   end_resp_sender& owed) {
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  const tlm::tlm_sync_enum r = socket->nb_transport_fw(gp, ph, delay);
  if (r == tlm::TLM_ACCEPTED) return begin_request_answer::request_open;
  if (r == tlm::TLM_COMPLETED) return begin_request_answer::responded;
  if (ph == tlm::END_REQ) return begin_request_answer::request_over;
  if (ph != tlm::BEGIN_RESP) return begin_request_answer::illegal;
  owed.owe(socket.operator->(), gp, delay);
  return begin_request_answer::responded;
}

}  // namespace flynn

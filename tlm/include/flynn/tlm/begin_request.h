// Sending BEGIN_REQ as an AT initiator that keeps one request phase open at a time and does
// not hold responses back: every answer the base protocol allows on the return path, sorted
// into what the initiator does next.
#pragma once

#include <systemc>
#include <tlm>

namespace flynn {

enum class begin_request_answer {
  request_open,  // TLM_ACCEPTED: END_REQ (or BEGIN_RESP) comes on the backward path
  request_over,  // TLM_UPDATED with END_REQ: the next request may go; the response follows
  responded,     // TLM_COMPLETED, or TLM_UPDATED with BEGIN_RESP: the response is final at now + delay
  illegal        // TLM_UPDATED with another phase
};

// Sends BEGIN_REQ through `socket` with `delay`; on return `delay` is the target's
// annotation. A BEGIN_RESP on the return path owes the target END_RESP: it is sent at once,
// for the same annotated time.
template <class Socket>
begin_request_answer begin_request(Socket& socket, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  const tlm::tlm_sync_enum r = socket->nb_transport_fw(gp, ph, delay);
  if (r == tlm::TLM_ACCEPTED) return begin_request_answer::request_open;
  if (r == tlm::TLM_COMPLETED) return begin_request_answer::responded;
  if (ph == tlm::END_REQ) return begin_request_answer::request_over;
  if (ph != tlm::BEGIN_RESP) return begin_request_answer::illegal;
  tlm::tlm_phase end = tlm::END_RESP;
  sc_core::sc_time at = delay;
  socket->nb_transport_fw(gp, end, at);
  return begin_request_answer::responded;
}

}  // namespace flynn

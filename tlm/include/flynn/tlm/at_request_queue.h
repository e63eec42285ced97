// An AT initiator socket's outgoing requests, one request phase open at a time: a new
// BEGIN_REQ goes out only once the previous request's END_REQ has come (and not before the
// time that END_REQ was annotated for), each request for its own time, or at once when that
// has passed. Initiators that issue from a callback (the SIMT core's load/store unit, the
// vector unit's memory ports) keep one per socket.
#pragma once

#include <algorithm>
#include <deque>
#include <utility>

#include <systemc>
#include <tlm>

#include "flynn/tlm/begin_request.h"
#include "flynn/tlm/sim_now.h"

namespace flynn {

class at_request_queue {
 public:
  // Queues gp to be sent for simulated time `at`.
  void push(tlm::tlm_generic_payload* gp, const sc_core::sc_time& at) { queue_.emplace_back(gp, at); }

  // Sends what may go now through `socket`, in order. A response on the return path of
  // BEGIN_REQ is handed to responded(gp, time it takes effect); an answer the base protocol
  // does not allow to illegal() (the queue goes on).
  template <class Socket, class Responded, class Illegal>
  void send(Socket& socket, end_resp_sender& owed, Responded&& responded, Illegal&& illegal) {
    while (!open_ && !queue_.empty()) {
      tlm::tlm_generic_payload* gp = queue_.front().first;
      const sc_core::sc_time due = queue_.front().second;
      queue_.pop_front();
      const sc_core::sc_time now = flynn::sim_now();
      const sc_core::sc_time at = std::max(due, phase_end_);
      sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
      open_ = gp;
      const begin_request_answer a = begin_request(socket, *gp, delay, owed);
      if (a == begin_request_answer::request_open) continue;
      if (open_ == gp) open_ = nullptr;
      phase_end_ = now + delay;  // the next BEGIN_REQ not before the annotated END_REQ
      if (a == begin_request_answer::illegal) illegal();
      if (a == begin_request_answer::responded) responded(gp, flynn::sim_now() + delay);
    }
  }

  // END_REQ for gp, annotated for time `at` (a BEGIN_RESP is an implicit one): true when it
  // closes the open request phase, after which the caller sends the next.
  bool end_req(const tlm::tlm_generic_payload* gp, const sc_core::sc_time& at) {
    if (open_ != gp) return false;
    open_ = nullptr;
    phase_end_ = at;
    return true;
  }

  // Whether send() has anything to send now (no request phase open, a request queued).
  bool ready() const { return !open_ && !queue_.empty(); }

  // The request whose END_REQ is awaited (nullptr: none), and whether gp still waits its turn.
  const tlm::tlm_generic_payload* open() const { return open_; }
  bool queued(const tlm::tlm_generic_payload* gp) const {
    return std::any_of(queue_.begin(), queue_.end(), [gp](const auto& q) { return q.first == gp; });
  }

 private:
  std::deque<std::pair<tlm::tlm_generic_payload*, sc_core::sc_time>> queue_;
  tlm::tlm_generic_payload* open_ = nullptr;
  sc_core::sc_time phase_end_ = sc_core::SC_ZERO_TIME;  // the last END_REQ's annotated time
};

}  // namespace flynn

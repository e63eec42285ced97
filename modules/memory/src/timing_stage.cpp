// The base protocol of a memory-hierarchy timing stage, both ways, and the order in which
// its requests are scheduled.
#include "flynn/memory/timing_stage.h"

#include <algorithm>
#include <stdexcept>

#include "flynn/tlm/lanes_extension.h"
#include "flynn/tlm/response_bound_extension.h"

namespace flynn {

struct timing_stage::port_adapter final : tlm::tlm_fw_transport_if<> {
  timing_stage* s;
  unsigned index;
  port_adapter(timing_stage* m, unsigned i) : s(m), index(i) {}
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& t) override { s->b_transport(index, gp, t); }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& t) override {
    return s->nb_transport_fw(index, gp, ph, t);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) override {
    (void)gp;
    dmi.allow_read_write();
    dmi.set_start_address(0);
    dmi.set_end_address(~sc_dt::uint64(0));
    return false;  // every access goes through the timing model
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp) override { return s->transport_dbg(gp); }
};

struct timing_stage::output_adapter final : tlm::tlm_bw_transport_if<> {
  timing_stage* s;
  unsigned index;
  output_adapter(timing_stage* m, unsigned i) : s(m), index(i) {}
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& t) override {
    return s->nb_transport_bw(index, gp, ph, t);
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}  // (no DMI kept)
};

timing_stage::timing_stage(const sc_core::sc_module_name& name, double clock_ns, unsigned ports, unsigned outputs)
    : module(name, clock_ns) {
  for (unsigned o = 0; o < outputs; ++o) {
    const std::string n = outputs == 1 ? "down" : "down" + std::to_string(o);
    downs_.push_back(std::make_unique<tlm::tlm_initiator_socket<32>>(n.c_str()));
    output_adapters_.push_back(std::make_unique<output_adapter>(this, o));
    downs_.back()->bind(*output_adapters_.back());
  }
  down_q_.resize(outputs);
  for (unsigned i = 0; i < ports; ++i) {
    const std::string n = "port" + std::to_string(i);
    sockets_.push_back(std::make_unique<tlm::tlm_target_socket<32>>(n.c_str()));
    adapters_.push_back(std::make_unique<port_adapter>(this, i));
    sockets_.back()->bind(*adapters_.back());
  }
  responses_.resize(ports);
  resp_open_.assign(ports, nullptr);
  SC_HAS_PROCESS(timing_stage);
  SC_METHOD(arbitrate);
  sensitive << arbiter_ev_;
  dont_initialize();
  SC_METHOD(run_actions);
  sensitive << actions_ev_;
  dont_initialize();
}

timing_stage::~timing_stage() {
  for (auto& r : requests_) {  // a run stopped with requests in flight
    if (!r->gp) continue;
    if (r->own) {
      r->gp->clear_extension(&r->mark);
    } else if (r->marked) {
      r->gp->clear_extension(&r->mark);
    }
  }
}

tlm::tlm_target_socket<32>& timing_stage::port(unsigned i) { return *sockets_.at(i); }
tlm::tlm_initiator_socket<32>& timing_stage::output(unsigned i) { return *downs_.at(i); }

std::string timing_stage::pending_work() const {
  if (!in_flight_ && pending_.empty()) return {};
  return std::to_string(in_flight_ + pending_.size()) + " request(s) in flight";
}

bool timing_stage::is_write(const tlm::tlm_generic_payload& gp) {
  if (gp.get_command() == tlm::TLM_WRITE_COMMAND) return true;
  const auto* h = gp.get_extension<hierarchy_extension>();
  return h && h->timing_only && h->write;
}

void timing_stage::blocks_of(const tlm::tlm_generic_payload& gp, std::uint64_t block, std::vector<std::uint64_t>& out) {
  out.clear();
  if (const auto* lanes = gp.get_extension<lanes_extension>()) {
    for (unsigned l = 0; l < lanes->lanes; ++l) {
      if (!lanes->active(l) || !lanes->lane_bytes) continue;
      const std::uint64_t a = lanes->address[l];
      for (std::uint64_t b = a / block; b <= (a + lanes->lane_bytes - 1) / block; ++b) out.push_back(b);
    }
  } else if (gp.get_data_length()) {  // (an address range that wraps is cut at the top)
    const std::uint64_t a = gp.get_address();
    for (std::uint64_t b = a / block; b <= (a + gp.get_data_length() - 1) / block; ++b) out.push_back(b);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

// ---------------------------------------------------------------------------- upstream

tlm::tlm_sync_enum timing_stage::nb_transport_fw(unsigned port, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                                 sc_core::sc_time& delay) {
  if (ph == tlm::END_RESP) {
    request* r = resp_open_[port];
    if (!r || r->gp != &gp) {
      fault("nb_transport_fw: END_RESP on port" + std::to_string(port) + " without a response awaiting it");
      return tlm::TLM_COMPLETED;
    }
    resp_open_[port] = nullptr;
    finish_request(r);
    if (!responses_[port].empty()) actions_ev_.notify(sc_core::SC_ZERO_TIME);
    return tlm::TLM_COMPLETED;
  }
  if (ph != tlm::BEGIN_REQ) {
    fault("nb_transport_fw: unexpected phase " + std::string(ph.get_name()));
    return tlm::TLM_COMPLETED;
  }
  request* r = new_request(gp, port, to_cycles_ceil(flynn::sim_now() + delay), false);
  if (gp.has_mm()) gp.acquire();
  // The promise (a later stage may only raise it); a served request passes through here at
  // once, so only the stages that time it promise anything for it.
  const auto* h = gp.get_extension<hierarchy_extension>();
  auto* bound = gp.get_extension<response_bound_extension>();
  if (bound && !(h && h->serviced) && !ideal_) {
    const sc_core::sc_time earliest = to_time(r->arrival + least_latency(gp));
    if (!bound->promised || earliest > bound->earliest) bound->earliest = earliest;
    bound->promised = true;
  }
  wake_arbiter(r->arrival);
  return tlm::TLM_ACCEPTED;
}

// An LT call waits for its arrival cycle, is scheduled like an AT request and returns once
// its response is due.
void timing_stage::b_transport(unsigned port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (sc_core::sc_get_current_process_handle().proc_kind() != sc_core::SC_THREAD_PROC_) {
    fault("b_transport on port" + std::to_string(port) + " from a method process: a timing stage answers LT calls by waiting");
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  if (delay > sc_core::SC_ZERO_TIME) {
    wait(delay);
    delay = sc_core::SC_ZERO_TIME;
  }
  request* r = new_request(gp, port, now_cycle(), true);
  wake_arbiter(r->arrival);
  // The caller's thread waits for the answer, and carries the request down with b_transport
  // itself when the stage sends it on (the payload may have no memory manager: LT stays LT).
  for (;;) {
    while (!r->answered && !r->lt_send) wait(r->lt_answer);
    if (r->answered) break;
    r->lt_send = false;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    (*downs_[r->out])->b_transport(*r->gp, d);
    down_answered(r, flynn::sim_now() + d);
  }
  finish_request(r);
}

unsigned timing_stage::transport_dbg(tlm::tlm_generic_payload& gp) { return (*downs_[route(gp)])->transport_dbg(gp); }

timing_stage::request* timing_stage::new_request(tlm::tlm_generic_payload& gp, unsigned port, std::uint64_t arrival,
                                                 bool lt) {
  request* r;
  if (free_.empty()) {
    requests_.push_back(std::make_unique<request>());
    r = requests_.back().get();
  } else {
    r = free_.back();
    free_.pop_back();
  }
  r->gp = &gp;
  by_payload_.insert(&gp, r);
  r->port = port;
  r->arrival = arrival;
  r->seq = seq_++;
  r->lt = lt;
  r->answered = r->own = r->serviced = r->marked = r->flagged = r->lt_send = r->passed_on = false;
  r->on_answer = nullptr;
  pending_.push_back(r);
  return r;
}

void timing_stage::finish_request(request* r) {
  by_payload_.erase(r->gp);
  if (!r->lt && r->gp->has_mm()) r->gp->release();  // (an own payload goes back to its pool)
  r->gp = nullptr;
  r->on_answer = nullptr;
  free_.push_back(r);
}

timing_stage::request* timing_stage::request_of(const tlm::tlm_generic_payload* gp) const {
  return by_payload_.find(gp);
}

// ---------------------------------------------------------------------------- order

// The arbiter runs at a request's arrival cycle, one delta cycle after it is woken there, so
// that every request initiators send for that cycle is in, whatever order they ran in.
void timing_stage::wake_arbiter(std::uint64_t cycle) {
  const sc_core::sc_time when = to_time(cycle), now = flynn::sim_now();
  if (when > now) {
    if (arbiter_at_ <= now || when < arbiter_at_) {
      arbiter_at_ = when;
      arbiter_ev_.notify(when - now);
    }
  } else {
    arbiter_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

void timing_stage::arbitrate() {
  // One more delta for same-cycle requests, unless no other process is left to run in this
  // delta and none is due in the next: then no more requests can come in this cycle.
  if (!settled_ && sc_core::sc_pending_activity_at_current_time()) {
    settled_ = true;
    arbiter_ev_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  settled_ = false;
  const std::uint64_t now = now_cycle();
  batch_.clear();
  std::size_t kept = 0;
  for (request* r : pending_)
    if (r->arrival <= now) batch_.push_back(r);
    else pending_[kept++] = r;
  pending_.resize(kept);
  std::sort(batch_.begin(), batch_.end(), [](const request* a, const request* b) {
    return std::tie(a->arrival, a->port, a->seq) < std::tie(b->arrival, b->port, b->seq);
  });
  if (!batch_.empty()) {
    in_flight_ += static_cast<unsigned>(batch_.size());
    in_flight_sig_.set(flynn::sim_now(), in_flight_);
  }
  for (request* r : batch_) {
    const auto* h = r->gp->get_extension<hierarchy_extension>();
    if ((h && h->serviced) || ideal_) {  // served above, or an ideal stage: straight on
      r->serviced = true;
      if (ideal_ && ideal_serves_ && !(h && h->serviced)) mark_serviced(*r);
      if (!r->lt) end_req_at(*r, now);
      forward_at(*r, now);
      continue;
    }
    schedule(*r);
  }
  if (!pending_.empty()) {
    std::uint64_t next = UINT64_MAX;
    for (const request* r : pending_) next = std::min(next, r->arrival);
    arbiter_at_ = sc_core::SC_ZERO_TIME;
    wake_arbiter(next);
  }
}

// ---------------------------------------------------------------------------- timed actions

void timing_stage::end_req_at(request& r, std::uint64_t cycle) { at(cycle, action::end_req, &r); }
void timing_stage::forward_at(request& r, std::uint64_t cycle) {
  r.out = route(*r.gp);
  at(cycle, action::send_down, &r);
}
void timing_stage::respond_at(request& r, std::uint64_t cycle) { at(cycle, action::respond, &r); }

void timing_stage::mark_serviced(request& r) {
  if (auto* h = r.gp->get_extension<hierarchy_extension>()) {  // (the initiator's: undone at the response)
    if (!h->serviced) r.flagged = true;
    h->serviced = true;
    return;
  }
  r.mark = hierarchy_extension{};
  r.mark.serviced = true;
  r.gp->set_extension(&r.mark);
  r.marked = true;
}

// The serviced mark was for the levels below: it goes before the response goes up.
void timing_stage::unmark(request& r) {
  if (r.marked) {
    r.gp->clear_extension(&r.mark);
    r.marked = false;
  }
  if (r.flagged) {
    if (auto* h = r.gp->get_extension<hierarchy_extension>()) h->serviced = false;
    r.flagged = false;
  }
}

void timing_stage::issue_own(bool write, std::uint64_t address, unsigned length, std::uint64_t cycle,
                             std::function<void(std::uint64_t)> done) {
  if (length > own_pool_.capacity())
    throw std::logic_error(std::string(name()) + ": an own request of " + std::to_string(length) +
                           " bytes, more than the " + std::to_string(own_pool_.capacity()) + " declared");
  tlm::tlm_generic_payload* gp = own_pool_.allocate();
  prepare_payload(*gp, tlm::TLM_IGNORE_COMMAND, address, own_pool_.buffer(gp), length);
  tlm::tlm_generic_payload* raw = gp;
  request* r = new_request(*raw, 0, cycle, false);
  pending_.pop_back();  // (not scheduled here: it goes down)
  ++in_flight_;
  r->own = true;
  r->on_answer = std::move(done);
  r->mark = hierarchy_extension{};
  r->mark.timing_only = true;
  r->mark.write = write;
  raw->set_extension(&r->mark);
  r->out = 0;
  at(cycle, action::send_down, r);
}

void timing_stage::at(std::uint64_t cycle, action what, request* r) {
  const sc_core::sc_time now = flynn::sim_now(), when = to_time(cycle);
  if (when == now) {  // (the current cycle's: in the order they come, no heap)
    now_actions_.push_back({cycle, seq_++, what, r});
    actions_ev_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  actions_.push({cycle, seq_++, what, r});
  notify_actions(when, now);
}

// actions_ev_.notify for `when` (now if it has passed), skipped where the kernel would keep
// an earlier notification anyway. timed_at_ is an upper bound of the pending notification's
// time while it lies ahead: set by a timed notify that was made (the kernel keeps the earlier
// of two), forgotten when run_actions runs (the event has fired). A delta notification
// pending meanwhile is earlier still, so the bound stays true.
void timing_stage::notify_actions(const sc_core::sc_time& when, const sc_core::sc_time& now) {
  if (when <= now) {
    actions_ev_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  if (timed_at_ > now && timed_at_ <= when) return;
  timed_at_ = when;
  actions_ev_.notify(when - now);
}

void timing_stage::run_actions() {
  timed_at_ = sc_core::SC_ZERO_TIME;  // (the event has fired: nothing of it is pending)
  const std::uint64_t now = now_cycle();
  // The due actions in (cycle, seq) order: the heap's and the current cycle's list's merged.
  for (;;) {
    const bool heap_due = !actions_.empty() && actions_.top().cycle <= now;
    if (!heap_due && now_head_ == now_actions_.size()) break;
    timed a;
    if (heap_due && (now_head_ == now_actions_.size() || actions_.top() < now_actions_[now_head_])) {
      a = actions_.top();
      actions_.pop();
    } else {
      a = now_actions_[now_head_++];
    }
    request& r = *a.r;
    switch (a.what) {
      case action::end_req: {
        tlm::tlm_phase ph = tlm::END_REQ;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        if ((*sockets_[r.port])->nb_transport_bw(*r.gp, ph, d) == tlm::TLM_COMPLETED)
          fault("nb_transport_bw: TLM_COMPLETED in answer to END_REQ");
        break;
      }
      case action::send_down:
        if (r.lt) {  // (its caller's thread takes it down)
          r.lt_send = true;
          r.lt_answer.notify(sc_core::SC_ZERO_TIME);
          break;
        }
        down_q_[r.out].push(r.gp, flynn::sim_now());
        send_down(r.out);
        break;
      case action::respond:
        if (r.lt) {
          unmark(r);
          --in_flight_;
          in_flight_sig_.set(flynn::sim_now(), in_flight_);
          r.answered = true;
          r.lt_answer.notify(sc_core::SC_ZERO_TIME);
          if (!r.serviced) response_sent(r);
        } else {
          responses_[r.port].push_back(&r);
        }
        break;
    }
  }
  now_actions_.clear();
  now_head_ = 0;
  for (unsigned p = 0; p < responses_.size(); ++p) send_response(p);
  if (!actions_.empty()) {
    notify_actions(to_time(actions_.top().cycle), flynn::sim_now());
  }
}

void timing_stage::send_response(unsigned port) {
  while (!resp_open_[port] && !responses_[port].empty()) {
    request* r = responses_[port].front();
    responses_[port].pop_front();
    unmark(*r);
    --in_flight_;
    in_flight_sig_.set(flynn::sim_now(), in_flight_);
    if (!r->serviced) response_sent(*r);
    tlm::tlm_phase ph = tlm::BEGIN_RESP;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    resp_open_[port] = r;
    const tlm::tlm_sync_enum s = (*sockets_[port])->nb_transport_bw(*r->gp, ph, d);
    if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && ph == tlm::END_RESP)) {
      if (resp_open_[port] == r) resp_open_[port] = nullptr;
      finish_request(r);
    }
  }
}

// ---------------------------------------------------------------------------- downstream

void timing_stage::send_down(unsigned o) {
  down_q_[o].send(
      *downs_[o], owed_, [this](tlm::tlm_generic_payload* gp, const sc_core::sc_time& when) { down_answered(request_of(gp), when); },
      [this] { fault("the next level answered BEGIN_REQ with a phase the base protocol does not allow"); });
}

// The next level's answer for r, effective at `when`.
void timing_stage::down_answered(request* r, const sc_core::sc_time& when) {
  if (!r) {
    fault("the next level answered a request this stage did not send");
    return;
  }
  const std::uint64_t c = to_cycles_ceil(when);
  if (r->own) {
    auto done = std::move(r->on_answer);
    r->gp->clear_extension(&r->mark);
    --in_flight_;
    finish_request(r);
    if (done) done(c);
    return;
  }
  if (r->serviced) {
    respond_at(*r, c);
    return;
  }
  answered(*r, c);
}

tlm::tlm_sync_enum timing_stage::nb_transport_bw(unsigned o, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                                 sc_core::sc_time& delay) {
  if (ph == tlm::END_REQ) {
    if (down_q_[o].end_req(&gp, flynn::sim_now() + delay)) send_down(o);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    down_q_[o].end_req(&gp, flynn::sim_now() + delay);  // (an implicit END_REQ)
    down_answered(request_of(&gp), flynn::sim_now() + delay);
    send_down(o);
    ph = tlm::END_RESP;
    return tlm::TLM_COMPLETED;
  }
  fault("nb_transport_bw: unexpected phase " + std::string(ph.get_name()) + " from the next level");
  return tlm::TLM_COMPLETED;
}

}  // namespace flynn

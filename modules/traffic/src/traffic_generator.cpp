#include "flynn/traffic/traffic_generator.h"

#include "flynn/common/cycle_times.h"
#include "flynn/common/format.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace flynn {


// ---------------------------------------------------------------------------- parameters

std::vector<param_issue> traffic_stream::check(const std::string& prefix) const {
  std::vector<param_issue> r;
  if (kind == stream_kind::indexed && indices.empty())
    r.push_back({prefix + "indices", "a non-empty list for an indexed stream", "[]"});
  if (kind == stream_kind::random && range_bytes < size)
    r.push_back({prefix + "range_bytes", "at least size (" + std::to_string(size) +
                                             ") for a random stream",
                 std::to_string(range_bytes)});
  if (kind != stream_kind::indexed && count == 0)
    r.push_back({prefix + "count", "at least 1", "0"});
  if (range_bytes > (std::uint64_t(1) << 40))
    r.push_back({prefix + "range_bytes", "at most 2^40", std::to_string(range_bytes)});
  return r;
}

param_footprint traffic_generator_params::footprint() const {
  // The latency histogram and, for AT, a payload and its records per outstanding request.
  std::uint64_t largest = 8;
  for (const auto& s : streams) largest = std::max<std::uint64_t>(largest, std::uint64_t(s.size) * (s.lanes ? s.lanes : 1));
  return {8 * (std::uint64_t(histogram_buckets) + 1) + (at ? std::uint64_t(max_outstanding) * (largest + 1024) : 0), 0};
}

std::vector<param_issue> traffic_generator_params::check() const {
  std::vector<param_issue> r;
  if (streams.empty()) r.push_back({"streams", "at least one stream", "[]"});
  std::uint64_t largest = 0;
  for (const auto& s : streams) largest = std::max<std::uint64_t>(largest, std::uint64_t(s.size) * (s.lanes ? s.lanes : 1));
  if (at && largest * max_outstanding > (std::uint64_t(64) << 20))
    r.push_back({"max_outstanding", "at most 64 MiB of AT request buffers (max_outstanding x largest request)",
                 std::to_string(max_outstanding) + " x " + std::to_string(largest) + " B"});
  for (std::size_t i = 0; i < streams.size(); ++i) {
    auto s = streams[i].check("streams[" + std::to_string(i) + "].");
    r.insert(r.end(), s.begin(), s.end());
  }
  return r;
}

// ---------------------------------------------------------------------------- module

traffic_generator::traffic_generator(const sc_core::sc_module_name& name, const params& p)
    : module(name, p.clock_ns), out("out"), p_(p),
      pool_([&p] {
        std::size_t m = 8;
        for (const auto& s : p.streams) m = std::max<std::size_t>(m, s.size * (s.lanes ? s.lanes : 1));
        return m;
      }()),
      plan_(p.start_cycle, p.issue_interval, p.max_outstanding),
      peq_("peq", this, &traffic_generator::on_phase) {
  throw_if_invalid("traffic_generator", p_.check());
  out.bind(*this);
  if (p_.at)
    sc_core::sc_spawn([this] { run_at(); }, "run");
  else
    sc_core::sc_spawn([this] { run_lt(); }, "run");
}

// A run stopped by a fault leaves requests in flight; their payloads must not take the
// lanes extensions (members of the in-flight records) with them when the pool goes.
traffic_generator::~traffic_generator() {
  for (auto& e : inflight_) e.first->clear_extension(&e.second.ext);
}

std::string traffic_generator::pending_work() const {
  if (done_) return {};
  auto stalled = [](const tlm::tlm_generic_payload& gp, const inflight& f) {
    std::ostringstream o;
    o << "request " << f.serial << " (" << (gp.is_write() ? "WRITE" : "READ") << " 0x" << std::hex
      << gp.get_address() << std::dec << ", " << gp.get_data_length() << " bytes) issued at cycle " << f.issued;
    return o.str();
  };
  std::string s = std::to_string(completed_.value()) + " requests completed, " + std::to_string(outstanding_) +
                  " awaiting a response";
  const std::pair<tlm::tlm_generic_payload* const, inflight>* oldest = nullptr;
  for (const auto& e : inflight_)
    if (!oldest || e.second.serial < oldest->second.serial) oldest = &e;
  if (oldest) s += "; the oldest: " + stalled(*oldest->first, oldest->second);
  const auto waiting = inflight_.find(req_waiting_);
  if (waiting != inflight_.end())
    s += "; END_REQ never came for " + stalled(*waiting->first, waiting->second);
  return s;
}

// "request 3 (read of 16 B in 4 lanes at 0x40, cycle 7)": what fault messages name.
std::string traffic_generator::describe(const tlm::tlm_generic_payload& gp, const inflight& f) const {
  std::string s = "request " + std::to_string(f.serial) + " (" + (gp.is_write() ? "write" : "read") + " of " +
                  std::to_string(gp.get_data_length()) + " B";
  if (f.ext.lanes) s += " in " + std::to_string(f.ext.lanes) + " lanes";
  return s + " at " + hex(gp.get_address()) + ", cycle " + std::to_string(f.issued) + ")";
}

// The module behind `out` when the bound interface is one (a target socket bound to its
// own module); otherwise the socket says where to look.
std::string traffic_generator::target_name() const {
  if (const auto* obj = dynamic_cast<const sc_core::sc_object*>(out.get_interface()))
    return std::string("target ") + obj->name();
  return std::string("the target bound to ") + out.name();
}

void traffic_generator::setup(tlm::tlm_generic_payload& gp, unsigned char* buf,
                              lanes_extension& ext, const traffic_cursor& c) {
  const bool wr = c.stream().write;
  if (c.multi_lane())
    ext = c.lanes();  // acknowledged is clear: only this request's target may set it
  else
    ext.lanes = 0;  // marks a plain request for complete()
  prepare_payload(gp, wr ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, c.multi_lane() ? ext.address[0] : c.address(),
                  buf, static_cast<unsigned>(c.length()));
  if (c.multi_lane()) gp.set_extension(&ext);
  if (wr) c.fill_data(buf);
}

void traffic_generator::complete(tlm::tlm_generic_payload& gp, const inflight& f, std::uint64_t done) {
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
    fault(describe(gp, f) + " failed: " + gp.get_response_string());
    return;
  }
  // Without the acknowledgement the target moved data_length bytes at the payload address:
  // read data and memory are wrong, so the run must not go on as if they were right.
  if (f.ext.lanes && !f.ext.acknowledged) {
    fault(target_name() + " ignored the lanes extension of " + describe(gp, f) +
          ": multi-lane requests need a lanes-aware target (one that sets lanes_extension::acknowledged)"
          ", such as banked_memory");
    return;
  }
  ++completed_;
  if (gp.is_read()) {
    ++reads_;
    read_sum_ += read_digest(f.serial, gp.get_data_ptr(), gp.get_data_length());
  } else {
    ++writes_;
  }
  bytes_ += gp.get_data_length();
  latency_.sample(done - f.issued);
  if (in_flight_sig_.enabled()) {
    ++in_flight_[f.issued];
    --in_flight_[done];
  }
  first_issue_ = std::min(first_issue_, f.issued);
  last_done_ = std::max(last_done_, done);
}

// LT: requests go out at their planned cycle through b_transport with the offset as the
// annotated delay; the thread only synchronises once the offset passes the quantum. The
// plan is the one the AT initiator follows, so both see the same cycles.
void traffic_generator::run_lt() {
  traffic_cursor c(p_);
  tlm::tlm_generic_payload gp;
  std::vector<unsigned char> buf(pool_.capacity());
  inflight f;
  const sc_core::sc_time quantum = to_time(p_.quantum);
  cycle_times times(*this), done_times(*this);
  // Simulated time, read again only where the thread may have waited.
  sc_core::sc_time now = flynn::sim_now();
  const auto until = [&times, &now](std::uint64_t n) {  // delay_until(n), for the rising cycles planned
    const sc_core::sc_time when = times(n);
    return when > now ? when - now : sc_core::SC_ZERO_TIME;
  };
  while (c.next()) {
    c.footprint(plan_.next());
    if (!plan_.settle())  // every earlier response is known here
      throw std::logic_error(std::string(name()) + ": LT plan waits on an unknown response");
    f.serial = c.index();
    f.issued = plan_.cycle();
    setup(gp, buf.data(), f.ext, c);
    plan_.issued(f.serial);
    sc_core::sc_time delay = until(f.issued);
    tracked_b_transport(out, gp, delay, now);
    now = flynn::sim_now();
    const std::uint64_t done = done_times.ceil_cycles(now + delay);
    if (debugging(debug_tlm)) debug_lt(gp, f, done);
    gp.clear_extension(&f.ext);
    // Running ahead of simulated time, a failed request is raised at its own cycle, so that
    // the fault, the run's cycles and its statistics say when it happened.
    if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
      wait_until(done);
      now = flynn::sim_now();
    }
    complete(gp, f, done);
    plan_.responded(f.serial, done);
    const sc_core::sc_time ahead = until(plan_.cycle());
    if (ahead >= quantum) {
      wait(ahead);
      now = flynn::sim_now();
    }
  }
  wait_until(last_done_);
  done_ = true;
}

// AT: one request in its request phase at a time (request exclusion), at most
// max_outstanding awaiting their responses, each planned exactly as in LT. A request counts
// against the limit until the cycle of its response, so the issue cycles do not depend on
// when the thread happens to learn about responses.
void traffic_generator::run_at() {
  traffic_cursor c(p_);
  while (c.next()) {
    c.footprint(plan_.next());
    while (!plan_.settle()) wait(resp_ev_);
    while (req_waiting_) wait(end_req_ev_);
    wait_until(plan_.cycle());
    tlm::tlm_generic_payload* gp = pool_.allocate();
    inflight& f = inflight_[gp];
    f.serial = c.index();
    f.issued = plan_.cycle();
    f.end_resp_owed = false;
    setup(*gp, pool_.buffer(gp), f.ext, c);
    plan_.issued(f.serial);
    ++outstanding_;
    begin_request(*gp, f);
  }
  while (outstanding_ > 0) wait(resp_ev_);
  done_ = true;
}

// (Out of line, as debug_lt: the protocol paths, which a fault may leave by an exception,
// keep frames without the strings' temporaries.)
void traffic_generator::debug_phase(const tlm::tlm_generic_payload& gp, const inflight& f,
                                    const tlm::tlm_phase& ph) const {
  const std::uint64_t now = to_cycles(flynn::sim_now());
  debug(debug_tlm, now,
        std::string("out ") + ph.get_name() + " " + describe(gp, f) +
            (ph == tlm::BEGIN_RESP ? ", latency " + std::to_string(now - f.issued) : ""));
}

void traffic_generator::debug_lt(const tlm::tlm_generic_payload& gp, const inflight& f, std::uint64_t done) const {
  debug(debug_tlm, f.issued,
        "out b_transport " + describe(gp, f) + ": " + (gp.is_response_ok() ? "ok" : gp.get_response_string()) +
            ", done " + std::to_string(done) + " (latency " + std::to_string(done - f.issued) + ")");
}

// Every legal answer to BEGIN_REQ. What it announces takes effect at the annotated time,
// through the payload event queue; until then the request phase is open.
void traffic_generator::begin_request(tlm::tlm_generic_payload& gp, inflight& f) {
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  req_waiting_ = &gp;
  if (debugging(debug_tlm)) debug_phase(gp, f, tlm::BEGIN_REQ);
  const tlm::tlm_sync_enum r = out->nb_transport_fw(gp, ph, d);
  if (r == tlm::TLM_ACCEPTED) return;  // END_REQ and/or BEGIN_RESP follow on the backward path
  if (r == tlm::TLM_COMPLETED) {  // the target took the request; its response is final at t + d
    req_waiting_ = nullptr;
    at_time(gp, tlm::BEGIN_RESP, d);
    return;
  }
  if (ph == tlm::END_REQ) {
    at_time(gp, tlm::END_REQ, d);
  } else if (ph == tlm::BEGIN_RESP) {  // implies END_REQ; END_RESP is ours to send
    if (resp_open_)
      protocol_fault("BEGIN_RESP (on the return path) for " + describe(gp, f) + " before END_RESP of " +
                     describe(*resp_open_, inflight_.at(resp_open_)) + ": the response exclusion rule");
    f.end_resp_owed = true;
    resp_open_ = &gp;
    at_time(gp, tlm::BEGIN_RESP, d);
  } else {
    protocol_fault("BEGIN_REQ of " + describe(gp, f) + " returned TLM_UPDATED with " + ph.get_name() +
                   " (END_REQ or BEGIN_RESP expected)");
  }
}

tlm::tlm_sync_enum traffic_generator::nb_transport_bw(tlm::tlm_generic_payload& gp,
                                                      tlm::tlm_phase& ph,
                                                      sc_core::sc_time& d) {
  const auto it = inflight_.find(&gp);
  if (it == inflight_.end()) {
    protocol_fault(std::string("nb_transport_bw ") + ph.get_name() + " for a transaction not in flight");
    return tlm::TLM_COMPLETED;
  }
  if (ph == tlm::END_REQ) {
    at_time(gp, ph, d);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    if (resp_open_)
      protocol_fault("BEGIN_RESP for " + describe(gp, it->second) + " before END_RESP of " +
                     describe(*resp_open_, inflight_.at(resp_open_)) + ": the response exclusion rule");
    at_time(gp, ph, d);
    return tlm::TLM_COMPLETED;  // taken whole: no END_RESP, the target may send the next response
  }
  protocol_fault(std::string("nb_transport_bw: unexpected phase ") + ph.get_name() + " for " +
                 describe(gp, it->second));
  return tlm::TLM_COMPLETED;
}

// Each phase at its annotated time. One without delay is handled at once when nothing waits
// in the payload event queue: the order the queue would give, without a process activation.
void traffic_generator::at_time(tlm::tlm_generic_payload& gp, const tlm::tlm_phase& ph,
                                const sc_core::sc_time& d) {
  if (d == sc_core::SC_ZERO_TIME && queued_phases_ == 0) {
    handle_phase(gp, ph);
    return;
  }
  ++queued_phases_;
  peq_.notify(gp, ph, d);
}

void traffic_generator::on_phase(tlm::tlm_generic_payload& gp, const tlm::tlm_phase& ph) {
  --queued_phases_;
  handle_phase(gp, ph);
}

void traffic_generator::handle_phase(tlm::tlm_generic_payload& gp, const tlm::tlm_phase& ph) {
  const auto it = inflight_.find(&gp);
  if (it == inflight_.end()) {
    protocol_fault(std::string(ph.get_name()) + " for a transaction no longer in flight");
    return;
  }
  if (debugging(debug_tlm)) debug_phase(gp, it->second, ph);
  if (ph == tlm::END_REQ) {
    end_request(gp, it->second, "END_REQ");
    return;
  }
  if (req_waiting_ == &gp) end_request(gp, it->second, "BEGIN_RESP");  // BEGIN_RESP implies END_REQ
  response(gp, it->second);
}

void traffic_generator::end_request(tlm::tlm_generic_payload& gp, const inflight& f, const char* how) {
  if (req_waiting_ != &gp) {
    protocol_fault(std::string(how) + " for " + describe(gp, f) + ", which is not in its request phase");
    return;
  }
  req_waiting_ = nullptr;
  end_req_ev_.notify(sc_core::SC_ZERO_TIME);
}

void traffic_generator::response(tlm::tlm_generic_payload& gp, inflight& f) {
  const std::uint64_t done = to_cycles_ceil(flynn::sim_now());
  gp.clear_extension(&f.ext);  // complete() reads the record's copy, and may end the run
  complete(gp, f, done);
  if (f.end_resp_owed) {  // the response began on the return path: it ends now
    tlm::tlm_phase ph = tlm::END_RESP;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    resp_open_ = nullptr;
    out->nb_transport_fw(gp, ph, d);  // the transaction is over whatever the target returns
  }
  plan_.responded(f.serial, done);
  inflight_.erase(&gp);
  --outstanding_;
  resp_ev_.notify(sc_core::SC_ZERO_TIME);
  gp.release();
}

void traffic_generator::protocol_fault(const std::string& what) const {
  fault(target_name() + " broke the TLM-2.0 base protocol: " + what);
}

void traffic_generator::attach_trace(trace_sink& sink) { in_flight_sig_.attach(&sink, name(), "requests_in_flight", 16); }

void traffic_generator::finish() {
  std::int64_t level = 0;
  for (const auto& [at, delta] : in_flight_) {
    level += delta;
    in_flight_sig_.set(to_time(at), static_cast<std::uint64_t>(level));
  }
}

}  // namespace flynn

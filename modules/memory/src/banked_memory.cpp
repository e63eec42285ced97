// The banked memory: parameters, ports, the LT and AT target paths, DMI, debug access and
// tracing; the timing core (bank and port reservation, data at its cycle) is in bank_timing.cpp.
#include "flynn/memory/banked_memory.h"

#include "banked_memory_ports.h"
#include "flynn/common/format.h"
#include "flynn/tlm/response_bound_extension.h"
#include "flynn/tlm/wavefront_extension.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <sstream>
#include <tuple>

namespace flynn {

// ---------------------------------------------------------------------------- parameters

param_footprint banked_memory_params::footprint() const {
  // The data, the first level of the three per-word record tables (their pages are made as
  // words get records, while it runs) and the bank calendars.
  const std::uint64_t words = size_bytes / word_bytes;
  const std::uint64_t calendars = std::uint64_t(banks) * (multiported_banks ? ports() : 1);
  return {3 * 8 * (words / 4096 + 1) + 64 * calendars + 2048 * std::uint64_t(ports()), size_bytes};
}

std::vector<param_issue> banked_memory_params::check() const {
  std::vector<param_issue> r;
  auto pow2 = [](std::uint64_t x) { return x && !(x & (x - 1)); };
  if (!pow2(word_bytes))
    r.push_back({"word_bytes", "a power of two", std::to_string(word_bytes)});
  else if (size_bytes % word_bytes)
    r.push_back({"size_bytes", "a multiple of word_bytes (" + std::to_string(word_bytes) + ")",
                 std::to_string(size_bytes)});
  if (ports() == 0)
    r.push_back({"shared_ports", "at least one port in shared_ports + load_ports + store_ports",
                 "0"});
  if (mapping == bank_mapping_kind::xor_hashed && !pow2(banks))
    r.push_back({"banks", "a power of two for the xor mapping", std::to_string(banks)});
  return r;
}

banked_memory::banked_memory(const sc_core::sc_module_name& name, const params& p)
    : module(name, p.clock_ns), p_(p) {
  throw_if_invalid("banked_memory", p_.check());
  mapping_ = make_bank_mapping(p_.mapping, p_.banks, p_.block_words);
  word_ = fixed_divisor(p_.word_bytes);
  pending_ = word_records<pending_write>(p_.size_bytes / p_.word_bytes);
  lt_reads_ = word_records<lt_read>(p_.size_bytes / p_.word_bytes);
  watch_ = word_records<read_watch>(p_.size_bytes / p_.word_bytes);
  initial_image(p_, data_);
  const unsigned n = p_.ports();
  lt_ahead_.assign(n, 0);
  sc_core::sc_spawn([this] {  // a thread: a fault is raised from threads only
    sc_core::wait(race_ev_);
    fault(race_);
  }, "race_reporter");
  for (unsigned i = 0; i < n; ++i) {
    port_kind k = i < p_.shared_ports                   ? port_kind::shared
                  : i < p_.shared_ports + p_.load_ports ? port_kind::load
                                                        : port_kind::store;
    std::string sn = "port" + std::to_string(i);
    ports_.push_back(std::make_unique<port_state>(this, i, k, sn.c_str()));
    port_state& ps = *ports_.back();
    ps.socket->bind(ps.adapter);

    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&ps.end_req_ev);
    sc_core::sc_spawn([this, i] { end_req_process(i); }, (sn + "_end_req").c_str(), &o);
  }
  {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&arbiter_ev_);
    sc_core::sc_spawn([this] { arbitrate(); }, "at_arbiter", &o);
    sc_core::sc_spawn_options o2;
    o2.spawn_method();
    o2.dont_initialize();
    o2.set_sensitivity(&respond_ev_);
    sc_core::sc_spawn([this] { respond(); }, "responder", &o2);
  }
  banks_.assign(std::size_t(p_.banks) * (p_.multiported_banks ? n : 1), occupancy_calendar{});
  bank_end_.assign(banks_.size(), 0);
  full_end_.assign(banks_.size() / p_.banks, 0);
  group_end_.assign(banks_.size() / p_.banks, 0);
  bank_accesses_.resize(p_.banks);
  bank_seen_.assign(p_.banks, 0);
  all_banks_ = p_.banks >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << p_.banks) - 1;
  port_requests_.resize(n);
}

banked_memory::~banked_memory() = default;

banked_memory::target_socket& banked_memory::port(unsigned i) { return *ports_.at(i)->socket; }
banked_memory::port_kind banked_memory::kind_of_port(unsigned i) const { return ports_.at(i)->kind; }

void banked_memory::initial_image(const params& p, std::vector<unsigned char>& image) {
  image.assign(p.size_bytes, 0);
  if (p.init == memory_init::zero) return;
  std::mt19937_64 rng(p.seed);
  for (std::uint64_t w = 0; w < p.size_bytes / p.word_bytes; ++w) {
    std::uint64_t v = p.init == memory_init::iota ? w : rng();
    for (unsigned b = 0; b < p.word_bytes; ++b)  // little endian, truncated/zero-extended
      image[w * p.word_bytes + b] = b < 8 ? static_cast<unsigned char>(v >> (8 * b)) : 0;
  }
}

// ---------------------------------------------------------------------------- LT

void banked_memory::b_transport(unsigned port, tlm::tlm_generic_payload& gp,
                                sc_core::sc_time& delay) {
  port_state& ps = *ports_[port];
  if (gp.get_command() == tlm::TLM_IGNORE_COMMAND) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  const request_ext x = extensions_of(gp);
  if (!admit(gp, ps, x)) {
    ++errors_;
    return;
  }
  sc_core::sc_time now = flynn::sim_now();
  const std::uint64_t arrival = arrival_times_.ceil_cycles(now + delay);  // (arrival_cycle, now read once)
  // (The running process without a handle: a handle counts references to it.)
  sc_core::sc_process_b* const caller = sc_core::sc_get_current_process_b();
  // A caller that keeps its own local time and that no other process can act before
  // (alone_until) is served at once, ahead of simulated time: no request can come earlier or
  // in its cycle, so time order holds.
  const caller_info who = caller ? know_caller(caller) : caller_info{};
  bool thread = who.thread;
  // (alone_until(arrival), with the time of the arrival cycle and the current time at hand)
  const sc_core::sc_time at = arrival_times_(arrival);
  const auto alone = [&] {
    return at < run_limit() && sc_core::sc_time_to_pending_activity() > (at > now ? at - now : sc_core::SC_ZERO_TIME);
  };
  if (thread && who.local_time && alone()) {
    thread = false;
    served_alone_until_ = std::max(served_alone_until_, arrival);
  }
  if (p_.lt_time_order && thread) {  // then granted with that cycle's batch
    wait_until(arrival);
    now = flynn::sim_now();
  }
  if (thread && at == now) {
    // A call for the current cycle is granted with the other requests of the cycle, AT or
    // LT, in the arbiter's order: the caller waits the delta cycle that takes.
    lt_grant g;
    at_pending_.push_back({arrival, port, at_seq_++, &gp, &g, p_.latency, x});
    schedule_arbiter(arrival);
    sc_core::wait(g.granted);
    delay = to_time(g.t.done) - flynn::sim_now();
    return;
  }
  note_call_order(port, arrival);
  lt_ahead_[port] = std::max(lt_ahead_[port], arrival);
  const timing t = reserve(ps, gp, x.lanes, arrival, p_.latency);
  move_data(gp, x, port);
  delay = done_times_(t.done) - now;
}

// What the memory needs to know of process `caller`: whether it is a thread and whether the
// module that owns it keeps its own local time (the last caller's answers are kept: a memory
// mostly hears from the same few threads).
// (last_caller_ holds a reference to its process, so another one cannot have its address.)
const banked_memory::caller_info& banked_memory::know_caller(sc_core::sc_process_b* caller) {
  if (caller != last_caller_.get_process_object()) {
    last_caller_ = sc_core::sc_process_handle(caller);
    const auto* m = dynamic_cast<const module*>(caller->get_parent_object());
    last_caller_info_.thread = last_caller_.proc_kind() == sc_core::SC_THREAD_PROC_;
    last_caller_info_.local_time = m && m->keeps_local_time();
  }
  return last_caller_info_;
}

// ---------------------------------------------------------------------------- AT

tlm::tlm_sync_enum banked_memory::nb_transport_fw(unsigned port, tlm::tlm_generic_payload& gp,
                                                  tlm::tlm_phase& phase,
                                                  sc_core::sc_time& delay) {
  port_state& ps = *ports_[port];
  if (phase == tlm::END_RESP) {
    if (!ps.awaiting_end_resp) {
      fault("nb_transport_fw: END_RESP without a response awaiting it");
      return tlm::TLM_COMPLETED;
    }
    ps.awaiting_end_resp = false;
    ps.resp_sent = nullptr;
    if (!ps.begin_resp.empty()) respond_ev_.notify(sc_core::SC_ZERO_TIME);
    if (gp.has_mm()) gp.release();
    return tlm::TLM_COMPLETED;
  }
  if (phase != tlm::BEGIN_REQ) {
    fault("nb_transport_fw: unexpected phase " + std::string(phase.get_name()));
    return tlm::TLM_COMPLETED;
  }
  if (gp.get_command() == tlm::TLM_IGNORE_COMMAND) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  const request_ext x = extensions_of(gp);
  if (!admit(gp, ps, x)) {
    ++errors_;
    return tlm::TLM_COMPLETED;
  }
  // Requests are granted in simulated-time order: each waits for its arrival cycle and all
  // requests of one cycle are granted together, by port number (see arbitrate()).
  const std::uint64_t arrival = arrival_cycle(delay);
  if (gp.has_mm()) gp.acquire();
  at_pending_.push_back({arrival, port, at_seq_++, &gp, nullptr, p_.latency, x});
  // The response comes after the last wavefront plus the latency: not before arrival + latency.
  if (auto* bound = gp.get_extension<response_bound_extension>()) {
    bound->promised = true;
    bound->earliest = to_time(arrival + p_.latency);
  }
  schedule_arbiter(arrival);
  return tlm::TLM_ACCEPTED;
}

// Wakes the arbiter for cycle `c`: in the next delta cycle when that is now (every request
// of the current delta is then in), else at the cycle, where it waits one more delta for the
// requests that initiators woken at the same time send.
void banked_memory::schedule_arbiter(std::uint64_t c) {
  const sc_core::sc_time when = to_time(c), now = flynn::sim_now();
  if (when > now) {
    if (timed_wake_ <= now || when < timed_wake_) timed_wake_ = when;
    arbiter_ev_.notify(when - now);
  } else {
    arbiter_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

// AT arbiter. It runs one delta cycle after it is woken, so every request that initiators
// send in the cycle's first evaluation is in the batch, whatever the order the processes
// ran in; the batch is granted by arrival cycle, then port number, then the order of the
// port's own requests.
void banked_memory::arbitrate() {
  // (With one port the batch is granted in call order whatever the delta: no need to wait.
  // Nor when no other process is left to run in this delta and none is due in the next:
  // the batch can grow no more before the cycle ends.)
  if (ports_.size() > 1 && timed_wake_ == flynn::sim_now() && !arbiter_settled_ &&
      sc_core::sc_pending_activity_at_current_time()) {
    arbiter_settled_ = true;
    arbiter_ev_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  arbiter_settled_ = false;
  const std::uint64_t now = arrival_cycle(sc_core::SC_ZERO_TIME);
  for (;;) {
    // This cycle's batch, in grant order (requests sent from inside a backward call below
    // come in the next round).
    batch_.clear();
    std::size_t kept = 0;
    for (const at_request& r : at_pending_)
      if (r.arrival <= now) batch_.push_back(r);
      else at_pending_[kept++] = r;
    at_pending_.resize(kept);
    if (batch_.empty()) break;
    const auto order = [](const at_request& a, const at_request& b) {
      return std::tie(a.arrival, a.port, a.seq) < std::tie(b.arrival, b.port, b.seq);
    };
    // (Batches are a few requests, nearly always in order already.)
    const auto sort_from = [&](std::vector<at_request>::iterator from) {
      if (!std::is_sorted(from, batch_.end(), order)) std::sort(from, batch_.end(), order);
    };
    sort_from(batch_.begin());
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      const std::size_t before = at_pending_.size();
      const bool end_req_now = grant_at(batch_[i], now);
      if (at_pending_.size() != before) {  // sent from inside END_REQ: the port's next request
        kept = 0;
        for (const at_request& r : at_pending_)
          if (r.arrival <= now) batch_.push_back(r);
          else at_pending_[kept++] = r;
        at_pending_.resize(kept);
        sort_from(batch_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      } else if (end_req_now && i + 1 < batch_.size()) {
        // The initiator may answer this cycle's END_REQ with its next request from its own
        // process: let this delta cycle finish before granting the rest of the batch.
        at_pending_.insert(at_pending_.end(), batch_.begin() + static_cast<std::ptrdiff_t>(i) + 1, batch_.end());
        arbiter_settled_ = true;
        arbiter_ev_.notify(sc_core::SC_ZERO_TIME);
        return;
      }
    }
  }
  if (!at_pending_.empty()) {
    std::uint64_t next = UINT64_MAX;
    for (const at_request& r : at_pending_) next = std::min(next, r.arrival);
    schedule_arbiter(next);
  }
}

// A request for cycle `arrival` granted after another port's LT call booked a later cycle.
void banked_memory::note_call_order(unsigned port, std::uint64_t arrival) {
  for (unsigned q = 0; q < lt_ahead_.size(); ++q)
    if (q != port && lt_ahead_[q] > arrival) {
      ++call_order_grants_;
      return;
    }
}

// Grants one AT request; true when its END_REQ went out at once.
bool banked_memory::grant_at(const at_request& r, std::uint64_t now) {
  tlm::tlm_generic_payload& gp = *r.gp;
  port_state& ps = *ports_[r.port];
  note_call_order(r.port, r.arrival);
  const request_ext& x = r.x;
  if (r.lt) {  // an LT call waiting in b_transport: answered there
    r.lt->t = reserve(ps, gp, x.lanes, r.arrival, r.latency);
    move_data(gp, x, r.port);
    r.lt->granted.notify();
    return false;
  }
  const timing t = reserve(ps, gp, x.lanes, r.arrival, r.latency);
  move_data(gp, x, r.port, gp.is_read());
  if (new_watches_.empty()) {  // (a write, or a read of nothing: the list keeps its capacity here)
    ps.begin_resp.push_back({t.done, &gp, {}});
  } else {
    ps.begin_resp.push_back({t.done, &gp, std::move(new_watches_)});
    new_watches_.clear();  // (moved from: empty; a spare list's capacity is taken when one is kept)
    if (!spare_watch_lists_.empty()) {
      new_watches_.swap(spare_watch_lists_.back());
      spare_watch_lists_.pop_back();
    }
  }
  if (ps.begin_resp.size() == 1 && !ps.awaiting_end_resp) respond_ev_.notify(to_time(t.done) - to_time(now));
  if (t.start == now && ps.end_req.empty()) {  // taken at once
    tlm::tlm_phase ph = tlm::END_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    (*ps.socket)->nb_transport_bw(gp, ph, d);  // the initiator may only return ACCEPTED
    return true;
  }
  ps.end_req.emplace_back(t.start, &gp);
  if (ps.end_req.size() == 1) ps.end_req_ev.notify(to_time(t.start) - to_time(now));
  return false;
}

void banked_memory::end_req_process(unsigned port) {
  port_state& ps = *ports_[port];
  const auto now = flynn::sim_now();
  while (!ps.end_req.empty() && to_time(ps.end_req.front().first) <= now) {
    tlm::tlm_generic_payload* gp = ps.end_req.front().second;
    ps.end_req.pop_front();
    tlm::tlm_phase ph = tlm::END_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    (*ps.socket)->nb_transport_bw(*gp, ph, d);  // the initiator may only return ACCEPTED
  }
  if (!ps.end_req.empty()) ps.end_req_ev.notify(to_time(ps.end_req.front().first) - now);
}

// BEGIN_RESP of every port's responses that are due, by one process for all ports: one
// wake-up per cycle with responses, however many ports answer in it. A port's responses go
// in order, each once the previous one's END_RESP has come; the process is woken again at
// the earliest response still due (an event keeps only its earliest notification, and each
// run sets it anew).
void banked_memory::respond() {
  const auto now = flynn::sim_now();
  const std::uint64_t now_cycle = to_cycles(now);  // (cycle c has come when c <= now_cycle)
  std::uint64_t next = UINT64_MAX;
  for (auto& p : ports_) {
    port_state& ps = *p;
    respond_port(ps, now_cycle);
    if (!ps.awaiting_end_resp && !ps.begin_resp.empty()) next = std::min(next, ps.begin_resp.front().due);
  }
  if (next != UINT64_MAX) {
    const auto due = to_time(next);
    respond_ev_.notify(due > now ? due - now : sc_core::SC_ZERO_TIME);
  }
}

void banked_memory::respond_port(port_state& ps, std::uint64_t now_cycle) {
  while (!ps.awaiting_end_resp && !ps.begin_resp.empty() && ps.begin_resp.front().due <= now_cycle) {
    tlm::tlm_generic_payload* gp = ps.begin_resp.front().gp;
    // Its data are final: the initiator owns them now.
    if (!ps.begin_resp.front().watches.empty()) unwatch(ps.begin_resp.front().watches);
    ps.begin_resp.pop_front();
    tlm::tlm_phase ph = tlm::BEGIN_RESP;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum r = (*ps.socket)->nb_transport_bw(*gp, ph, d);
    if (r == tlm::TLM_ACCEPTED) {
      ps.awaiting_end_resp = true;  // response exclusion: wait for END_RESP
      ps.resp_sent = gp;
      ps.resp_sent_at = arrival_cycle(sc_core::SC_ZERO_TIME);
    } else if (gp->has_mm()) {
      gp->release();
    }
  }
}

std::vector<std::string> banked_memory::run_notes() const {
  if (call_order_grants_.value() == 0) return {};
  return {std::to_string(call_order_grants_.value()) +
          " requests were granted in call order, not in simulated-time order: an LT initiator ran ahead of "
          "simulated time and lt_time_order is false, so their timing follows the order the calls were made "
          "(see call_order_grants)"};
}

std::string banked_memory::pending_work() const {
  std::string s;
  for (const auto& p : ports_) {
    if (!p->awaiting_end_resp || !p->resp_sent) continue;
    const tlm::tlm_generic_payload& gp = *p->resp_sent;
    std::ostringstream o;
    o << p->socket->basename() << ": END_RESP never came for the BEGIN_RESP (at cycle " << p->resp_sent_at << ") of "
      << (gp.is_write() ? "WRITE" : "READ") << " 0x" << std::hex << gp.get_address() << std::dec << " ("
      << gp.get_data_length() << " bytes)";
    if (!p->begin_resp.empty()) o << "; " << p->begin_resp.size() << " responses wait behind it";
    s += (s.empty() ? "" : "; ") + o.str();
  }
  return s;
}

// ---------------------------------------------------------------------------- tracing

void banked_memory::attach_trace(trace_sink& sink) {
  tracing_ = true;
  if (sink.wants_timeline()) timeline_ = &sink;
  bank_trace_.resize(p_.banks);
  port_trace_.resize(ports_.size());
  for (unsigned b = 0; b < p_.banks; ++b)
    bank_trace_[b].sig.attach(&sink, name(), "bank" + std::to_string(b) + "_busy", 1);
  for (unsigned i = 0; i < ports_.size(); ++i)
    port_trace_[i].sig.attach(&sink, name(), "port" + std::to_string(i) + "_busy", 1);
}

// Busy intervals are merged while they touch, then recorded as a 1 ... 0 pulse.
void banked_memory::record(interval_trace& t, std::uint64_t from, std::uint64_t to) {
  if (t.open && from <= t.to && to >= t.from) {
    t.from = std::min(t.from, from);
    t.to = std::max(t.to, to);
    return;
  }
  flush(t);
  t.from = from;
  t.to = to;
  t.open = true;
}

void banked_memory::flush(interval_trace& t) {
  if (!t.open) return;
  t.sig.set(to_time(t.from), 1);
  t.sig.set(to_time(t.to), 0);
  t.open = false;
}

void banked_memory::finish() {
  for (auto& t : bank_trace_) flush(t);
  for (auto& t : port_trace_) flush(t);
}

}  // namespace flynn

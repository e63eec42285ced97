// The vector unit's element-group engine (each dispatched instruction's groups started at
// their cycles, results landing, instructions finishing) and its memory ports (AT
// initiators, one request phase open at a time).
#include <algorithm>
#include <cstring>
#include <tuple>

#include "flynn/common/format.h"
#include "vector_unit_parts.h"

namespace flynn {

using vec::op;

// ---------------------------------------------------------------------------- element groups

// Starts every element group whose cycle can be decided, in program order, and finishes the
// instructions that are done; sends the memory requests this makes.
void vector_unit::advance() {
  if (advancing_) {
    advance_again_ = true;
    return;
  }
  advancing_ = true;
  do {
    advance_again_ = false;
    hazard_fronts h;
    h.write.fill(unknown);
    h.read.fill(unknown);
    bool any_finished = false;
    for (std::size_t i = 0; i < flights_.size(); ++i) {
      flight& f = *flights_[i];
      // A flight whose next group waits for a time still unknown cannot start it (nor is
      // anything else checked for it): skipped until that time is known.
      if (!f.waits_on || *f.waits_on != unknown) {
        f.waits_on = nullptr;
        while (!f.groups_done && fault_.empty() && !blocked(f, h) && start_group(f)) {
        }
      }
      if (f.groups_done && f.responses_due == 0 && !f.finished) finish_flight(f);
      any_finished |= f.finished;
      add_front(f, h);
    }
    if (any_finished)
      flights_.erase(std::remove_if(flights_.begin(), flights_.end(), [](const auto& f) { return f->finished; }),
                     flights_.end());
    for (auto& q : ports_)
      if (q->requests_out.ready()) send_requests(*q);
  } while (advance_again_);
  advancing_ = false;
  progress();
}

// Whether an earlier instruction that writes a register this one's next group reads or
// writes, or reads one it writes, has not yet started the group holding one of its elements
// (the group waits for it: that instruction's element comes first in program order). `h`
// holds the earlier instructions' first elements still to start, per register.
bool vector_unit::blocked(const flight& f, const hazard_fronts& h) const {
  const unsigned last = f.elems[std::min(f.elems.size(), f.next + p_.lanes) - 1];
  for (unsigned m = f.reads | f.writes; m; m &= m - 1)
    if (h.write[static_cast<unsigned>(__builtin_ctz(m))] <= last) return true;
  for (unsigned m = f.writes; m; m &= m - 1)
    if (h.read[static_cast<unsigned>(__builtin_ctz(m))] <= last) return true;
  return false;
}

// Enters f's first element still to start (none when all its groups have started) in `h`.
void vector_unit::add_front(const flight& f, hazard_fronts& h) const {
  if (f.groups_done) return;
  const std::uint64_t e = f.elems[f.next];
  for (unsigned m = f.writes; m; m &= m - 1) {
    std::uint64_t& x = h.write[static_cast<unsigned>(__builtin_ctz(m))];
    x = std::min(x, e);
  }
  for (unsigned m = f.reads; m; m &= m - 1) {
    std::uint64_t& x = h.read[static_cast<unsigned>(__builtin_ctz(m))];
    x = std::min(x, e);
  }
}

// The time that keeps an operand unknown (its element's write, or the whole write it waits
// for), or nullptr when the operand is known.
const std::uint64_t* vector_unit::unknown_of(unsigned v, unsigned e, bool chained, const write_times& w) const {
  const std::uint64_t& r = rt_[v].ready[e];
  if (r == unknown) return &r;
  return !chained && w.full == unknown ? &w.full : nullptr;
}

// Notes that f's next group cannot start before the time at `*t`, unknown now, is known.
bool vector_unit::waits(flight& f, const std::uint64_t* t) {
  f.waits_on = t;
  return false;
}

std::uint64_t vector_unit::operand_ready(unsigned v, unsigned e, bool chained, const write_times& w) const {
  const std::uint64_t r = rt_[v].ready[e];
  if (chained || r == unknown) return r;
  return w.full == unknown ? unknown : std::max(w.full, r);
}

bool vector_unit::start_group(flight& f) { return f.memory ? start_memory_group(f) : start_arith_group(f); }

bool vector_unit::start_arith_group(flight& f) {
  const vec::instr& in = f.in;
  const std::size_t g = f.next, end = std::min(f.elems.size(), g + p_.lanes);
  reg_timing* dst = f.cmp ? nullptr : &rt_[in.rd];
  const unsigned lat = f.lat;
  // The group's cycle, from what it waits for: the unit, its operands, the destination's
  // earlier readers and writes. All must be known.
  if (f.first_group && *f.prev_free == unknown) return waits(f, f.prev_free.get());
  std::uint64_t s = f.first_group ? std::max(f.t, *f.prev_free) : f.prev + 1;
  for (std::size_t k = g; k < end; ++k) {
    const unsigned e = f.elems[k];
    const std::uint64_t a = operand_ready(in.ra, e, f.chain_a, *f.wa);
    if (a == unknown) return waits(f, unknown_of(in.ra, e, f.chain_a, *f.wa));
    s = std::max(s, a);
    if (f.vb) {
      const std::uint64_t b = operand_ready(in.rb, e, f.chain_b, *f.wb);
      if (b == unknown) return waits(f, unknown_of(in.rb, e, f.chain_b, *f.wb));
      s = std::max(s, b);
    }
    if (dst) {
      if (dst->ready[e] == unknown) return waits(f, &dst->ready[e]);
      s = std::max(s, dst->read_until[e]);
      if (dst->ready[e] + 1 > s + lat) s = dst->ready[e] + 1 - lat;  // write after write
    }
  }
  const std::uint64_t d = s + lat;
  unsigned useful = 0;
  for (std::size_t k = g; k < end; ++k) {
    const unsigned e = f.elems[k];
    const std::uint64_t b = f.vb ? vr_[in.rb][e] : in.kind == vec::src2::reg ? f.ops.value
                                                                           : static_cast<std::uint64_t>(in.imm);
    const std::uint64_t val = alu(in.code, vr_[in.ra][e], b);
    rt_[in.ra].read_until[e] = std::max(rt_[in.ra].read_until[e], s);
    if (f.vb) rt_[in.rb].read_until[e] = std::max(rt_[in.rb].read_until[e], s);
    if (in.masked && !f.mask[e]) {  // simple masking: computed, write-back suppressed
      ++masked_skipped_;
      continue;
    }
    ++useful;
    if (f.cmp) {
      vm_[e] = val != 0;
    } else {
      vr_[in.rd][e] = val;
      dst->ready[e] = d;
    }
  }
  unit_state& us = *f.us;
  if (f.first_group || end == f.elems.size()) issue_news_ = true;  // first start, first result, unit release
  if (f.first_group) {
    f.first_done = d;
    if (f.dst) f.dst->first = d;
    if (f.first_start_cell) *f.first_start_cell = s;
    trace(us.busy, s, 1);
  }
  if (!f.cmp) trace(reg_progress_[in.rd], d, end);
  count_ops(s, useful);
  element_ops_ += useful;
  us.element_ops += useful;
  ++us.busy_cycles;
  trace(us.element, s, f.elems[g]);
  f.prev = s;
  f.last_done = d;
  f.vm_done = d;
  f.first_group = false;
  f.next = end;
  if (end == f.elems.size()) {
    f.groups_done = true;
    *f.own_free = s + 1;  // the unit takes the next instruction's first group from here
  }
  return true;
}

// A memory group: one TLM request (a multi-lane request with several lanes) sent for the
// group's cycle; loaded elements land in the register when its response comes.
bool vector_unit::start_memory_group(flight& f) {
  const vec::instr& in = f.in;
  const std::size_t g = f.next, end = std::min(f.elems.size(), g + p_.lanes);
  const unsigned data_reg = f.store ? in.rb : in.rd;
  const unsigned index_reg = in.code == op::vldx ? in.rb : in.rd;
  reg_timing& dr = rt_[data_reg];
  if (f.first_group && *f.prev_free == unknown) return waits(f, f.prev_free.get());
  for (std::size_t k = g; k < end; ++k) {  // everything the cycle depends on must be known
    const unsigned e = f.elems[k];
    if (f.indexed && operand_ready(index_reg, e, f.chain_b, *f.wb) == unknown)
      return waits(f, unknown_of(index_reg, e, f.chain_b, *f.wb));
    if (f.store && operand_ready(data_reg, e, f.chain_a, *f.wa) == unknown)
      return waits(f, unknown_of(data_reg, e, f.chain_a, *f.wa));
    if (!f.store && dr.ready[e] == unknown) return waits(f, &dr.ready[e]);  // the element's earlier write lands first
  }
  std::uint64_t s = f.first_group ? std::max(f.t, *f.prev_free) : f.prev + 1;
  for (std::size_t k = g; k < end; ++k) {
    const unsigned e = f.elems[k];
    if (f.indexed) {
      s = std::max(s, operand_ready(index_reg, e, f.chain_b, *f.wb));
      rt_[index_reg].read_until[e] = std::max(rt_[index_reg].read_until[e], s);
    }
    s = std::max(s, f.store ? operand_ready(data_reg, e, f.chain_a, *f.wa) : dr.read_until[e]);
  }
  request* rq = new_request();
  rq->f = &f;
  rq->begin = g;
  rq->end = end;
  rq->start = s;
  rq->first = f.first_group;
  lanes_extension& ext = rq->ext;
  ext.active_mask = 0;
  const unsigned L = p_.lanes;
  tlm::tlm_generic_payload* gp = pool_.allocate();
  unsigned char* buf = pool_.buffer(gp);
  unsigned n = 0;
  for (std::size_t k = g; k < end; ++k) {
    const unsigned e = f.elems[k];
    const unsigned lane = static_cast<unsigned>(k - g);
    if (in.masked && !f.mask[e]) {  // simple masking: the slot passes unused
      ++masked_skipped_;
      continue;
    }
    const std::uint64_t addr =
        f.indexed ? f.ops.base + vr_[index_reg][e] * 8
                  : f.ops.base + static_cast<std::uint64_t>(static_cast<std::int64_t>(e) * static_cast<std::int64_t>(f.vs) * 8);
    if (addr % 8 != 0) {
      gp->release();
      free_request(*rq);
      set_fault(f, "element " + std::to_string(e) + ": misaligned address " + hex(addr));
      return false;
    }
    ext.address[lane] = addr;
    ext.active_mask |= 1u << lane;
    if (f.store) {
      std::memcpy(&buf[lane * 8], &vr_[data_reg][e], 8);
      dr.read_until[e] = std::max(dr.read_until[e], s);
    }
    ++n;
  }
  if (f.first_group || end == f.elems.size()) issue_news_ = true;  // first start, port release
  if (f.first_group) {
    f.first_start = s;
    if (f.first_start_cell) *f.first_start_cell = s;
  }
  mem_port& port = *f.port;
  count_ops(s, n);
  trace(port.element, s, f.elems[g]);
  element_ops_ += n;
  mem_elements_ += n;
  port.elements += n;
  f.prev = s;
  f.first_group = false;
  f.next = end;
  if (end == f.elems.size()) {
    f.groups_done = true;
    if (!p_.port_held_until_done) *f.own_free = s + 1;
  }
  if (n == 0) {  // nothing to move: the group is done at its cycle
    gp->release();
    group_done(*rq, s);
    free_request(*rq);
    return true;
  }
  unsigned first_lane = 0;
  while (!((ext.active_mask >> first_lane) & 1)) ++first_lane;
  gp->set_command(f.store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp->set_address(ext.address[first_lane]);
  gp->set_data_ptr(buf);
  gp->set_byte_enable_ptr(nullptr);
  gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  if (L == 1) {
    gp->set_data_length(8);
    gp->set_streaming_width(8);
  } else {
    ext.lanes = static_cast<unsigned>(end - g);
    ext.lane_bytes = 8;
    ext.acknowledged = false;
    gp->set_data_length(ext.lanes * 8);
    gp->set_streaming_width(ext.lanes * 8);
    gp->set_extension(&ext);
  }
  if (!f.store) {
    rq->prev_ready.resize(end - g);
    for (std::size_t k = g; k < end; ++k) {
      const unsigned e = f.elems[k];
      if (in.masked && !f.mask[e]) continue;
      rq->prev_ready[k - g] = dr.ready[e];
      dr.ready[e] = unknown;  // until the response
    }
  }
  rq->gp = gp;
  rq->owner.owner = this;
  rq->owner.record = rq;
  gp->set_extension(&rq->owner);
  ++f.responses_due;
  port.requests_out.push(gp, to_time(rq->start));
  return true;
}

// A group's data are in (loads: in the register) at cycle `done`.
void vector_unit::group_done(const request& rq, std::uint64_t done) {
  flight& f = *rq.f;
  if (!f.store) trace(reg_progress_[f.in.rd], done, rq.end);
  if (rq.first) {
    issue_news_ = true;
    f.first_done = done;
    if (f.dst) f.dst->first = done;
  }
  f.last_done = std::max(f.last_done, done);
}

// A memory response: the data it carries land now (its cycle is `done`).
void vector_unit::complete(request& rq, std::uint64_t done) {
  flight& f = *rq.f;
  tlm::tlm_generic_payload& gp = *rq.gp;
  const auto group = [&] {
    return "element group " + std::to_string(f.elems[rq.begin]) + ".." + std::to_string(f.elems[rq.end - 1]);
  };
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
    set_fault(f, group() + " (first active at address " + hex(gp.get_address()) + "): " + gp.get_response_string());
  } else if (p_.lanes > 1 && !rq.ext.acknowledged) {
    set_fault(f, group() + ": the memory ignored the lanes extension (a multi-lane vector unit needs a lanes-aware "
                         "memory such as banked_memory)");
  } else if (!f.store) {
    const unsigned char* buf = gp.get_data_ptr();
    for (std::size_t k = rq.begin; k < rq.end; ++k) {
      const unsigned e = f.elems[k];
      if (f.in.masked && !f.mask[e]) continue;
      std::memcpy(&vr_[f.in.rd][e], &buf[(k - rq.begin) * 8], 8);
      rt_[f.in.rd].ready[e] = std::max(done, rq.prev_ready[k - rq.begin] + 1);  // writes to an element land in order
    }
  }
  group_done(rq, done);
  --f.responses_due;
  if (p_.lanes > 1) gp.clear_extension(&rq.ext);
  gp.clear_extension(&rq.owner);
  gp.release();
  free_request(rq);
  // Every advance ends where no group can start; a store's response other than its
  // instruction's last changes nothing a group or an instruction's end waits for.
  if (f.store && !(f.groups_done && f.responses_due == 0) && !advancing_) progress();
  else advance();
}

void vector_unit::finish_flight(flight& f) {
  issue_news_ = true;
  const bool any = f.next > 0;
  if (f.memory) {
    if (!f.store) {
      f.dst->first = f.first_done;
      f.dst->full = f.last_done;
    }
    mem_port& port = *f.port;
    const std::uint64_t release = p_.port_held_until_done ? std::max(f.last_done, f.first_start)
                                                          : (any ? f.prev + 1 : f.first_start);
    trace(port.busy, f.first_start, 1);
    trace(port.busy, release, 0);
    port.busy_cycles += release - f.first_start;
    ++port.instructions;
    *f.own_free = release;
  } else {
    unit_state& us = *f.us;
    if (any) trace(us.busy, f.prev + 1, 0);
    *f.own_free = any ? f.prev + 1 : f.t;
    ++us.instructions;
    if (f.cmp) {
      --compares_in_flight_;
      vm_ready_ = std::max(vm_ready_, f.vm_done);
      trace(vm_pop_sig_, vm_ready_, static_cast<std::uint64_t>(
                                             std::count(vm_.begin(), vm_.begin() + static_cast<std::ptrdiff_t>(f.vl), true)));
    } else {
      if (!any) f.dst->first = f.t;
      f.dst->full = f.last_done;
    }
  }
  if (f.first_start_cell && *f.first_start_cell == unknown) *f.first_start_cell = 0;  // never started: not waiting
  drain_ = std::max(drain_, f.last_done);
  f.finished = true;
}

void vector_unit::set_fault(const flight& f, const std::string& what) {
  if (!fault_.empty()) return;
  fault_ = what;
  fault_pc_ = f.ops.pc;
  issue_news_ = true;
  progress();
}

// ---------------------------------------------------------------------------- memory ports

vector_unit::request* vector_unit::new_request() {
  if (free_requests_.empty()) {
    requests_.push_back(std::make_unique<request>());
    return requests_.back().get();
  }
  request* rq = free_requests_.back();
  free_requests_.pop_back();
  return rq;
}

// Back to the free records, as a new one would be (prev_ready keeps its capacity).
void vector_unit::free_request(request& rq) {
  rq.f = nullptr;
  rq.begin = rq.end = 0;
  rq.start = 0;
  rq.first = false;
  rq.prev_ready.clear();
  rq.gp = nullptr;
  if (p_.lanes > 1) rq.ext = lanes_extension{};  // (one lane: the extension is never sent)
  free_requests_.push_back(&rq);
}

vector_unit::request* vector_unit::request_of(const tlm::tlm_generic_payload& gp) const {
  request* rq = owner_extension::record_of<request>(gp, this);
  return rq && rq->gp == &gp ? rq : nullptr;
}

// Sends the port's queued requests, one at a time (a new BEGIN_REQ only once the previous
// request's END_REQ has come), each for its group's cycle.
void vector_unit::send_requests(mem_port& port) {
  port.requests_out.send(
      port.socket, end_resp_owed_,
      [this](tlm::tlm_generic_payload* gp, const sc_core::sc_time& at) { complete(*request_of(*gp), to_cycles_ceil(at)); },
      [this] { fault("BEGIN_REQ answered TLM_UPDATED with a phase other than END_REQ or BEGIN_RESP"); });
}

tlm::tlm_sync_enum vector_unit::nb_transport_bw(mem_port& port, tlm::tlm_generic_payload& gp,
                                                tlm::tlm_phase& ph, sc_core::sc_time& delay) {
  request* rq = request_of(gp);
  if (!rq) {
    fault(std::string("nb_transport_bw ") + ph.get_name() + " for a transaction not in flight");
    return tlm::TLM_COMPLETED;
  }
  const sc_core::sc_time at = flynn::sim_now() + delay;  // the phase's annotated time
  if (ph == tlm::END_REQ) {
    port.requests_out.end_req(&gp, at);
    send_requests(port);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    if (port.requests_out.end_req(&gp, at)) send_requests(port);  // BEGIN_RESP is an implicit END_REQ
    complete(*rq, to_cycles_ceil(at));
    return tlm::TLM_COMPLETED;  // no END_RESP needed
  }
  fault(std::string("nb_transport_bw: unexpected phase ") + ph.get_name());
  return tlm::TLM_COMPLETED;
}

// The oldest memory request that has not completed (one waiting for END_REQ first), or the
// oldest instruction still in flight.
std::string vector_unit::pending_work() const {
  if (flights_.empty()) return {};
  const request* stuck = nullptr;
  bool end_req = false;
  for (const auto& rq : requests_) {
    if (!rq->gp) continue;  // free
    const bool waits = rq->f->port->requests_out.open() == rq->gp;
    if (!stuck || std::make_tuple(!waits, rq->f->seq, rq->begin) < std::make_tuple(!end_req, stuck->f->seq, stuck->begin)) {
      stuck = rq.get();
      end_req = waits;
    }
  }
  const flight& f = stuck ? *stuck->f : *flights_.front();
  std::string what = "line " + std::to_string(f.in.line) + " (" + f.in.text + ") issued at cycle " +
                     std::to_string(f.t) + " has not completed";
  if (!stuck) return what;
  const bool sent = end_req || !f.port->requests_out.queued(stuck->gp);
  return what + ": element group " + std::to_string(f.elems[stuck->begin]) + ".." +
         std::to_string(f.elems[stuck->end - 1]) + ", " + (stuck->gp->is_read() ? "READ " : "WRITE ") +
         hex(stuck->gp->get_address()) + " through " + f.port->socket.name() +
         (end_req ? ": END_REQ never came" : sent ? ": no response came" : ": not sent yet");
}

// ---------------------------------------------------------------------------- tracing

void vector_unit::attach_trace(trace_sink& sink) {
  for (std::size_t u = 0; u < units_.size(); ++u) {
    units_[u].busy.attach(&sink, name(), std::string("fu_") + fu_names[u] + "_busy", 1);
    units_[u].element.attach(&sink, name(), std::string("fu_") + fu_names[u] + "_element", 16);
  }
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    ports_[i]->busy.attach(&sink, name(), "port" + std::to_string(i) + "_busy", 1);
    ports_[i]->element.attach(&sink, name(), "port" + std::to_string(i) + "_element", 16);
  }
  vl_sig_.attach(&sink, name(), "vl", 16);
  vm_pop_sig_.attach(&sink, name(), "vm_population", 16);
  for (unsigned v = 0; v < 8; ++v)
    reg_progress_[v].attach(&sink, name(), "v" + std::to_string(v) + "_written", 16);
}

void vector_unit::finish() { flush_ops(UINT64_MAX); }

}  // namespace flynn

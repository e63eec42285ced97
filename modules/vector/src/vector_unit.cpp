// The vector unit: parameters, construction and the issue stage (in-order dispatch, chaining,
// structural hazards); the element groups and memory ports are in element_groups.cpp.
#include "flynn/vector/vector_unit.h"

#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "vector_unit_parts.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace flynn {

using vec::op;

vector_unit::vector_unit(const sc_core::sc_module_name& name, const params& p)
    : module(name, p.clock_ns), dispatch_export("dispatch"), p_(p) {
  throw_if_invalid("vector_unit", p_.check());
  dispatch_export.bind(*this);
  vr_.assign(8, std::vector<std::uint64_t>(p_.max_vl, 0));
  rt_.resize(8);
  for (auto& r : rt_) {
    r.ready.assign(p_.max_vl, 0);
    r.read_until.assign(p_.max_vl, 0);
  }
  vm_.assign(p_.max_vl, true);
  vl_ = p_.max_vl;
  for (std::size_t u = 0; u < units_.size(); ++u)
    units_[u].stats.nest_in(parts_stats_, std::string("fu_") + fu_names[u] + "_", std::string(fu_names[u]) + " unit: ");
  for (unsigned i = 0; i < p_.ports(); ++i) {
    const auto k = i < p_.shared_ports                   ? mem_port::shared
                   : i < p_.shared_ports + p_.load_ports ? mem_port::load
                                                         : mem_port::store;
    ports_.push_back(std::make_unique<mem_port>(this, ("port" + std::to_string(i)).c_str(), k));
    ports_.back()->stats.nest_in(parts_stats_, "port" + std::to_string(i) + "_", "memory port " + std::to_string(i) + ": ");
  }
  ops_hist_.resize(std::size_t(p_.lanes) * (std::size_t(fu::count_) + p_.ports()) + 1);
  reg_progress_.resize(8);
}

// A run stopped by a fault leaves requests in flight; their payloads must not take the
// lanes extensions (members of the request records) with them when the pool goes.
vector_unit::~vector_unit() {
  for (auto& rq : requests_) {
    if (!rq->gp) continue;
    if (rq->gp->get_extension<lanes_extension>() == &rq->ext) rq->gp->clear_extension(&rq->ext);
    if (rq->gp->get_extension<owner_extension>() == &rq->owner) rq->gp->clear_extension(&rq->owner);
  }
}

vector_unit::initiator_socket& vector_unit::port(unsigned i) { return ports_.at(i)->socket; }

// ---------------------------------------------------------------------------- issue
//
// The vector unit runs ahead of simulated time where it can: an instruction's issue cycle
// and its element groups' cycles are decided as soon as everything they depend on is known.
// A load's results are not known until its memory responses have come, so what depends on
// them waits: the issue stage (dispatch) in simulated time, never past the issue cycle it
// decides; an element group until the responses it needs are in (advance). A time not known
// yet lies after every cycle whose responses have all arrived, which settles a question such
// as "has the producer completed by cycle t" at cycle t at the latest.

struct vector_unit::issue_plan {
  std::uint64_t t = 0;             // issue cycle
  std::uint64_t admit_from = 0;    // the cycle the structural check started from
  std::uint64_t admitted = 0;      // the cycle it gave
  mem_port* port = nullptr;
  bool chain_a = false, chain_b = false;
  bool count_a = false, count_b = false;  // the operand's producer is still in flight at issue
};

namespace {
bool is_store(op o) { return o == op::vst || o == op::vstx; }
bool is_indexed(op o) { return o == op::vldx || o == op::vstx; }
bool is_compare(op o) { return o == op::vcmpeq || o == op::vcmpne || o == op::vcmplt || o == op::vcmpgt; }
// The registers read as whole vectors, element by element: [0] and [1] (none: 8).
std::array<unsigned, 2> vector_sources(const vec::instr& in) {
  if (vec::is_vector_memory(in.code))
    return {is_store(in.code) ? in.rb : 8u,
            is_indexed(in.code) ? (in.code == op::vldx ? in.rb : in.rd) : 8u};
  return {in.ra, in.kind == vec::src2::vreg ? in.rb : 8u};
}
}  // namespace

// Whether time x lies after cycle t: 1 or 0, or -1 when it cannot be told yet (x is not known
// and cycle t has not passed); `until` then gets the cycle at which it can.
int vector_unit::later(std::uint64_t x, std::uint64_t t, std::uint64_t& until) const {
  if (x != unknown) return x > t ? 1 : 0;
  const sc_core::sc_time now = flynn::sim_now(), at = to_time(t);
  if (at < now || (at == now && settled_ && settled_at_ == now)) return 1;
  until = std::min(until, t);
  return -1;
}

// Whether a consumer reads the operand written as `w` element by element, possibly delaying
// issue `t` to the chain slot (cray1). 1 or 0, or -1 when it cannot be told yet.
int vector_unit::chains(const write_times& w, std::uint64_t& t, std::uint64_t& until) const {
  const int in_flight = later(w.full, t, until);
  if (in_flight <= 0) return in_flight;  // 0: complete already, nothing to chain
  switch (p_.chaining) {
    case chaining_policy::none: return 0;
    case chaining_policy::flexible: return 1;
    case chaining_policy::cray1: {
      const int slot = t == 0 ? 1 : later(w.first, t - 1, until);  // t <= first
      if (slot < 0) return -1;
      if (!slot) return 0;  // missed the chain slot: wait for the whole vector
      if (w.first == unknown) return -1;
      t = w.first;  // hold issue until the first result arrives, then chain
      return 1;
    }
  }
  return 0;
}

// Structural hazard at issue: without queues the instruction issues when its unit (port) is
// free; with queue_depth N it issues unless N instructions already wait for it. False when
// that cannot be told yet.
bool vector_unit::admit(std::deque<time_cell>& waiting, std::uint64_t& t, std::uint64_t free_at,
                        std::uint64_t& until) const {
  if (p_.queue_depth == 0) {
    if (free_at == unknown) return false;
    t = std::max(t, free_at);
    return true;
  }
  std::size_t started = 0;  // queued instructions that have started by t
  while (started < waiting.size()) {
    const int l = later(*waiting[started], t, until);
    if (l < 0) return false;
    if (l) break;
    ++started;
  }
  const std::size_t left = waiting.size() - started;
  if (left >= p_.queue_depth) {
    const std::uint64_t x = *waiting[started + left - p_.queue_depth];
    if (x == unknown) return false;
    t = x;
  }
  return true;
}

bool vector_unit::plan_issue(const vec::instr& in, std::uint64_t t, issue_plan& p, std::uint64_t& until) {
  const bool memory = vec::is_vector_memory(in.code);
  std::deque<time_cell>* waiting;
  std::uint64_t free_at;
  if (memory) {
    // The compatible port that frees up first (the first such one on a tie).
    mem_port* best = nullptr;
    bool pending = false;
    for (auto& q : ports_) {
      if (!q->can(is_store(in.code))) continue;
      if (*q->free_at == unknown) {
        pending = true;
      } else if (!best || *q->free_at < *best->free_at) {
        best = q.get();
      }
    }
    if (!best) return false;
    if (pending && later(unknown, *best->free_at, until) <= 0) return false;
    p.port = best;
    waiting = &best->waiting;
    free_at = *best->free_at;
  } else {
    unit_state& us = units_[static_cast<std::size_t>(unit_of(in.code))];
    waiting = &us.waiting;
    free_at = *us.free_at;
  }
  p.admit_from = t;
  if (!admit(*waiting, t, free_at, until)) return false;
  p.admitted = t;
  if (in.masked) {
    if (compares_in_flight_) return false;
    t = std::max(t, vm_ready_);
  }
  const auto src = vector_sources(in);
  // Chaining decisions (cray1 may move issue to the chain slot; settle to a fixed point).
  for (int pass = 0; pass < 3; ++pass) {
    const std::uint64_t before = t;
    for (int k = 0; k < 2; ++k) {
      if (src[k] >= 8) continue;
      const int c = chains(*rt_[src[k]].last, t, until);
      if (c < 0) return false;
      (k ? p.chain_b : p.chain_a) = c;
    }
    if (t == before) break;
  }
  for (int k = 0; k < 2; ++k) {
    if (src[k] >= 8) continue;
    const int l = later(rt_[src[k]].last->full, t, until);
    if (l < 0) return false;
    (k ? p.count_b : p.count_a) = l;
  }
  p.t = t;
  return true;
}

void vector_unit::settle() {
  // Responses due at this cycle are sent by processes of its first evaluation phase.
  wait(sc_core::SC_ZERO_TIME);
  wait(sc_core::SC_ZERO_TIME);
  settled_ = true;
  settled_at_ = flynn::sim_now();
}

// Groups advanced (or a fault was met) in this evaluation phase. Had the issue stage waited
// for every advance, it would run in the next phase, or in this one when the previous phase
// advanced too and it has not run in this one yet: it is woken there when what it reads
// changed since it last looked.
void vector_unit::progress() {
  const std::uint64_t phase = sc_core::sc_delta_count();
  const sc_core::sc_time& now = flynn::sim_now();
  if (phase != advanced_phase_ || now != advanced_at_) {
    advanced_before_ = phase == advanced_phase_ + 1 && now == advanced_at_;
    advanced_phase_ = phase;
    advanced_at_ = now;
  }
  if (!issue_waiting_ || !issue_news_) return;
  if (advanced_before_ && !(issue_phase_ == phase && issue_at_ == now)) progress_ev_.notify();
  else progress_ev_.notify(sc_core::SC_ZERO_TIME);
}

// The issue stage looks at the state it waits on (news so far are seen).
void vector_unit::issue_looks() {
  issue_news_ = false;
  issue_phase_ = sc_core::sc_delta_count();
  issue_at_ = flynn::sim_now();
}

void vector_unit::wait_progress() {
  issue_waiting_ = true;
  wait(progress_ev_);
  issue_waiting_ = false;
}

void vector_unit::wait_progress(const sc_core::sc_time& timeout) {
  issue_waiting_ = true;
  wait(timeout, progress_ev_);
  issue_waiting_ = false;
}

vec::dispatch_result vector_unit::dispatch(const vec::instr& in, const vec::scalar_operands& ops,
                                           std::uint64_t earliest) {
  vec::dispatch_result r;
  auto fault_in_flight = [&] {
    r.fault = fault_;
    r.fault_pc = fault_pc_;
    return r;
  };
  if (!fault_.empty()) return fault_in_flight();
  std::uint64_t t = earliest;
  if (issued_any_) t = std::max(t, last_issue_ + 1);  // one instruction issued per cycle
  ++instructions_;
  const bool mask_op = in.code == op::vmset || in.code == op::vmnot || in.code == op::vmpop;
  const bool elementwise = !mask_op && in.code != op::setvl && in.code != op::setvs;
  issue_plan plan;
  for (;;) {
    std::uint64_t until = unknown;
    issue_looks();
    if (mask_op ? compares_in_flight_ == 0 : !elementwise || plan_issue(in, std::max(t, vl_ready_), plan, until))
      break;
    if (!fault_.empty()) return fault_in_flight();
    const sc_core::sc_time now = flynn::sim_now();
    if (until != unknown && to_time(until) <= now)
      settle();
    else if (until != unknown)
      wait_progress(to_time(until) - now);
    else
      wait_progress();
  }
  std::uint64_t done = t + p_.lat_control;
  switch (in.code) {
    case op::setvl: {
      std::uint64_t v = ops.value;
      if (in.has_rd) {
        v = std::min<std::uint64_t>(v, p_.max_vl);
        r.writes_scalar = true;
        r.scalar_value = v;
        r.scalar_ready = done;
      } else if (v > p_.max_vl) {
        r.fault = "VL " + std::to_string(v) + " above the register length " + std::to_string(p_.max_vl);
        return r;
      }
      vl_ = v;
      vl_ready_ = done;
      vl_sig_.set(to_time(t), v);
      break;
    }
    case op::setvs:
      vs_ = ops.value;
      vl_ready_ = std::max(vl_ready_, done);
      break;
    case op::vmset:
    case op::vmnot:
      t = std::max(t, vm_ready_);
      done = t + p_.lat_control;
      for (unsigned i = 0; i < p_.max_vl; ++i) vm_[i] = in.code == op::vmset ? true : !vm_[i];
      vm_ready_ = done;
      vm_pop_sig_.set(to_time(done), static_cast<std::uint64_t>(std::count(vm_.begin(), vm_.begin() + vl_, true)));
      break;
    case op::vmpop: {
      t = std::max(t, vm_ready_);
      done = t + p_.lat_control;
      r.writes_scalar = true;
      r.scalar_value = static_cast<std::uint64_t>(std::count(vm_.begin(), vm_.begin() + vl_, true));
      r.scalar_ready = done;
      break;
    }
    default:
      r.fault = commit(in, ops, plan);
      if (!r.fault.empty()) return r;
      t = plan.t;
      done = 0;
      break;
  }
  if (!issued_any_) first_issue_ = t;
  last_issue_ = t;
  issued_any_ = true;
  r.issued = t;
  drain_ = std::max(drain_, done);
  // Element operations are counted when their groups start: none can start before the
  // issue cycle, nor before a group still to start in an earlier instruction.
  std::uint64_t horizon = t;
  for (const auto& f : flights_)
    if (!f->groups_done) horizon = std::min(horizon, f->first_group ? f->t : f->prev + 1);
  flush_ops(horizon);
  return r;
}

vec::dispatch_result vector_unit::drain() {
  for (issue_looks(); !flights_.empty() && fault_.empty(); issue_looks()) wait_progress();
  vec::dispatch_result r;
  r.issued = drain_;
  r.fault = fault_;
  r.fault_pc = fault_pc_;
  return r;
}

// The instruction issues at p.t: it takes its unit or port, the register writes it makes
// and the element list it runs over; its groups start in advance().
std::string vector_unit::commit(const vec::instr& in, const vec::scalar_operands& ops, const issue_plan& p) {
  auto fp = std::make_unique<flight>();
  flight& f = *fp;
  f.seq = next_seq_++;
  f.in = in;
  f.ops = ops;
  f.vs = vs_;
  f.vl = vl_;
  f.t = p.t;
  f.memory = vec::is_vector_memory(in.code);
  f.store = is_store(in.code);
  f.indexed = is_indexed(in.code);
  f.cmp = is_compare(in.code);
  f.vb = in.kind == vec::src2::vreg;
  const auto src = vector_sources(in);
  f.src_a = src[0];
  f.src_b = src[1];
  f.chain_a = p.chain_a;
  f.chain_b = p.chain_b;
  if (src[0] < 8) f.wa = rt_[src[0]].last;
  if (src[1] < 8) f.wb = rt_[src[1]].last;
  if (p.count_a) ++(p.chain_a ? chained_ : unchained_);
  if (p.count_b) ++(p.chain_b ? chained_ : unchained_);
  for (unsigned v : src)
    if (v < 8) f.reads |= 1u << v;
  std::deque<time_cell>* waiting;
  time_cell* free_at;
  if (f.memory) {
    f.port = p.port;
    waiting = &p.port->waiting;
    free_at = &p.port->free_at;
    port_stall_ += std::max(p.admitted, **free_at) - p.admit_from;
    if (!f.store) f.writes = 1u << in.rd;
  } else {
    const fu u = unit_of(in.code);
    f.us = &units_[static_cast<std::size_t>(u)];
    f.lat = latency_of(u);
    waiting = &f.us->waiting;
    free_at = &f.us->free_at;
    f.writes = f.cmp ? 1u << 8 : 1u << in.rd;
  }
  if (p_.queue_depth)
    while (!waiting->empty() && *waiting->front() != unknown && *waiting->front() <= p.admit_from)
      waiting->pop_front();
  f.elems = active_elements(in.masked);
  if (in.masked) f.mask = vm_;
  if (f.memory && !f.indexed) {  // misaligned elements fault before any element moves
    for (unsigned e : f.elems) {
      const std::uint64_t a = ops.base + static_cast<std::uint64_t>(static_cast<std::int64_t>(e) *
                                                                    static_cast<std::int64_t>(vs_) * 8);
      if ((!in.masked || vm_[e]) && a % 8 != 0)
        return "element " + std::to_string(e) + ": misaligned address " + hex(a);
    }
  }
  f.prev_free = *free_at;
  f.own_free = std::make_shared<std::uint64_t>(unknown);
  *free_at = f.own_free;
  if (p_.queue_depth) {
    f.first_start_cell = std::make_shared<std::uint64_t>(unknown);
    waiting->push_back(f.first_start_cell);
  }
  if (f.writes & 0xff) {
    f.dst = std::make_shared<write_times>(write_times{unknown, unknown});
    rt_[in.rd].last = f.dst;
  }
  if (f.cmp) ++compares_in_flight_;
  f.prev = f.first_done = f.last_done = f.t;
  f.first_start = *f.prev_free == unknown ? f.t : std::max(f.t, *f.prev_free);
  f.groups_done = f.elems.empty();
  flights_.push_back(std::move(fp));
  advance();
  return {};
}

}  // namespace flynn

#include "flynn/vector/vector_unit.h"

#include "flynn/common/format.h"

#include <algorithm>
#include <cstring>

namespace flynn {

using vec::op;

// ---------------------------------------------------------------------------- parameters

void vector_unit_params::visit(param_visitor& v) {
  param(v, {"max_vl", "elements", "vector register length (elements of 64 bits)"}, max_vl, 1, 4096);
  param(v, {"lanes", "", "lanes: element i runs on lane i mod lanes, one element per lane per cycle"},
        lanes, 1, 32);
  param_enum(v, {"chaining", "", "none, flexible (element-wise forwarding) or cray1 (chain slot)"},
             chaining,
             {{chaining_policy::none, "none"}, {chaining_policy::flexible, "flexible"},
              {chaining_policy::cray1, "cray1"}});
  param_enum(v, {"masking", "", "masked execution: simple (all elements, write-back suppressed) or density_time"},
             masking, {{mask_policy::simple, "simple"}, {mask_policy::density_time, "density_time"}});
  param(v, {"shared_ports", "", "memory ports for loads and stores"}, shared_ports, 0, 16);
  param(v, {"load_ports", "", "load-only memory ports"}, load_ports, 0, 16);
  param(v, {"store_ports", "", "store-only memory ports"}, store_ports, 0, 16);
  param(v, {"port_held_until_done", "",
            "a memory instruction holds its port until its last element is done (false: until its last element issued)"},
        port_held_until_done);
  param(v, {"queue_depth", "instructions",
            "instructions that may wait for a busy unit or port without blocking issue (0: issue waits, as the Cray-1)"},
        queue_depth, 0, 64);
  param(v, {"lat_add", "cycles", "integer add/subtract pipeline latency"}, lat_add, 1, 1000);
  param(v, {"lat_logic", "cycles", "logic pipeline latency"}, lat_logic, 1, 1000);
  param(v, {"lat_shift", "cycles", "shift pipeline latency"}, lat_shift, 1, 1000);
  param(v, {"lat_mul", "cycles", "integer multiply pipeline latency"}, lat_mul, 1, 1000);
  param(v, {"lat_div", "cycles", "divide/reciprocal pipeline latency"}, lat_div, 1, 1000);
  param(v, {"lat_fadd", "cycles", "floating-point add pipeline latency"}, lat_fadd, 1, 1000);
  param(v, {"lat_fmul", "cycles", "floating-point multiply pipeline latency"}, lat_fmul, 1, 1000);
  param(v, {"lat_cmp", "cycles", "compare (mask-setting) pipeline latency"}, lat_cmp, 1, 1000);
  param(v, {"lat_control", "cycles", "setvl, setvs and mask-register instructions"}, lat_control, 1, 1000);
  param(v, {"clock_ns", "ns", "clock period"}, clock_ns, 1e-3, 1e6);
}

std::vector<param_issue> vector_unit_params::check() const {
  std::vector<param_issue> r;
  if (ports() == 0)
    r.push_back({"shared_ports", "at least one memory port (shared, load or store)", "0"});
  if (shared_ports + load_ports == 0)
    r.push_back({"load_ports", "at least one port that can load", "0"});
  if (shared_ports + store_ports == 0)
    r.push_back({"store_ports", "at least one port that can store", "0"});
  if (lanes > max_vl)
    r.push_back({"lanes", "at most max_vl (" + std::to_string(max_vl) + ")", std::to_string(lanes)});
  return r;
}

// ---------------------------------------------------------------------------- ports

namespace {
struct bw_sink final : tlm::tlm_bw_transport_if<> {
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                     sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;  // the vector unit only uses b_transport
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};
}  // namespace

struct vector_unit::mem_port {
  enum kind_t { shared, load, store } kind;
  initiator_socket socket;
  bw_sink bw;
  std::uint64_t free_at = 0;  // held by a memory instruction until its last element is done
  std::deque<std::uint64_t> waiting;
  stat_counter elements, busy_cycles, instructions;
  trace_signal busy;
  mem_port(const char* n, kind_t k) : kind(k), socket(n) { socket.bind(bw); }
  trace_signal element;
  bool can(bool store_op) const { return kind == shared || (store_op ? kind == store : kind == load); }
};

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
  for (unsigned i = 0; i < p_.ports(); ++i) {
    const auto k = i < p_.shared_ports                   ? mem_port::shared
                   : i < p_.shared_ports + p_.load_ports ? mem_port::load
                                                         : mem_port::store;
    ports_.push_back(std::make_unique<mem_port>(("port" + std::to_string(i)).c_str(), k));
  }
  ops_hist_.resize(std::size_t(p_.lanes) * (std::size_t(fu::count_) + p_.ports()) + 1);
  reg_progress_.resize(8);

  static const char* unit_names[] = {"add", "logic", "shift", "mul", "div", "fadd", "fmul", "cmp"};
  stats_.add("instructions", instructions_, "instructions", "vector instructions dispatched (control included)");
  stats_.add("element_ops", element_ops_, "elements", "element operations (arithmetic, compare, memory)");
  stats_.add("memory_elements", mem_elements_, "elements", "elements loaded or stored");
  stats_.add("chained_operands", chained_, "operands", "vector source operands read element by element from an instruction still in flight");
  stats_.add("unchained_operands", unchained_, "operands", "vector source operands that waited for the whole producing instruction");
  stats_.add("masked_off_elements", masked_skipped_, "elements", "elements not written because their mask bit is 0");
  stats_.add("port_stall_cycles", port_stall_, "cycles", "cycles memory instructions waited for a port held by an earlier one");
  for (std::size_t u = 0; u < units_.size(); ++u) {
    stats_.add(std::string("fu_") + unit_names[u] + "_elements", units_[u].element_ops, "elements",
               std::string(unit_names[u]) + " unit: element operations");
    stats_.add(std::string("fu_") + unit_names[u] + "_busy_cycles", units_[u].busy_cycles, "cycles",
               std::string(unit_names[u]) + " unit: cycles an element group entered the pipeline");
  }
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    stats_.add("port" + std::to_string(i) + "_elements", ports_[i]->elements, "elements",
               "memory port " + std::to_string(i) + ": elements transferred");
    stats_.add("port" + std::to_string(i) + "_busy_cycles", ports_[i]->busy_cycles, "cycles",
               "memory port " + std::to_string(i) + ": cycles held by a memory instruction");
  }
  stats_.add("element_ops_per_cycle", ops_hist_, "cycles",
             "histogram: cycles (from the first vector element to the last) with k element operations starting, k = index");
  stats_.add_real(
      "peak_element_ops_per_cycle",
      [this] {
        for (std::size_t k = ops_hist_.size(); k-- > 0;)
          if (ops_hist_[k].value()) return double(k);
        return 0.0;
      },
      "elements/cycle", "most element operations started in one cycle");
  stats_.add_real(
      "issue_rate",
      [this] {
        return issued_any_ ? double(instructions_.value()) / double(last_issue_ - first_issue_ + 1) : 0.0;
      },
      "instructions/cycle", "vector instructions issued per cycle from the first issue to the last");
  stats_.add_real(
      "lane_utilisation",
      [this] {
        std::uint64_t busy = 0;
        for (const auto& u : units_) busy += u.busy_cycles.value();
        return busy ? double(element_ops_.value() - mem_elements_.value()) / double(busy * p_.lanes) : 0.0;
      },
      "", "arithmetic element operations / (lanes x unit busy cycles)");
}

vector_unit::~vector_unit() = default;

vector_unit::initiator_socket& vector_unit::port(unsigned i) { return ports_.at(i)->socket; }

// ---------------------------------------------------------------------------- helpers

vector_unit::fu vector_unit::unit_of(op o) const {
  switch (o) {
    case op::vadd: case op::vsub: return fu::add;
    case op::vand: case op::vor: case op::vxor: return fu::logic;
    case op::vshl: case op::vshr: case op::vsra: return fu::shift;
    case op::vmul: return fu::mul;
    case op::vdiv: return fu::div;
    case op::vfadd: case op::vfsub: return fu::fadd;
    case op::vfmul: return fu::fmul;
    default: return fu::cmp;
  }
}

unsigned vector_unit::latency_of(fu u) const {
  switch (u) {
    case fu::add: return p_.lat_add;
    case fu::logic: return p_.lat_logic;
    case fu::shift: return p_.lat_shift;
    case fu::mul: return p_.lat_mul;
    case fu::div: return p_.lat_div;
    case fu::fadd: return p_.lat_fadd;
    case fu::fmul: return p_.lat_fmul;
    default: return p_.lat_cmp;
  }
}

namespace {
}  // namespace

std::uint64_t vector_unit::alu(op o, std::uint64_t a, std::uint64_t b) const {
  const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
  switch (o) {
    case op::vadd: return a + b;
    case op::vsub: return a - b;
    case op::vmul: return a * b;
    case op::vdiv:
      if (sb == 0) return 0;
      if (sa == INT64_MIN && sb == -1) return a;
      return static_cast<std::uint64_t>(sa / sb);
    case op::vand: return a & b;
    case op::vor: return a | b;
    case op::vxor: return a ^ b;
    case op::vshl: return a << (b & 63);
    case op::vshr: return a >> (b & 63);
    case op::vsra: return static_cast<std::uint64_t>(sa >> (b & 63));
    case op::vfadd: return double_to_bits(bits_to_double(a) + bits_to_double(b));
    case op::vfsub: return double_to_bits(bits_to_double(a) - bits_to_double(b));
    case op::vfmul: return double_to_bits(bits_to_double(a) * bits_to_double(b));
    case op::vcmpeq: return a == b;
    case op::vcmpne: return a != b;
    case op::vcmplt: return sa < sb;
    case op::vcmpgt: return sa > sb;
    default: return 0;
  }
}

std::vector<unsigned> vector_unit::active_elements(bool masked) const {
  std::vector<unsigned> e;
  e.reserve(vl_);
  for (unsigned i = 0; i < vl_; ++i)
    if (!masked || p_.masking == mask_policy::simple || vm_[i]) e.push_back(i);
  return e;
}

// Whether consumer operand `v` is read element by element, possibly delaying issue `t`
// to the chain slot (cray1).
bool vector_unit::chains(unsigned v, std::uint64_t& t) const {
  const reg_timing& r = rt_[v];
  if (r.full <= t) return false;  // complete already: nothing to chain
  switch (p_.chaining) {
    case chaining_policy::none: return false;
    case chaining_policy::flexible: return true;
    case chaining_policy::cray1:
      if (t <= r.first) {  // hold issue until the first result arrives, then chain
        t = r.first;
        return true;
      }
      return false;  // missed the chain slot: wait for the whole vector
  }
  return false;
}

// Structural hazard at issue: without queues the instruction issues when its unit is free;
// with queue_depth N it issues unless N instructions already wait for the unit.
std::uint64_t vector_unit::admit(std::deque<std::uint64_t>& waiting, std::uint64_t t,
                                 std::uint64_t free_at) const {
  if (p_.queue_depth == 0) return std::max(t, free_at);
  while (!waiting.empty() && waiting.front() <= t) waiting.pop_front();
  if (waiting.size() >= p_.queue_depth) t = waiting[waiting.size() - p_.queue_depth];
  return t;
}

std::uint64_t vector_unit::operand_ready(unsigned v, unsigned i, bool chained) const {
  return chained ? rt_[v].ready[i] : std::max(rt_[v].full, rt_[v].ready[i]);
}

void vector_unit::count_ops(std::uint64_t cycle, unsigned n) {
  if (!ops_started_) {
    ops_started_ = true;
    ops_base_ = cycle;
  }
  ops_window_[std::max(cycle, ops_base_)] += n;  // elements start at or after their issue
}

// Folds the cycles before `before` into the histogram; cycles without an entry had none.
void vector_unit::flush_ops(std::uint64_t before) {
  while (!ops_window_.empty() && ops_window_.begin()->first < before) {
    const auto [cycle, n] = *ops_window_.begin();
    ops_hist_[0] += cycle - ops_base_;
    ++ops_hist_[std::min<std::size_t>(n, ops_hist_.size() - 1)];
    ops_base_ = cycle + 1;
    ops_window_.erase(ops_window_.begin());
  }
}

// ---------------------------------------------------------------------------- dispatch

vec::dispatch_result vector_unit::dispatch(const vec::instr& in, const vec::scalar_operands& ops,
                                           std::uint64_t earliest) {
  vec::dispatch_result r;
  std::uint64_t t = earliest;
  if (issued_any_) t = std::max(t, last_issue_ + 1);  // one instruction issued per cycle
  ++instructions_;
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
      vl_sig_.set(cycles(t), v);
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
      vm_pop_sig_.set(cycles(done), static_cast<std::uint64_t>(std::count(vm_.begin(), vm_.begin() + vl_, true)));
      break;
    case op::vmpop: {
      t = std::max(t, vm_ready_);
      done = t + p_.lat_control;
      r.writes_scalar = true;
      r.scalar_value = static_cast<std::uint64_t>(std::count(vm_.begin(), vm_.begin() + vl_, true));
      r.scalar_ready = done;
      break;
    }
    case op::vld: case op::vst: case op::vldx: case op::vstx: {
      t = std::max(t, vl_ready_);
      r.fault = exec_memory(in, ops, t, r);
      if (!r.fault.empty()) return r;
      t = r.issued;
      done = drain_;
      break;
    }
    default:
      t = std::max(t, vl_ready_);
      exec_arith(in, ops, t);
      t = last_issue_;
      done = drain_;
      break;
  }
  if (!issued_any_) first_issue_ = t;
  last_issue_ = t;
  issued_any_ = true;
  r.issued = t;
  drain_ = std::max(drain_, done);
  flush_ops(t);
  return r;
}

void vector_unit::exec_arith(const vec::instr& in, const vec::scalar_operands& ops, std::uint64_t t) {
  const bool cmp = in.code == op::vcmpeq || in.code == op::vcmpne || in.code == op::vcmplt ||
                   in.code == op::vcmpgt;
  const fu u = unit_of(in.code);
  unit_state& us = units_[static_cast<std::size_t>(u)];
  const unsigned lat = latency_of(u);
  t = admit(us.waiting, t, us.free_at);  // structural: one instruction at a time per unit
  if (in.masked) t = std::max(t, vm_ready_);
  const bool vb = in.kind == vec::src2::vreg;
  // Chaining decisions (cray1 may move issue to the chain slot; settle to a fixed point).
  bool chain_a = false, chain_b = false;
  for (int pass = 0; pass < 3; ++pass) {
    const std::uint64_t before = t;
    chain_a = chains(in.ra, t);
    if (vb) chain_b = chains(in.rb, t);
    if (t == before) break;
  }
  if (rt_[in.ra].full > t) ++(chain_a ? chained_ : unchained_);
  if (vb && rt_[in.rb].full > t) ++(chain_b ? chained_ : unchained_);

  const auto elems = active_elements(in.masked);
  const unsigned L = p_.lanes;
  std::uint64_t prev = t, last_done = t;
  bool first_group = true;
  std::uint64_t vm_done = 0;
  std::vector<bool> new_vm;
  if (cmp) new_vm = vm_;
  reg_timing* dst = cmp ? nullptr : &rt_[in.rd];
  std::uint64_t first_done = 0;
  for (std::size_t g = 0; g < elems.size(); g += L) {
    std::uint64_t s = first_group ? std::max(t, us.free_at) : prev + 1;
    const std::size_t end = std::min(elems.size(), g + L);
    for (std::size_t k = g; k < end; ++k) {
      const unsigned e = elems[k];
      s = std::max(s, operand_ready(in.ra, e, chain_a));
      if (vb) s = std::max(s, operand_ready(in.rb, e, chain_b));
      if (dst) {
        s = std::max(s, dst->read_until[e]);
        if (dst->ready[e] + 1 > s + lat) s = dst->ready[e] + 1 - lat;  // write after write
      }
    }
    const std::uint64_t d = s + lat;
    unsigned useful = 0;
    for (std::size_t k = g; k < end; ++k) {
      const unsigned e = elems[k];
      const std::uint64_t b = vb ? vr_[in.rb][e] : in.kind == vec::src2::reg ? ops.value
                                                                               : static_cast<std::uint64_t>(in.imm);
      const std::uint64_t val = alu(in.code, vr_[in.ra][e], b);
      rt_[in.ra].read_until[e] = std::max(rt_[in.ra].read_until[e], s);
      if (vb) rt_[in.rb].read_until[e] = std::max(rt_[in.rb].read_until[e], s);
      if (in.masked && !vm_[e]) {  // simple masking: computed, write-back suppressed
        ++masked_skipped_;
        continue;
      }
      ++useful;
      if (cmp) {
        new_vm[e] = val != 0;
      } else {
        vr_[in.rd][e] = val;
        dst->ready[e] = d;
      }
    }
    if (first_group) {
      first_done = d;
      if (p_.queue_depth) us.waiting.push_back(s);
    }
    if (!cmp) reg_progress_[in.rd].set(cycles(d), end);
    count_ops(s, useful);
    element_ops_ += useful;
    us.element_ops += useful;
    ++us.busy_cycles;
    us.element.set(cycles(s), elems[g]);
    if (first_group) us.busy.set(cycles(s), 1);
    prev = s;
    last_done = d;
    vm_done = d;
    first_group = false;
  }
  if (!first_group) us.busy.set(cycles(prev + 1), 0);
  us.free_at = first_group ? t : prev + 1;
  ++us.instructions;
  if (cmp) {
    vm_ = new_vm;
    vm_ready_ = std::max(vm_ready_, vm_done);
    vm_pop_sig_.set(cycles(vm_ready_), static_cast<std::uint64_t>(std::count(vm_.begin(), vm_.begin() + vl_, true)));
  } else {
    dst->first = first_group ? t : first_done;
    dst->full = last_done;
  }
  last_issue_ = t;
  drain_ = std::max(drain_, last_done);
}

// Vector loads/stores: one element group per cycle from the address generator, each group
// one TLM request (a multi-lane request with several lanes); the port is held until the
// last element is done.
std::string vector_unit::exec_memory(const vec::instr& in, const vec::scalar_operands& ops,
                                     std::uint64_t t, vec::dispatch_result& r) {
  const bool store = in.code == op::vst || in.code == op::vstx;
  const bool indexed = in.code == op::vldx || in.code == op::vstx;
  const unsigned data_reg = store ? in.rb : in.rd;
  const unsigned index_reg = in.code == op::vldx ? in.rb : in.rd;
  // Structural: the compatible port that frees up first.
  mem_port* port = nullptr;
  for (auto& p : ports_)
    if (p->can(store) && (!port || p->free_at < port->free_at)) port = p.get();
  const std::uint64_t want = t;
  t = admit(port->waiting, t, port->free_at);
  port_stall_ += std::max(t, port->free_at) - want;
  if (in.masked) t = std::max(t, vm_ready_);
  bool chain_data = false, chain_index = false;
  for (int pass = 0; pass < 3; ++pass) {
    const std::uint64_t before = t;
    if (store) chain_data = chains(data_reg, t);
    if (indexed) chain_index = chains(index_reg, t);
    if (t == before) break;
  }
  if (store && rt_[data_reg].full > t) ++(chain_data ? chained_ : unchained_);
  if (indexed && rt_[index_reg].full > t) ++(chain_index ? chained_ : unchained_);

  const auto elems = active_elements(in.masked);
  const unsigned L = p_.lanes;
  reg_timing& dr = rt_[data_reg];
  auto address_of = [&](unsigned e) {
    return indexed ? ops.base + vr_[index_reg][e] * 8
                   : ops.base + static_cast<std::uint64_t>(static_cast<std::int64_t>(e) * static_cast<std::int64_t>(vs_) * 8);
  };
  for (unsigned e : elems)  // misaligned elements fault before any element moves
    if ((!in.masked || vm_[e]) && address_of(e) % 8 != 0)
      return "element " + std::to_string(e) + ": misaligned address " + hex(address_of(e));
  std::uint64_t prev = t, last_done = t, first_done = t, first_start = std::max(t, port->free_at);
  bool first_group = true;
  std::vector<unsigned char> buf(std::size_t(L) * 8);
  lanes_extension ext;
  tlm::tlm_generic_payload gp;
  for (std::size_t g = 0; g < elems.size(); g += L) {
    const std::size_t end = std::min(elems.size(), g + L);
    std::uint64_t s = first_group ? std::max(t, port->free_at) : prev + 1;
    unsigned n = 0;
    ext.active_mask = 0;
    for (std::size_t k = g; k < end; ++k) {
      const unsigned e = elems[k];
      if (indexed) {
        s = std::max(s, operand_ready(index_reg, e, chain_index));
        rt_[index_reg].read_until[e] = std::max(rt_[index_reg].read_until[e], s);
      }
      if (store) {
        s = std::max(s, operand_ready(data_reg, e, chain_data));
      } else {
        s = std::max(s, dr.read_until[e]);
      }
    }
    for (std::size_t k = g; k < end; ++k) {
      const unsigned e = elems[k];
      const unsigned lane = static_cast<unsigned>(k - g);
      if (in.masked && !vm_[e]) continue;  // simple masking: the slot passes unused
      const std::uint64_t addr = address_of(e);
      ext.address[lane] = addr;
      ext.active_mask |= 1u << lane;
      if (store) {
        std::memcpy(&buf[lane * 8], &vr_[data_reg][e], 8);
        dr.read_until[e] = std::max(dr.read_until[e], s);
      }
      ++n;
    }
    std::uint64_t d = s;
    if (n > 0) {
      gp.set_command(store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      gp.set_data_ptr(buf.data());
      gp.set_byte_enable_ptr(nullptr);
      gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      unsigned first_lane = 0;
      while (!((ext.active_mask >> first_lane) & 1)) ++first_lane;
      if (L == 1) {
        gp.set_address(ext.address[first_lane]);
        gp.set_data_length(8);
        gp.set_streaming_width(8);
      } else {
        ext.lanes = static_cast<unsigned>(end - g);
        ext.lane_bytes = 8;
        gp.set_address(ext.address[first_lane]);
        gp.set_data_length(ext.lanes * 8);
        gp.set_streaming_width(ext.lanes * 8);
        gp.set_extension(&ext);
      }
      sc_core::sc_time delay = cycles(s) - sc_core::sc_time_stamp();
      ext.acknowledged = false;
      tracked_b_transport(port->socket, gp, delay);
      gp.clear_extension(&ext);
      if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
        return "element group " + std::to_string(elems[g]) + ".." + std::to_string(elems[end - 1]) +
               " (first active at address " + hex(gp.get_address()) + "): " + gp.get_response_string();
      }
      if (L > 1 && !ext.acknowledged)
        return "element group " + std::to_string(elems[g]) + ".." + std::to_string(elems[end - 1]) +
               ": the memory ignored the lanes extension (a multi-lane vector unit needs a lanes-aware memory such as "
               "banked_memory)";
      d = to_cycles_ceil(sc_core::sc_time_stamp() + delay);
    }
    for (std::size_t k = g; k < end; ++k) {
      const unsigned e = elems[k];
      if (in.masked && !vm_[e]) {
        ++masked_skipped_;
        continue;
      }
      if (!store) {
        std::memcpy(&vr_[data_reg][e], &buf[(k - g) * 8], 8);
        dr.ready[e] = std::max(d, dr.ready[e] + 1);  // writes to an element land in order
      }
    }
    if (first_group) {
      first_done = d;
      first_start = s;
      if (p_.queue_depth) port->waiting.push_back(s);
    }
    if (!store) reg_progress_[data_reg].set(cycles(d), end);
    count_ops(s, n);
    port->element.set(cycles(s), elems[g]);
    element_ops_ += n;
    mem_elements_ += n;
    port->elements += n;
    prev = s;
    last_done = std::max(last_done, d);
    first_group = false;
  }
  if (!store) {
    dr.first = first_done;
    dr.full = last_done;
  }
  const std::uint64_t release =
      p_.port_held_until_done ? std::max(last_done, first_start) : (first_group ? first_start : prev + 1);
  port->busy.set(cycles(first_start), 1);
  port->busy.set(cycles(release), 0);
  port->busy_cycles += release - first_start;
  ++port->instructions;
  port->free_at = release;
  r.issued = t;
  drain_ = std::max(drain_, last_done);
  return {};
}

// ---------------------------------------------------------------------------- tracing

void vector_unit::attach_trace(trace_sink& sink) {
  static const char* unit_names[] = {"add", "logic", "shift", "mul", "div", "fadd", "fmul", "cmp"};
  for (std::size_t u = 0; u < units_.size(); ++u) {
    units_[u].busy.attach(&sink, name(), std::string("fu_") + unit_names[u] + "_busy", 1);
    units_[u].element.attach(&sink, name(), std::string("fu_") + unit_names[u] + "_element", 16);
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

#include "flynn/vector/scalar_unit.h"

#include "flynn/common/bits.h"
#include "flynn/common/format.h"

#include <algorithm>
#include <stdexcept>
#include <cstring>

namespace flynn {

using vec::op;

scalar_unit::scalar_unit(const sc_core::sc_module_name& name, const params& p)
    : lt_initiator(name, p.clock_ns), mem("mem"), vpu("vpu"), p_(p) {
  mem.bind(*this);
  SC_HAS_PROCESS(scalar_unit);
  SC_THREAD(run);
}

void scalar_unit::load(const vec::program& prog) {
  prog_ = prog;
  loaded_ = true;
}

void scalar_unit::load_program(const core_program& p) {
  const auto* v = dynamic_cast<const vector_program*>(&p);
  if (!v) throw std::invalid_argument(std::string("a ") + p.kind() + " program (" + name() + " runs vector programs)");
  load(v->prog);
}

core_limits scalar_unit::limits() const {
  core_limits l;
  l.max_instructions = p_.max_instructions;
  l.max_vl = vpu.size() ? vpu->max_vl() : 64;
  return l;
}

std::string scalar_unit::pending_work() const {
  if (done_ || !loaded_) return {};
  return "program not finished at PC " + std::to_string(pc_now_) + " (" +
         (pc_now_ < prog_.code.size() ? prog_.code[pc_now_].text : std::string("end")) + ")";
}

unsigned scalar_unit::latency(op o) const {
  switch (o) {
    case op::add: case op::sub: return p_.lat_add;
    case op::and_: case op::or_: case op::xor_: case op::slt: case op::seq:
    case op::pcmpeq: case op::pcmpgt: case op::pand: case op::pandn: case op::por:
      return p_.lat_logic;
    case op::shl: case op::shr: case op::sra: return p_.lat_shift;
    case op::mul: case op::pmaddwd: return p_.lat_mul;
    case op::fadd: case op::fsub: return p_.lat_fadd;
    case op::fmul: return p_.lat_fmul;
    case op::dbnz: case op::beqz: case op::bnez: case op::br: return p_.lat_branch;
    case op::padd: case op::psub: return p_.lat_packed;
    default: return p_.lat_other;
  }
}

namespace {

// Packed SIMD on a 64-bit register: element-wise over `w`-bit fields.
template <class F>
std::uint64_t packed(std::uint64_t a, std::uint64_t b, unsigned w, F f) {
  const std::uint64_t mask = w == 64 ? ~0ull : ((1ull << w) - 1);
  std::uint64_t r = 0;
  for (unsigned s = 0; s < 64; s += w) r |= (f((a >> s) & mask, (b >> s) & mask, w) & mask) << s;
  return r;
}
std::int64_t sext(std::uint64_t x, unsigned w) {
  const unsigned sh = 64 - w;
  return static_cast<std::int64_t>(x << sh) >> sh;
}
}  // namespace

std::uint64_t scalar_unit::exec_alu(const vec::instr& in, std::uint64_t t) {
  const std::uint64_t a = r_[in.ra];
  const std::uint64_t b = in.kind == vec::src2::imm ? static_cast<std::uint64_t>(in.imm) : r_[in.rb];
  const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
  std::uint64_t v = 0;
  switch (in.code) {
    case op::li: v = static_cast<std::uint64_t>(in.imm); break;
    case op::mov: v = a; break;
    case op::add: v = a + b; break;
    case op::sub: v = a - b; break;
    case op::mul: v = a * b; break;
    case op::and_: v = a & b; break;
    case op::or_: v = a | b; break;
    case op::xor_: v = a ^ b; break;
    case op::shl: v = a << (b & 63); break;
    case op::shr: v = a >> (b & 63); break;
    case op::sra: v = static_cast<std::uint64_t>(sa >> (b & 63)); break;
    case op::fadd: v = double_to_bits(bits_to_double(a) + bits_to_double(b)); break;
    case op::fsub: v = double_to_bits(bits_to_double(a) - bits_to_double(b)); break;
    case op::fmul: v = double_to_bits(bits_to_double(a) * bits_to_double(b)); break;
    case op::slt: v = sa < sb; break;
    case op::seq: v = a == b; break;
    case op::padd: v = packed(a, b, in.width, [](std::uint64_t x, std::uint64_t y, unsigned) { return x + y; }); break;
    case op::psub: v = packed(a, b, in.width, [](std::uint64_t x, std::uint64_t y, unsigned) { return x - y; }); break;
    case op::pcmpeq: v = packed(a, b, in.width, [](std::uint64_t x, std::uint64_t y, unsigned) { return x == y ? ~0ull : 0ull; }); break;
    case op::pcmpgt: v = packed(a, b, in.width, [](std::uint64_t x, std::uint64_t y, unsigned w) { return sext(x, w) > sext(y, w) ? ~0ull : 0ull; }); break;
    case op::pand: v = a & b; break;
    case op::pandn: v = ~a & b; break;
    case op::por: v = a | b; break;
    case op::pmaddwd:
      for (unsigned j = 0; j < 2; ++j) {
        std::int64_t s = 0;
        for (unsigned k = 0; k < 2; ++k) {
          const unsigned sh = 32 * j + 16 * k;
          s += sext((a >> sh) & 0xffff, 16) * sext((b >> sh) & 0xffff, 16);
        }
        v |= (static_cast<std::uint64_t>(s) & 0xffffffffull) << (32 * j);
      }
      break;
    default: break;
  }
  r_[in.rd] = v;
  return t + latency(in.code);
}

std::uint64_t scalar_unit::exec_memory(const vec::instr& in, std::uint64_t t, bool& ok) {
  const std::uint64_t addr = (in.ra == vec::no_reg ? 0 : r_[in.ra]) + static_cast<std::uint64_t>(in.post_inc ? 0 : in.imm);
  std::uint64_t data = in.code == op::st ? r_[in.rb] : 0;
  ok = true;
  if (addr % 8 != 0) {
    stop_with_fault(in, pc_now_, "misaligned address " + hex(addr));
    ok = false;
    return t;
  }
  // The access is made at its cycle: the memory grants it with every other initiator's in
  // time order, and a load reads the memory as it is then.
  wait_until(t);
  const transport_result r = transport(mem, in.code == op::st ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr,
                                       reinterpret_cast<unsigned char*>(&data), sizeof data, t);
  if (!r.ok()) {
    stop_with_fault(in, pc_now_, "address " + hex(addr) + ": " + r.response_string());
    ok = false;
    return t;
  }
  if (in.code == op::ld) r_[in.rd] = data;
  if (in.post_inc) r_[in.ra] += 8;
  return r.done;
}

std::uint64_t scalar_unit::to_vpu(std::uint64_t c) const { return to_cycles_ceil(to_time(c), vpu->clock()); }
std::uint64_t scalar_unit::from_vpu(std::uint64_t c) const { return to_cycles_ceil(to_time(c, vpu->clock())); }

void scalar_unit::stop_with_fault(const vec::instr& in, std::uint32_t pc, const std::string& what) {
  if (fault_.empty())
    fault_ = "PC " + std::to_string(pc) + " (line " + std::to_string(in.line) + ": " + in.text + "): " + what;
}

// Executes the instruction at pc; returns false when the program ends or faults.
bool scalar_unit::step(std::uint64_t& pc) {
  if (pc >= prog_.code.size()) return false;
  const vec::instr& in = prog_.code[pc];
  pc_now_ = static_cast<std::uint32_t>(pc);
  if (instructions_.value() >= p_.max_instructions) {
    stop_with_fault(in, pc_now_, "runaway program: more than " + std::to_string(p_.max_instructions) + " instructions");
    return false;
  }
  ++instructions_;
  std::uint64_t next = pc + 1;
  if (vec::is_vector(in.code)) {
    ++vector_instr_;
    vec::scalar_operands ops;
    ops.base = (in.ra == vec::no_reg ? 0 : r_[in.ra]) + static_cast<std::uint64_t>(in.imm);
    if (in.code == op::setvl || in.code == op::setvs)
      ops.value = in.kind == vec::src2::imm ? static_cast<std::uint64_t>(in.imm) : r_[in.ra];
    else if (in.kind == vec::src2::reg)
      ops.value = r_[in.rb];
    ops.pc = pc_now_;
    const std::uint64_t earliest = std::max(issue_slot_, scalar_done_);
    const vec::dispatch_result res = vpu->dispatch(in, ops, to_vpu(earliest));
    if (!res.fault.empty()) {
      const auto at = res.fault_pc >= 0 ? static_cast<std::uint32_t>(res.fault_pc) : pc_now_;
      stop_with_fault(prog_.code[at], at, res.fault);
      return false;
    }
    const std::uint64_t issued = from_vpu(res.issued);
    issue_slot_ = issued + 1;
    if (debugging(debug_exec))
      debug(debug_exec, issued,
            "pc " + std::to_string(pc) + " (line " + std::to_string(in.line) + ") " + in.text + ": to the vector unit");
    if (res.writes_scalar) {
      r_[in.rd] = res.scalar_value;
      ready_[in.rd] = from_vpu(res.scalar_ready);
      scalar_done_ = std::max(scalar_done_, ready_[in.rd]);
    }
    issue_sig_.set(to_time(issued), pc);
    prev_mem_ = false;
  } else {
    ++scalar_instr_;
    std::uint64_t t = issue_slot_;
    // Sources written by the vector unit (vmpop, setvl rd) become ready late.
    for (std::uint8_t s : {in.ra, in.rb})
      if (s < 16) t = std::max(t, ready_[s]);
    const bool is_mem = vec::is_scalar_memory(in.code);
    const bool depends = prev_load_dst_ >= 0 &&
                         (in.ra == prev_load_dst_ || (in.code == op::st && in.rb == prev_load_dst_));
    if (is_mem && prev_mem_ && !depends) {
      t = std::max(t, prev_mem_issue_ + 1);  // the memory system pipelines
      ++overlapped_mem_;
    } else {
      t = std::max(t, scalar_done_);  // one instruction at a time
    }
    std::uint64_t done;
    if (is_mem) {
      ++mem_instr_;
      bool ok = true;
      done = exec_memory(in, t, ok);
      if (!ok) return false;
      prev_mem_issue_ = t;
      prev_load_dst_ = in.code == op::ld ? in.rd : -1;
    } else if (vec::is_branch(in.code)) {
      bool taken = true;
      if (in.code == op::dbnz) taken = --r_[in.ra] != 0;
      else if (in.code == op::beqz) taken = r_[in.ra] == 0;
      else if (in.code == op::bnez) taken = r_[in.ra] != 0;
      if (taken) {
        next = in.target;
        ++branches_taken_;
      }
      done = t + latency(in.code);
    } else if (in.code == op::halt) {
      done = t + latency(in.code);
      next = prog_.code.size();
    } else {
      done = exec_alu(in, t);
    }
    if (debugging(debug_exec))
      debug(debug_exec, t,
            "pc " + std::to_string(pc) + " (line " + std::to_string(in.line) + ") " + in.text + ": done at cycle " +
                std::to_string(done));
    prev_mem_ = is_mem;
    if (!is_mem) prev_load_dst_ = -1;
    if (in.code == op::ld) ready_[in.rd] = done;  // a later overlapped access waits for it
    issue_sig_.set(to_time(t), pc);
    scalar_done_ = std::max(scalar_done_, done);
    issue_slot_ = t + 1;
  }
  pc = next;
  return true;
}

void scalar_unit::run() {
  if (!loaded_) return;
  std::uint64_t pc = 0;
  while (step(pc)) {
    // Temporal decoupling: synchronise once the local time runs a quantum ahead.
    const sc_core::sc_time local = to_time(issue_slot_);
    if (local > flynn::sim_now() + to_time(p_.quantum)) wait(local - flynn::sim_now());
  }
  if (!fault_.empty()) {
    wait_until(issue_slot_);
    fault(fault_);
    return;
  }
  const vec::dispatch_result drained = vpu->drain();
  if (!drained.fault.empty()) {
    const auto at = static_cast<std::uint32_t>(drained.fault_pc);
    stop_with_fault(prog_.code[at], at, drained.fault);
    fault(fault_);
    return;
  }
  const std::uint64_t end = std::max(scalar_done_, from_vpu(drained.issued));
  wait_until(end);
  done_ = true;
}

void scalar_unit::attach_trace(trace_sink& sink) {
  issue_sig_.attach(&sink, name(), "issue_pc", 16);
}

}  // namespace flynn

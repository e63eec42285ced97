// Instruction classification and mnemonics of the SIMT kernel ISA (see isa.h).
#include "flynn/simt/isa.h"

#include <algorithm>

namespace flynn::simt {

void reg_set::add(unsigned first, unsigned count) {
  if (count == 0 || num_runs == runs.size()) return;
  runs[num_runs++] = {static_cast<std::uint16_t>(first), static_cast<std::uint16_t>(count)};
}

bool reg_set::has(unsigned r) const {
  for (unsigned i = 0; i < num_runs; ++i)
    if (r >= runs[i].first && r < unsigned(runs[i].first) + runs[i].count) return true;
  return false;
}

int reg_set::highest() const {
  int h = -1;
  for (unsigned i = 0; i < num_runs; ++i) h = std::max(h, int(runs[i].first) + int(runs[i].count) - 1);
  return h;
}

reg_set reads(const instr& in, unsigned tma_rank) {
  reg_set s;
  if (in.guard != no_pred) s.add_pred(in.guard);
  auto source_b = [&] {  // rb, unless the second source is an immediate
    if (!in.b_imm) s.add(in.rb);
  };
  switch (in.code) {
    case op::mov:
      if (in.sreg == special::none && !in.b_imm) s.add(in.ra);
      break;
    case op::ldparam:
      break;
    case op::mov64:
      if (!in.b_imm) s.add(in.ra, 2);
      break;
    case op::add64:
      s.add(in.ra, 2);
      if (!in.b_imm) s.add(in.rb, 2);
      break;
    case op::cvt64:
      s.add(in.ra);
      break;
    case op::plogic:
      s.add_pred(in.ra);
      if (in.imm != 3) s.add_pred(in.rb);
      break;
    case op::bra: case op::bar: case op::exit: case op::nop:
    case op::tma_wait: case op::wgmma_commit: case op::wgmma_wait:
      break;
    case op::not_: case op::fsqrt: case op::cvt_f_s: case op::cvt_s_f:
      s.add(in.ra);
      break;
    case op::mad: case op::ffma:
      s.add(in.ra);
      source_b();
      s.add(in.rc);
      break;
    case op::selp:
      if (!in.a_imm) s.add(in.ra);
      source_b();
      s.add_pred(in.rc);
      break;
    case op::ld:
      if (!in.abs_addr) s.add(in.ra, in.addr64 ? 2 : 1);
      break;
    case op::atom:
      if (!in.abs_addr) s.add(in.ra, in.addr64 ? 2 : 1);
      source_b();  // (an immediate operand is imm_b: imm is the address offset)
      break;
    case op::shfl:
      s.add(in.ra);
      source_b();
      if (!in.c_imm) s.add(in.rc);
      if (!in.e_imm) s.add(in.re);
      break;
    case op::st:
      if (!in.abs_addr) s.add(in.ra, in.addr64 ? 2 : 1);
      s.add(in.rb, data_registers(in));
      break;
    case op::mbar_init: case op::mbar_arrive_tx: case op::mbar_wait:
      s.add(in.ra);
      source_b();
      break;
    case op::mbar_arrive:
      s.add(in.ra);
      break;
    case op::tma_load:  // destination address, barrier address, coordinates
    case op::tma_store:
      s.add(in.ra);
      if (in.code == op::tma_load) s.add(in.rb);
      if (!in.coords_listed) s.add(in.rc, tma_rank);
      else
        for (unsigned k = 0; k < tma_rank && k < max_tma_rank; ++k) s.add(in.coords[k]);
      break;
    case op::wgmma:  // descriptors (or the A fragment) at issue; D when it may accumulate
      if (in.mma_scale_pred || in.imm != 0) s.add(in.rd, in.mma_n / 2u);
      s.add(in.ra, in.mma_a_regs ? 4 : 2);
      s.add(in.rb, 2);
      if (in.mma_scale_pred) s.add_pred(in.rc);
      break;
    case op::logic64:
      s.add(in.ra, 2);
      if (!in.b_imm) s.add(in.rb, 2);
      break;
    case op::elect:
      if (!in.e_imm) s.add(in.re);
      break;
    case op::mma_sync:  // A, B and C fragments
      s.add(in.ra, 4);
      s.add(in.rb, 2);
      s.add(in.rc, 4);
      break;
    case op::count_:
      break;
    default:  // two-source integer and floating-point operations, setp
      s.add(in.ra);
      source_b();
      break;
  }
  return s;
}

reg_set writes(const instr& in) {
  reg_set s;
  switch (in.code) {
    case op::setp: case op::plogic: s.add_pred(in.rd); break;
    case op::ld: s.add(in.rd, data_registers(in)); break;
    case op::atom: s.add(in.rd); break;
    case op::shfl:
      s.add(in.rd);
      if (in.pd != no_pred) s.add_pred(in.pd);
      break;
    case op::ldparam: s.add(in.rd, in.width == 8 ? 2 : 1); break;
    case op::mov64: case op::add64: case op::cvt64: case op::logic64: s.add(in.rd, 2); break;
    case op::elect:
      if (in.sub == 1) s.add(in.rd);
      if (in.pd != no_pred) s.add_pred(in.pd);
      break;
    case op::mbar_wait:
      if (in.pd != no_pred) s.add_pred(in.pd);
      break;
    case op::mul_wide: s.add(in.rd, in.ty == type::s32 || in.ty == type::u32 ? 2 : 1); break;
    case op::wgmma: s.add(in.rd, in.mma_n / 2u); break;
    case op::mma_sync: s.add(in.rd, 4); break;
    case op::st: case op::bra: case op::bar: case op::exit: case op::nop: case op::mbar_init: case op::mbar_arrive:
    case op::mbar_arrive_tx: case op::tma_load: case op::tma_store: case op::tma_wait:
    case op::wgmma_commit: case op::wgmma_wait: case op::count_:
      break;
    default: s.add(in.rd); break;  // moves, ldparam, arithmetic, selp
  }
  return s;
}

int highest_register(const instr& in) { return std::max(reads(in).highest(), writes(in).highest()); }

bool is_sfu(op o) { return o == op::fdiv || o == op::fsqrt; }

const char* mnemonic(op o) {
  switch (o) {
    case op::mov: return "mov";
    case op::ldparam: return "ldparam";
    case op::add: return "add";
    case op::sub: return "sub";
    case op::mul: return "mul";
    case op::mulhi: return "mulhi";
    case op::mad: return "mad";
    case op::div: return "div";
    case op::rem: return "rem";
    case op::and_: return "and";
    case op::or_: return "or";
    case op::xor_: return "xor";
    case op::not_: return "not";
    case op::shl: return "shl";
    case op::shr: return "shr";
    case op::sra: return "sra";
    case op::min: return "min";
    case op::max: return "max";
    case op::fadd: return "fadd";
    case op::fsub: return "fsub";
    case op::fmul: return "fmul";
    case op::ffma: return "ffma";
    case op::fmin: return "fmin";
    case op::fmax: return "fmax";
    case op::fdiv: return "fdiv";
    case op::fsqrt: return "fsqrt";
    case op::cvt_f_s: return "cvt.f.s";
    case op::cvt_s_f: return "cvt.s.f";
    case op::setp: return "setp";
    case op::selp: return "selp";
    case op::ld: return "ld";
    case op::st: return "st";
    case op::bra: return "bra";
    case op::bar: return "bar.sync";
    case op::mbar_init: return "mbarrier.init";
    case op::mbar_arrive: return "mbarrier.arrive";
    case op::mbar_arrive_tx: return "mbarrier.arrive.expect_tx";
    case op::mbar_wait: return "mbarrier.wait";
    case op::tma_load: return "tma.load";
    case op::tma_store: return "tma.store";
    case op::tma_wait: return "tma.wait";
    case op::wgmma: return "wgmma";
    case op::wgmma_commit: return "wgmma.commit_group";
    case op::wgmma_wait: return "wgmma.wait_group";
    case op::exit: return "exit";
    case op::nop: return "nop";
    case op::mov64: return "mov64";
    case op::add64: return "add64";
    case op::mul_wide: return "mul.wide";
    case op::cvt64: return "cvt64";
    case op::plogic: return "plogic";
    case op::atom: return "atom";
    case op::shfl: return "shfl";
    case op::logic64: return "logic64";
    case op::elect: return "elect.sync";
    case op::mma_sync: return "mma.sync";
    case op::count_: break;
  }
  return "?";
}

}  // namespace flynn::simt

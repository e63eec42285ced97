// Instruction classification and mnemonics of the SIMT kernel ISA (see isa.h).
#include "flynn/simt/isa.h"

#include <algorithm>

namespace flynn::simt {

bool is_memory(op o) { return o == op::ld || o == op::st; }

bool is_async(op o) { return o >= op::mbar_init && o <= op::wgmma_wait; }

int highest_register(const instr& in) {
  switch (in.code) {
    case op::setp: return in.ra;  // rd is a predicate; rb may be an immediate
    case op::bra: case op::bar: case op::exit: case op::nop: case op::wgmma_commit: case op::wgmma_wait: return -1;
    case op::ld: return in.rd + in.width / 4 - 1 > in.ra ? in.rd + in.width / 4 - 1 : in.ra;
    case op::st: return std::max<int>(in.ra, in.rb + in.width / 4 - 1);
    case op::mbar_init: case op::mbar_arrive_tx: case op::mbar_wait: return in.b_imm ? in.ra : std::max(in.ra, in.rb);
    case op::mbar_arrive: return in.ra;
    case op::tma_load: return std::max<int>({in.ra, in.rb, in.rc + 4});
    case op::tma_store: return std::max<int>(in.ra, in.rc + 4);
    case op::tma_wait: return -1;
    case op::wgmma:
      return std::max<int>({in.rd + in.mma_n / 2 - 1, in.ra + (in.mma_a_regs ? 3 : 1), in.rb + 1});
    case op::selp: return std::max({in.rd, in.ra, in.b_imm ? in.ra : in.rb});
    default: return std::max({in.rd, in.ra, in.b_imm ? in.ra : in.rb, in.rc});
  }
}

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
    case op::count_: break;
  }
  return "?";
}

}  // namespace flynn::simt

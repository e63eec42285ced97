// Instruction classification and mnemonics of the SIMT kernel ISA (see isa.h).
#include "flynn/simt/isa.h"

namespace flynn::simt {

bool is_memory(op o) { return o == op::ld || o == op::st; }

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
    case op::exit: return "exit";
    case op::nop: return "nop";
    case op::count_: break;
  }
  return "?";
}

}  // namespace flynn::simt

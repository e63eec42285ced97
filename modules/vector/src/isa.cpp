// Instruction classification and mnemonics of the vector machine ISA (see isa.h).
#include "flynn/vector/isa.h"

namespace flynn::vec {

bool is_vector(op o) {
  switch (o) {
    case op::setvl: case op::setvs: case op::vmset: case op::vmnot: case op::vmpop:
    case op::vld: case op::vst: case op::vldx: case op::vstx:
    case op::vadd: case op::vsub: case op::vmul: case op::vdiv:
    case op::vand: case op::vor: case op::vxor:
    case op::vshl: case op::vshr: case op::vsra:
    case op::vfadd: case op::vfsub: case op::vfmul:
    case op::vcmpeq: case op::vcmpne: case op::vcmplt: case op::vcmpgt:
      return true;
    default:
      return false;
  }
}

bool is_vector_memory(op o) {
  return o == op::vld || o == op::vst || o == op::vldx || o == op::vstx;
}

bool is_scalar_memory(op o) { return o == op::ld || o == op::st; }

bool is_branch(op o) {
  return o == op::dbnz || o == op::beqz || o == op::bnez || o == op::br;
}

const char* mnemonic(op o) {
  switch (o) {
    case op::li: return "li";
    case op::mov: return "mov";
    case op::add: return "add";
    case op::sub: return "sub";
    case op::mul: return "mul";
    case op::and_: return "and";
    case op::or_: return "or";
    case op::xor_: return "xor";
    case op::shl: return "shl";
    case op::shr: return "shr";
    case op::sra: return "sra";
    case op::fadd: return "fadd";
    case op::fsub: return "fsub";
    case op::fmul: return "fmul";
    case op::slt: return "slt";
    case op::seq: return "seq";
    case op::ld: return "ld";
    case op::st: return "st";
    case op::dbnz: return "dbnz";
    case op::beqz: return "beqz";
    case op::bnez: return "bnez";
    case op::br: return "br";
    case op::halt: return "halt";
    case op::setvl: return "setvl";
    case op::setvs: return "setvs";
    case op::vmset: return "vmset";
    case op::vmnot: return "vmnot";
    case op::vmpop: return "vmpop";
    case op::vld: return "vld";
    case op::vst: return "vst";
    case op::vldx: return "vldx";
    case op::vstx: return "vstx";
    case op::vadd: return "vadd";
    case op::vsub: return "vsub";
    case op::vmul: return "vmul";
    case op::vdiv: return "vdiv";
    case op::vand: return "vand";
    case op::vor: return "vor";
    case op::vxor: return "vxor";
    case op::vshl: return "vshl";
    case op::vshr: return "vshr";
    case op::vsra: return "vsra";
    case op::vfadd: return "vfadd";
    case op::vfsub: return "vfsub";
    case op::vfmul: return "vfmul";
    case op::vcmpeq: return "vcmpeq";
    case op::vcmpne: return "vcmpne";
    case op::vcmplt: return "vcmplt";
    case op::vcmpgt: return "vcmpgt";
    case op::padd: return "padd";
    case op::psub: return "psub";
    case op::pcmpeq: return "pcmpeq";
    case op::pcmpgt: return "pcmpgt";
    case op::pand: return "pand";
    case op::pandn: return "pandn";
    case op::por: return "por";
    case op::pmaddwd: return "pmaddwd";
    case op::count_: break;
  }
  return "?";
}

bool program::find_symbol(const std::string& name, std::uint64_t& addr) const {
  for (const auto& s : symbols) {
    if (s.first == name) {
      addr = s.second;
      return true;
    }
  }
  return false;
}

}  // namespace flynn::vec

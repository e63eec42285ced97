// The PTX selectors of control flow and warp-wide instructions: bra, bar, ret, exit, shfl,
// elect, and the orderings that hold here without an instruction (wgmma.fence, fence.*,
// setmaxnreg).
#include "ptx_lower_parts.h"

namespace flynn::ptx {

void select_bra(selector& c) {
  c.s.code = simt::op::bra;
  c.s.target = c.in.target;
}

void select_bar(selector& c) { c.s.code = simt::op::bar; }

void select_exit(selector& c) { c.s.code = simt::op::exit; }

void select_shfl(selector& c) {
  simt::instr& s = c.s;
  c.binary(simt::op::shfl);
  s.sub = static_cast<std::uint8_t>(c.in.shfl);
  c.imm_or_reg(c.o[3], s.c_imm, s.imm_b, s.rc);
  c.imm_or_reg(c.o[4], s.e_imm, s.imm_e, s.re);
  if (c.in.nops > 5 && c.o[5].k == operand::kind::reg) s.pd = c.phys(c.o[5]);
}

void select_elect(selector& c) {
  simt::instr& s = c.s;
  s.code = simt::op::elect;
  if (c.o[0].k == operand::kind::reg) {
    s.sub = 1;
    s.rd = c.phys(c.o[0]);
  }
  c.imm_or_reg(c.o[1], s.e_imm, s.imm_e, s.re);
  s.pd = c.phys(c.o[2]);
}

void select_nop(selector& c) { c.s.code = simt::op::nop; }

}  // namespace flynn::ptx

// The SIMT decoders of control flow and warp-wide instructions: bra, bar, exit, nop, shfl,
// elect.
#include "simt_asm_decode.h"

namespace flynn::simt::assembly {

void decode_bra(decoder& d) {
  d.no_suffix();
  d.operands(1, "label");
  d.a.target(d.ops[0]);
}

void decode_bar(decoder& d) {
  if (d.name != "bar.sync") d.bad_suffix("bar.sync");
  d.display = "bar.sync";
  d.operands(0, "");
}

void decode_plain(decoder& d) {
  d.no_suffix();
  d.operands(0, "");
}

void decode_shfl(decoder& d) {
  d.display = "shfl.MODE";
  static const char* const modes[] = {"up", "down", "bfly", "idx"};
  bool found = false;
  for (unsigned i = 0; d.parts.size() == 1 && i < 4; ++i)
    if (d.parts[0].s == modes[i]) d.in.sub = static_cast<std::uint8_t>(i), found = true;
  if (!found) d.bad_suffix("shfl.up, shfl.down, shfl.bfly or shfl.idx");

  d.operands(5, "rd[|pd], ra, rb|imm, rc|imm, re|imm");
  instr& in = d.in;
  if (!d.a.reg_pred_pair(d.ops[0], in)) in.rd = d.reg(0);
  in.ra = d.reg(1);
  d.a.source2(d.ops[2], in);
  const std::int64_t b_imm = in.imm;
  const bool b_is_imm = in.b_imm;
  // c and the membermask: a register or an immediate each
  d.a.reg_or_int(d.ops[3], in.rc, in.c_imm, in.imm_b);
  d.a.reg_or_int(d.ops[4], in.re, in.e_imm, in.imm_e);
  in.imm = b_imm;
  in.b_imm = b_is_imm;
}

void decode_elect(decoder& d) {  // elect.sync [rd|]pd, membermask
  d.display = "elect.sync";
  if (d.name != "elect.sync") d.bad_suffix("elect.sync");
  d.operands(2, "[rd|]pd, re|imm");
  instr& in = d.in;
  if (d.a.reg_pred_pair(d.ops[0], in)) in.sub = 1;
  else in.pd = d.pred(0);
  d.a.reg_or_int(d.ops[1], in.re, in.e_imm, in.imm_e);
}

}  // namespace flynn::simt::assembly

// The SIMT decoders of arithmetic, comparisons, moves and 64-bit register-pair values.
#include <utility>

#include "simt_asm_decode.h"

namespace flynn::simt::assembly {

namespace {

// rd, ra, rb|imm; with pair_rd, rd holds a 64-bit result (rd:rd+1).
void alu_operands(decoder& d, bool pair_rd) {
  d.operands(3, "rd, ra, rb|imm");
  d.in.rd = d.reg(0);
  if (pair_rd) d.a.check_group(d.ops[0], d.in.rd, 8);
  d.in.ra = d.reg(1);
  d.a.source2(d.ops[2], d.in);
}

// rd, ra, rb|imm with each a 64-bit value in a register pair.
void alu64_operands(decoder& d) {
  d.operands(3, "rd, ra, rb|imm");
  d.in.rd = d.reg(0);
  d.a.check_group(d.ops[0], d.in.rd, 8);
  d.in.ra = d.reg(1);
  d.a.check_group(d.ops[1], d.in.ra, 8);
  d.a.source2(d.ops[2], d.in);
  if (!d.in.b_imm) d.a.check_group(d.ops[2], d.in.rb, 8);
}

// The index of the single suffix among `names`, or false.
template <std::size_t N>
bool one_suffix(const decoder& d, const char* const (&names)[N], std::uint8_t& index) {
  for (std::size_t i = 0; d.parts.size() == 1 && i < N; ++i)
    if (d.parts[0].s == names[i]) {
      index = static_cast<std::uint8_t>(i);
      return true;
    }
  return false;
}

}  // namespace

void decode_alu(decoder& d) {
  d.no_suffix();
  alu_operands(d, false);
}

void decode_mul(decoder& d) {
  if (!d.parts.empty()) {
    d.display = "mul.wide.TYPE";
    static const std::pair<const char*, type> tys[] = {
        {"s32", type::s32}, {"u32", type::u32}, {"s16", type::s16}, {"u16", type::u16}};
    if (d.parts[0].s != "wide") d.bad_suffix("mul or mul.wide.TYPE");
    const bool ok = d.parts.size() == 2;
    for (const auto& [n, t] : tys)
      if (ok && d.parts[1].s == n) d.in.ty = t, d.in.code = op::mul_wide;
    if (d.in.code != op::mul_wide) d.bad_part(1, "a type .s32, .u32, .s16 or .u16 (mul.wide.TYPE)");
  }
  alu_operands(d, d.in.code == op::mul_wide && (d.in.ty == type::s32 || d.in.ty == type::u32));
}

void decode_r4(decoder& d) {
  d.no_suffix();
  d.registers(4, "rd, ra, rb, rc");
}

void decode_unary(decoder& d) {
  d.no_suffix();
  d.registers(2, "rd, ra");
}

void decode_falu(decoder& d) {
  d.no_suffix();
  d.registers(3, "rd, ra, rb");
}

void decode_cvt(decoder& d) {
  if (d.name == "cvt.f.s") d.in.code = op::cvt_f_s;
  else if (d.name == "cvt.s.f") d.in.code = op::cvt_s_f;
  else d.bad_suffix("a conversion cvt.f.s or cvt.s.f");
  d.display = mnemonic(d.in.code);
  d.registers(2, "rd, ra");
}

void decode_setp(decoder& d) {
  d.display = "setp.CMP.TYPE";
  const auto& parts = d.parts;
  if (parts.empty())
    d.a.fail(d.head.col,
             "a comparison and type suffix (setp.CMP.TYPE: CMP eq, ne, lt, le, gt or ge; TYPE s32, u32 or f32)",
             quoted(d.head.s));
  static const char* const cmps[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  bool found_cmp = false;
  for (unsigned i = 0; i < 6; ++i) {
    if (parts[0].s == cmps[i]) {
      d.in.cond = static_cast<cmp>(i);
      found_cmp = true;
    }
  }
  if (!found_cmp) d.a.fail(parts[0].col, "a comparison .eq, .ne, .lt, .le, .gt or .ge", quoted(parts[0].orig));
  if (parts.size() < 2)
    d.a.fail(d.head.col, "a type suffix .s32, .u32 or .f32 after the comparison", quoted(d.head.s));
  if (parts[1].s == "s32") d.in.ty = type::s32;
  else if (parts[1].s == "u32") d.in.ty = type::u32;
  else if (parts[1].s == "f32") d.in.ty = type::f32;
  else d.a.fail(parts[1].col, "a type .s32, .u32 or .f32", quoted(parts[1].orig));
  if (parts.size() > 2) d.a.fail(parts[2].col, "end of the mnemonic (setp.CMP.TYPE)", quoted(parts[2].orig));

  d.operands(3, "pd, ra, rb|imm");
  d.in.rd = d.pred(0);
  d.in.ra = d.reg(1);
  d.a.source2(d.ops[2], d.in);
}

void decode_selp(decoder& d) {
  d.no_suffix();
  d.operands(4, "rd, ra|imm, rb|imm, pa");
  instr& in = d.in;
  in.rd = d.reg(0);
  d.a.source2(d.ops[1], in);  // a register or an immediate (kept in imm_b)
  if (in.b_imm) {
    in.a_imm = true;
    in.imm_b = static_cast<std::uint32_t>(in.imm);
    in.b_imm = false;
    in.imm = 0;
  } else {
    in.ra = in.rb;
    in.rb = 0;
  }
  d.a.source2(d.ops[2], in);
  in.rc = d.pred(3);
}

void decode_mov(decoder& d) {
  d.no_suffix();
  d.operands(2, "rd, ra|imm|%sreg");
  d.in.rd = d.reg(0);
  d.a.mov_source(d.ops[1], d.in);
}

void decode_ldparam(decoder& d) {
  if (!d.parts.empty()) {
    if (d.parts.size() != 1 || (d.parts[0].s != "64" && d.parts[0].s != "32")) d.bad_suffix("ldparam or ldparam.64");
    d.in.width = d.parts[0].s == "64" ? 8 : 4;
  }
  d.operands(2, "rd, N");
  d.in.rd = d.reg(0);
  d.in.imm = static_cast<std::int64_t>(
      d.a.small_number(d.ops[1], 0xffffffffu, "a parameter index (an integer 0..4294967295)"));
}

void decode_plogic(decoder& d) {
  d.display = "plogic.and|or|xor|not";
  static const char* const names[] = {"and", "or", "xor", "not"};
  std::uint8_t i = 0;
  if (!one_suffix(d, names, i)) d.bad_suffix("plogic.and, plogic.or, plogic.xor or plogic.not");
  d.in.imm = i;
  const bool plogic_not = i == 3;
  d.operands(plogic_not ? 2 : 3, "pd, pa, pb");
  d.in.rd = d.pred(0);
  d.in.ra = d.pred(1);
  if (!plogic_not) d.in.rb = d.pred(2);
}

// ---- 64-bit values ----------------------------------------------------------------------

void decode_mov64(decoder& d) {  // mov64 rd, ra|imm (the 64-bit value in rd:rd+1)
  d.no_suffix();
  d.operands(2, "rd, ra|imm");
  instr& in = d.in;
  in.rd = d.reg(0);
  d.a.check_group(d.ops[0], in.rd, 8);
  d.a.mov_source(d.ops[1], in);
  if (in.sreg != special::none) d.a.fail(d.ops[1].col, "a general register or an immediate", d.ops[1].found());
  if (!in.b_imm) d.a.check_group(d.ops[1], in.ra, 8);
}

void decode_cvt64(decoder& d) {  // cvt64.T rd, ra (the 64-bit value in rd:rd+1)
  d.display = "cvt64.s32|u32";
  if (d.parts.size() != 1 || (d.parts[0].s != "s32" && d.parts[0].s != "u32"))
    d.bad_suffix("cvt64.s32 (sign-extend) or cvt64.u32 (zero-extend)");
  d.in.ty = d.parts[0].s == "s32" ? type::s32 : type::u32;
  d.operands(2, "rd, ra|imm");
  d.in.rd = d.reg(0);
  d.a.check_group(d.ops[0], d.in.rd, 8);
  d.in.ra = d.reg(1);
}

void decode_add64(decoder& d) {
  d.no_suffix();
  alu64_operands(d);
}

void decode_logic64(decoder& d) {
  d.display = "logic64.and|or|xor";
  static const char* const names[] = {"and", "or", "xor"};
  if (!one_suffix(d, names, d.in.sub)) d.bad_suffix("logic64.and, logic64.or or logic64.xor");
  alu64_operands(d);
}

}  // namespace flynn::simt::assembly

// The PTX selectors of arithmetic, logic and comparisons: add, sub, min, max, mul, mad, fma,
// div, rem, and, or, xor, not, shl, shr, setp, selp.
#include "ptx_lower_parts.h"

namespace flynn::ptx {

void select_add(selector& c) {
  const bool wide = size_of(c.in.type) == 8;
  c.binary(c.in.type == dtype::f32 ? simt::op::fadd : wide ? simt::op::add64 : simt::op::add);
}

void select_sub(selector& c) { c.binary(c.in.type == dtype::f32 ? simt::op::fsub : simt::op::sub); }

void select_min_max(selector& c) {
  const bool f32 = c.in.type == dtype::f32;
  c.binary(c.in.op == opcode::min ? (f32 ? simt::op::fmin : simt::op::min) : (f32 ? simt::op::fmax : simt::op::max));
}

void select_mul(selector& c) {
  simt::op code = simt::op::fmul;
  switch (c.in.mode) {
    case mul_mode::none: code = simt::op::fmul; break;
    case mul_mode::lo: code = simt::op::mul; break;
    case mul_mode::hi: code = simt::op::mulhi; break;
    case mul_mode::wide:
      code = simt::op::mul_wide;
      c.s.ty = c.in.type == dtype::s32   ? simt::type::s32
               : c.in.type == dtype::u32 ? simt::type::u32
               : c.in.type == dtype::s16 ? simt::type::s16
                                         : simt::type::u16;
      break;
  }
  c.binary(code);
}

void select_mad(selector& c) {
  c.binary(c.in.op == opcode::mad ? simt::op::mad : simt::op::ffma);
  c.s.rc = c.phys(c.o[3]);
}

void select_div(selector& c) {
  c.binary(c.in.op == opcode::rem ? simt::op::rem : c.in.type == dtype::f32 ? simt::op::fdiv : simt::op::div);
}

void select_logic(selector& c) {
  const instruction& in = c.in;
  simt::instr& s = c.s;
  s.rd = c.phys(c.o[0]);
  s.ra = c.phys(c.o[1]);
  if (in.type == dtype::pred) {
    s.code = simt::op::plogic;
    s.imm = in.op == opcode::and_ ? 0 : in.op == opcode::or_ ? 1 : in.op == opcode::xor_ ? 2 : 3;
    if (in.op != opcode::not_) s.rb = c.phys(c.o[2]);
  } else if (size_of(in.type) == 8) {  // 64-bit: on register pairs (not: xor with all ones)
    s.code = simt::op::logic64;
    s.sub = in.op == opcode::and_ ? 0 : in.op == opcode::or_ ? 1 : 2;
    if (in.op == opcode::not_) {
      s.b_imm = true;
      s.imm = -1;
    } else {
      c.b_operand(c.o[2]);
    }
  } else {
    s.code = in.op == opcode::and_   ? simt::op::and_
             : in.op == opcode::or_  ? simt::op::or_
             : in.op == opcode::xor_ ? simt::op::xor_
                                     : simt::op::not_;
    if (in.op != opcode::not_) c.b_operand(c.o[2]);
  }
}

void select_shift(selector& c) {
  c.binary(c.in.op == opcode::shl ? simt::op::shl : c.in.type == dtype::s32 ? simt::op::sra : simt::op::shr);
}

void select_setp(selector& c) {
  c.binary(simt::op::setp);
  c.s.cond = static_cast<simt::cmp>(c.in.cond);
  c.s.ty = type_32(c.in.type);
}

void select_selp(selector& c) {
  c.s.code = simt::op::selp;
  c.s.rd = c.phys(c.o[0]);
  c.imm_or_reg(c.o[1], c.s.a_imm, c.s.imm_b, c.s.ra);
  c.b_operand(c.o[2]);
  c.s.rc = c.phys(c.o[3]);
}

}  // namespace flynn::ptx

// The PTX decoders of arithmetic, logic and comparisons: add, sub, min, max, mul, mad, fma,
// div, rem, and, or, xor, not, shl, shr, setp, selp.
#include "ptx_decode.h"

namespace flynn::ptx {

void decode_add(decoder& d) {
  d.in.op = d.head == "add" ? opcode::add : d.head == "sub" ? opcode::sub : d.head == "min" ? opcode::min : opcode::max;
  d.take("rn");
  d.in.type = d.take_type();
  d.no_more();
  if (d.in.op == opcode::add) d.one_of(d.in.type, {dtype::s32, dtype::u32, dtype::s64, dtype::u64, dtype::f32});
  else if (d.in.op == opcode::sub) d.one_of(d.in.type, {dtype::s32, dtype::u32, dtype::f32});
  else d.one_of(d.in.type, {dtype::s32, dtype::f32});
  d.need(3);
  d.dest(0, d.in.type);
  d.src(1, d.in.type, reg_only);
  d.src(2, d.in.type);
}

void decode_mul(decoder& d) {
  d.in.op = opcode::mul;
  d.in.mode = d.take("lo") ? mul_mode::lo : d.take("hi") ? mul_mode::hi : d.take("wide") ? mul_mode::wide : mul_mode::none;
  d.take("rn");
  d.in.type = d.take_type();
  d.no_more();
  if (d.in.mode == mul_mode::none) d.one_of(d.in.type, {dtype::f32});
  else if (d.in.mode == mul_mode::lo) d.one_of(d.in.type, {dtype::s32, dtype::u32});
  else if (d.in.mode == mul_mode::hi) d.one_of(d.in.type, {dtype::s32});
  else d.one_of(d.in.type, {dtype::s32, dtype::u32, dtype::s16, dtype::u16});
  d.need(3);
  if (d.in.mode == mul_mode::wide) d.dest(0, size_of(d.in.type) == 4 ? dtype::b64 : dtype::b32);
  else d.dest(0, d.in.type);
  d.src(1, d.in.type, reg_only);
  d.src(2, d.in.type);
}

void decode_mad(decoder& d) {
  d.in.op = d.head == "mad" ? opcode::mad : opcode::fma;
  if (d.in.op == opcode::mad && !d.take("lo")) d.unsupported("mad needs .lo");
  if (d.in.op == opcode::fma && !d.take("rn")) d.unsupported("fma needs .rn");
  d.in.type = d.take_type();
  d.no_more();
  if (d.in.op == opcode::mad) d.one_of(d.in.type, {dtype::s32, dtype::u32});
  else d.one_of(d.in.type, {dtype::f32});
  d.need(4);
  d.dest(0, d.in.type);
  d.src(1, d.in.type, reg_only);
  d.src(2, d.in.type);
  d.src(3, d.in.type, reg_only);
}

void decode_div(decoder& d) {
  d.in.op = d.head == "div" ? opcode::div : opcode::rem;
  const bool rn = d.take("rn");
  d.in.type = d.take_type();
  d.no_more();
  if (d.in.op == opcode::div && rn) d.one_of(d.in.type, {dtype::f32});
  else d.one_of(d.in.type, {dtype::s32});
  d.need(3);
  d.dest(0, d.in.type);
  d.src(1, d.in.type, reg_only);
  d.src(2, d.in.type, d.in.type == dtype::f32 ? reg_only : allow_imm);
}

void decode_logic(decoder& d) {
  d.in.op = d.head == "and" ? opcode::and_ : d.head == "or" ? opcode::or_ : d.head == "xor" ? opcode::xor_ : opcode::not_;
  d.in.type = d.take_type();
  d.no_more();
  d.one_of(d.in.type, {dtype::b32, dtype::b64, dtype::pred});
  const bool un = d.in.op == opcode::not_;
  d.need(un ? 2 : 3);
  d.dest(0, d.in.type);
  d.src(1, d.in.type, reg_only);
  if (!un) d.src(2, d.in.type, d.in.type == dtype::pred ? reg_only : allow_imm);
}

void decode_shift(decoder& d) {
  d.in.op = d.head == "shl" ? opcode::shl : opcode::shr;
  d.in.type = d.take_type();
  d.no_more();
  if (d.in.op == opcode::shl) d.one_of(d.in.type, {dtype::b32});
  else d.one_of(d.in.type, {dtype::b32, dtype::u32, dtype::s32});
  d.need(3);
  d.dest(0, d.in.type);
  d.src(1, d.in.type, reg_only);
  d.src(2, dtype::u32);
}

void decode_setp(decoder& d) {
  d.in.op = opcode::setp;
  d.in.type = d.take_type();
  static const std::pair<const char*, cmp> cmps[] = {{"eq", cmp::eq}, {"ne", cmp::ne}, {"lt", cmp::lt},
                                                     {"le", cmp::le}, {"gt", cmp::gt}, {"ge", cmp::ge}};
  static const std::pair<const char*, cmp> ucmps[] = {{"lo", cmp::lt}, {"ls", cmp::le}, {"hi", cmp::gt}, {"hs", cmp::ge}};
  bool found_cmp = d.take_first(cmps, d.in.cond);
  if (!found_cmp && d.take_first(ucmps, d.in.cond)) {
    found_cmp = true;
    if (d.in.type != dtype::u32 && d.in.type != dtype::b32) d.unsupported("lo/ls/hi/hs compare unsigned types");
  }
  if (!found_cmp) d.unsupported("comparison eq, ne, lt, le, gt, ge (or lo, ls, hi, hs)");
  d.no_more();
  d.one_of(d.in.type, {dtype::s32, dtype::u32, dtype::b32, dtype::f32});
  if (d.in.type == dtype::b32 && d.in.cond != cmp::eq && d.in.cond != cmp::ne) d.in.type = dtype::u32;
  d.need(3);
  if (d.ops[0].text.find('|') != std::string::npos) d.unsupported("setp with two destinations (p|q)");
  d.dest(0, dtype::pred);
  d.src(1, d.in.type, reg_only);
  d.src(2, d.in.type);
}

void decode_selp(decoder& d) {
  d.in.op = opcode::selp;
  d.in.type = d.take_type();
  d.no_more();
  d.one_of(d.in.type, {dtype::b32, dtype::s32, dtype::u32, dtype::f32});
  d.need(4);
  d.dest(0, d.in.type);
  d.src(1, d.in.type);
  d.src(2, d.in.type);
  d.set(3, d.value(d.ops[3], dtype::pred, reg_only));
}

}  // namespace flynn::ptx

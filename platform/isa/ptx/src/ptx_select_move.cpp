// The PTX selectors of moves, conversions and memory accesses: mov, cvt, cvta, ld, st, atom.
#include "flynn/platform/errors.h"
#include "ptx_lower_parts.h"

namespace flynn::ptx {

void select_mov(selector& c) {
  const operand* o = c.o;
  simt::instr& s = c.s;
  if (c.in.type == dtype::pred) {  // p <- a, as a | a
    s.code = simt::op::plogic;
    s.rd = c.phys(o[0]);
    s.ra = s.rb = c.phys(o[1]);
    s.imm = 1;
    return;
  }
  s.code = size_of(c.in.type) == 8 ? simt::op::mov64 : simt::op::mov;
  s.rd = c.phys(o[0]);
  if (o[1].k == operand::kind::reg) {
    s.ra = c.phys(o[1]);
  } else if (o[1].k == operand::kind::imm) {
    s.b_imm = true;
    s.imm = static_cast<std::int64_t>(o[1].imm);
  } else if (o[1].k == operand::kind::symbol) {  // a shared variable's address, or a parameter's (its offset)
    s.b_imm = true;
    s.imm = static_cast<std::int64_t>(o[1].param ? c.k.params[static_cast<std::size_t>(o[1].symbol)].offset
                                                  : c.k.shared[static_cast<std::size_t>(o[1].symbol)].offset);
  } else {
    static const simt::special map[] = {
        simt::special::tid,     simt::special::tid_y,   simt::special::tid_z,    simt::special::ntid,
        simt::special::ntid_y,  simt::special::ntid_z,  simt::special::ctaid,    simt::special::ctaid_y,
        simt::special::ctaid_z, simt::special::nctaid,  simt::special::nctaid_y, simt::special::nctaid_z,
        simt::special::laneid,  simt::special::warpid};
    s.sreg = map[static_cast<unsigned>(o[1].special)];
  }
}

void select_cvt(selector& c) {
  const instruction& in = c.in;
  c.s.rd = c.phys(c.o[0]);
  c.s.ra = c.phys(c.o[1]);
  if (size_of(in.type) == 8) {
    c.s.code = simt::op::cvt64;
    c.s.ty = is_signed(in.type2) ? simt::type::s32 : simt::type::u32;
  } else if (size_of(in.type2) == 8) {
    c.s.code = simt::op::mov;  // the low word
  } else if (in.type == dtype::f32) {
    c.s.code = simt::op::cvt_f_s;
  } else {
    c.s.code = simt::op::cvt_s_f;
  }
}

void select_cvta(selector& c) {  // Flynn's generic addresses are the global memory's
  c.s.code = simt::op::mov64;
  c.s.rd = c.phys(c.o[0]);
  c.s.ra = c.phys(c.o[1]);
}

void select_ld_st(selector& c) {
  const instruction& in = c.in;
  simt::instr& s = c.s;
  const bool ld = in.op == opcode::ld;
  const operand& data = ld ? c.o[0] : c.o[1];
  const operand& a = ld ? c.o[1] : c.o[0];
  if (in.sp == space::param) {
    const param& p = c.k.params[static_cast<std::size_t>(a.symbol)];
    const std::uint64_t byte = p.offset + a.imm;
    if (byte % 4 || (size_of(in.type) != 4 && size_of(in.type) != 8))
      throw input_error(c.k.file + ":" + std::to_string(in.line) +
                        ": expected a 32- or 64-bit parameter read at a multiple of 4 bytes, found '" + in.text + "'");
    s.code = simt::op::ldparam;
    s.rd = c.phys(data);
    s.imm = static_cast<std::int64_t>(byte / 4);
    s.width = static_cast<std::uint8_t>(size_of(in.type));
    return;
  }
  s.code = ld ? simt::op::ld : simt::op::st;
  s.sp = in.sp == space::shared ? simt::space::shared : simt::space::global;
  const std::size_t elements = in.group.empty() ? 1 : in.group.size();
  s.width = static_cast<std::uint8_t>(size_of(in.type) * elements);
  s.sign = is_signed(in.type) && size_of(in.type) < 4;
  s.cg = in.cache_global;
  (ld ? s.rd : s.rb) = in.group.empty() ? c.phys(data) : c.group_base();
  c.memory_address(a);
}

void select_atom(selector& c) {
  simt::instr& s = c.s;
  s.code = simt::op::atom;
  s.sub = static_cast<std::uint8_t>(c.in.atom);
  s.sp = c.in.sp == space::shared ? simt::space::shared : simt::space::global;
  s.ty = type_32(c.in.type);
  s.rd = c.phys(c.o[0]);
  c.memory_address(c.o[1]);
  c.imm_or_reg(c.o[2], s.b_imm, s.imm_b, s.rb);
}

}  // namespace flynn::ptx

// The PTX decoders of moves and conversions: mov, cvt, cvta.
#include "ptx_decode.h"

namespace flynn::ptx {

void decode_mov(decoder& d) {
  d.in.op = opcode::mov;
  d.in.type = d.take_type();
  d.no_more();
  d.one_of(d.in.type, {dtype::b32, dtype::u32, dtype::s32, dtype::f32, dtype::b64, dtype::u64, dtype::s64, dtype::pred});
  d.need(2);
  d.dest(0, d.in.type);
  d.src(1, d.in.type, allow_imm | allow_sreg | allow_symbol);
  if (d.in.type == dtype::pred && d.in.ops[1].k != operand::kind::reg) d.unsupported("mov.pred copies a predicate");
}

void decode_cvt(decoder& d) {
  d.in.op = opcode::cvt;
  for (const char* r : {"rn", "rzi"}) d.take(r);
  const dtype from = d.take_type();
  const dtype to = d.take_type();
  d.no_more();
  d.in.type = to;
  d.in.type2 = from;
  const bool ext = (to == dtype::s64 || to == dtype::u64) && (from == dtype::s32 || from == dtype::u32);
  const bool trunc = (to == dtype::s32 || to == dtype::u32) && (from == dtype::s64 || from == dtype::u64);
  const bool i2f = to == dtype::f32 && from == dtype::s32 && d.op.s.find(".rn.") != std::string::npos;
  const bool f2i = to == dtype::s32 && from == dtype::f32 && d.op.s.find(".rzi.") != std::string::npos;
  if (!ext && !trunc && !i2f && !f2i)
    d.unsupported("cvt between s32/u32 and s64/u64, cvt.rn.f32.s32 and cvt.rzi.s32.f32");
  d.need(2);
  d.dest(0, to);
  d.src(1, from, reg_only);
}

void decode_cvta(decoder& d) {
  d.in.op = opcode::cvta;
  // cvta.to.global: generic to global (the same addresses here); cvta.param: a parameter's
  // address to a generic one (a CUtensorMap parameter's, for cp.async.bulk.tensor)
  const bool to = d.take("to");
  d.in.sp = d.space_of({{"global", space::global}, {"param", space::param}});
  if (to != (d.in.sp == space::global)) d.unsupported("cvta.to.global.u64 and cvta.param.u64");
  d.in.type = d.take_type();
  d.no_more();
  d.one_of(d.in.type, {dtype::u64});
  d.need(2);
  d.dest(0, d.in.type);
  d.src(1, d.in.type, reg_only);
}

}  // namespace flynn::ptx

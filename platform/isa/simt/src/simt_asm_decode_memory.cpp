// The SIMT decoders of memory accesses: ld, st, atom, and the asynchronous mbarrier and tma.
#include "simt_asm_decode.h"

namespace flynn::simt::assembly {

namespace {

// ld|st.SPACE[.cg].W: the space, ld.global's .cg (cached at the global level only) and the
// access width.
void access_suffixes(decoder& d, bool load) {
  const auto& parts = d.parts;
  instr& in = d.in;
  d.display = d.base + ".SPACE.W";
  if (parts.empty())
    d.a.fail(d.head.col, "a space and width suffix (" + d.display + ": SPACE global or shared; W 32, 64 or 128)",
             quoted(d.head.s));
  if (parts[0].s == "global") in.sp = space::global;
  else if (parts[0].s == "shared") in.sp = space::shared;
  else d.a.fail(parts[0].col, "a memory space .global or .shared", quoted(parts[0].orig));
  in.cg = load && in.sp == space::global && parts.size() > 1 && parts[1].s == "cg";
  const std::size_t wi = in.cg ? 2 : 1;
  if (parts.size() <= wi)
    d.a.fail(d.head.col, "a width suffix .8, .16, .32, .64 or .128 after the space", quoted(d.head.s));
  const part& wp = parts[wi];
  if (wp.s == "32") in.width = 4;
  else if (wp.s == "64") in.width = 8;
  else if (wp.s == "128") in.width = 16;
  else if (wp.s == "8") in.width = 1;
  else if (wp.s == "16") in.width = 2;
  else if (load && (wp.s == "s8" || wp.s == "s16")) in.width = wp.s == "s8" ? 1 : 2, in.sign = true;
  else d.a.fail(wp.col, load ? "an access width .8, .s8, .16, .s16, .32, .64 or .128"
                             : "an access width .8, .16, .32, .64 or .128", quoted(wp.orig));
  if (parts.size() > wi + 1)
    d.a.fail(parts[wi + 1].col, "end of the mnemonic (" + d.display + ")", quoted(parts[wi + 1].orig));
}

// A memory operand, then a register or an immediate (kept in imm_b: imm is the offset).
void address_and_value(decoder& d, const operand& address, const operand& value, bool wide) {
  d.a.memory(address, d.in, wide);
  const std::int64_t offset = d.in.imm;
  d.a.source2(value, d.in);
  if (d.in.b_imm) d.in.imm_b = static_cast<std::uint32_t>(d.in.imm);
  d.in.imm = offset;
}

// The tensor map index of a tma operation (kept in rd).
void tensor_map(decoder& d, const operand& map) {
  d.in.rd = static_cast<std::uint8_t>(d.a.small_number(map, 255, "a tensor map index 0..255"));
}

// The first of a tma operation's coordinate registers rc..rc+4.
void first_coordinate(decoder& d, const operand& coords) {
  d.in.rc = d.a.reg(coords);
  if (d.in.rc + 4u >= num_registers)
    d.a.fail(coords.col, "a first coordinate register r0..r251 (up to 5 coordinates rc..rc+4)", coords.found());
}

}  // namespace

void decode_ld(decoder& d) {
  access_suffixes(d, true);
  d.operands(2, "rd, [ra+imm]");
  d.in.rd = d.reg(0);
  d.a.check_group(d.ops[0], d.in.rd, d.in.width);
  d.a.memory(d.ops[1], d.in, true);
}

void decode_st(decoder& d) {
  access_suffixes(d, false);
  d.operands(2, "[ra+imm], rb");
  d.a.memory(d.ops[0], d.in, true);
  d.in.rb = d.reg(1);
  d.a.check_group(d.ops[1], d.in.rb, d.in.width);
}

void decode_atom(decoder& d) {
  const auto& parts = d.parts;
  instr& in = d.in;
  d.display = "atom.SPACE.OP.TYPE";
  if (parts.size() != 3)
    d.bad_suffix("atom.SPACE.OP.TYPE (SPACE global or shared; OP add, min, max or exch; TYPE u32, s32 or f32)");
  if (parts[0].s == "global") in.sp = space::global;
  else if (parts[0].s == "shared") in.sp = space::shared;
  else d.a.fail(parts[0].col, "a memory space .global or .shared", quoted(parts[0].orig));
  static const char* const aops[] = {"add", "min", "max", "exch"};
  bool ok = false;
  for (unsigned i = 0; i < 4; ++i)
    if (parts[1].s == aops[i]) in.sub = static_cast<std::uint8_t>(i), ok = true;
  if (!ok) d.a.fail(parts[1].col, "an atomic operation .add, .min, .max or .exch", quoted(parts[1].orig));
  if (parts[2].s == "u32") in.ty = type::u32;
  else if (parts[2].s == "s32") in.ty = type::s32;
  else if (parts[2].s == "f32" && in.sub == 0) in.ty = type::f32;
  else d.a.fail(parts[2].col, in.sub == 0 ? "a type .u32, .s32 or .f32" : "a type .u32 or .s32", quoted(parts[2].orig));

  d.operands(3, "rd, [address], rb|imm");
  in.rd = d.reg(0);
  address_and_value(d, d.ops[1], d.ops[2], true);
}

void decode_mbarrier(decoder& d) {
  instr& in = d.in;
  if (d.name == "mbarrier.init") in.code = op::mbar_init;
  else if (d.name == "mbarrier.arrive") in.code = op::mbar_arrive;
  else if (d.name == "mbarrier.arrive.expect_tx") in.code = op::mbar_arrive_tx;
  else if (d.name == "mbarrier.wait") in.code = op::mbar_wait;
  else d.bad_suffix("mbarrier.init, mbarrier.arrive, mbarrier.arrive.expect_tx or mbarrier.wait");
  d.display = mnemonic(in.code);
  if (in.code == op::mbar_arrive) {
    d.operands(1, "[ra+imm]");
    d.a.memory(d.ops[0], in);
    return;
  }
  d.operands(2, "[ra+imm], rb|imm");
  address_and_value(d, d.ops[0], d.ops[1], false);
}

void decode_tma(decoder& d) {
  instr& in = d.in;
  if (d.name == "tma.store") in.code = op::tma_store;
  else if (d.name == "tma.wait") in.code = op::tma_wait;
  else if (d.name != "tma.load") d.bad_suffix("tma.load, tma.store or tma.wait");
  d.display = mnemonic(in.code);
  if (in.code == op::tma_wait) {
    d.operands(0, "");
  } else if (in.code == op::tma_store) {
    d.operands(3, "[ra+imm], MAP, rc");
    d.a.memory(d.ops[0], in);
    tensor_map(d, d.ops[1]);
    first_coordinate(d, d.ops[2]);
  } else {
    d.operands(4, "[ra+imm], MAP, [rb], rc");
    d.a.memory(d.ops[0], in);
    tensor_map(d, d.ops[1]);
    const auto& b = d.ops[2].toks;
    std::uint8_t n = 0;
    if (b.size() != 3 || b[0].s != "[" || !register_number(b[1].s, 'r', num_registers, n) || b[2].s != "]")
      d.a.fail(d.ops[2].col, "a barrier operand [rN]", d.ops[2].found());
    in.rb = n;
    first_coordinate(d, d.ops[3]);
  }
}

}  // namespace flynn::simt::assembly

// The PTX decoders of memory accesses: ld, st, atom, fence.
#include "ptx_decode.h"

namespace flynn::ptx {

void decode_ld_st(decoder& d) {
  d.in.op = d.head == "ld" ? opcode::ld : opcode::st;
  d.in.type = d.take_type();
  d.in.sp = d.head == "ld" ? d.space_of({{"param", space::param}, {"global", space::global}, {"shared", space::shared}})
                          : d.space_of({{"global", space::global}, {"shared", space::shared}});
  for (const char* c : {"nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "weak"})
    if (d.take(c) && std::string(c) == "cg" && d.head == "ld" && d.in.sp == space::global) d.in.cache_global = true;
  const unsigned vec = d.take("v2") ? 2 : d.take("v4") ? 4 : 1;
  d.no_more();
  if (d.in.type == dtype::none || d.in.type == dtype::pred || d.in.type == dtype::f16 || d.in.type == dtype::f64)
    d.unsupported();
  d.need(2);
  const unsigned data = d.head == "ld" ? 0 : 1;
  d.set(d.head == "ld" ? 1 : 0, d.address(d.ops[d.head == "ld" ? 1 : 0], d.in.sp));
  if (vec > 1) {  // {%a, %b[, %c, %d]}: elements of 4 bytes (v2, v4) or 8 (v2)
    if (d.in.sp == space::param) d.unsupported("vector parameter reads are not supported");
    if (size_of(d.in.type) < 4 || vec * size_of(d.in.type) > 16)
      d.unsupported("vector accesses of 4-byte elements (.v2, .v4) or 8-byte ones (.v2)");
    d.set(data, d.group(d.ops[data], d.in.type, vec));
    return;
  }
  // A narrow value may sit in a wider register (ld.u8 into a .b16 or .b32 register).
  if (d.head == "ld") d.dest(data, d.in.type, size_of(d.in.type) < 4 ? size_of(d.in.type) : 0);
  else d.set(data, d.value(d.ops[data], d.in.type, reg_only, size_of(d.in.type) < 4 ? size_of(d.in.type) : 0));
  if (size_of(d.in.type) < 4 && size_of(d.r.reg_type(d.in.ops[data].reg)) > 4)
    d.fail(d.ops[data].toks[0], "a register of at most 32 bits for a ." + std::string(name_of(d.in.type)) + " access",
           quoted(d.ops[data].text));
  if (d.in.sp == space::param) {
    const param& p = d.r.param_at(d.in.ops[1].symbol);
    const std::int64_t off = static_cast<std::int64_t>(d.in.ops[1].imm);
    if (off < 0 || off + size_of(d.in.type) > p.bytes)
      d.fail(d.ops[1].toks[0], "an access inside parameter " + quoted(p.name) + " (" + std::to_string(p.bytes) + " bytes)",
             quoted(d.ops[1].text));
  }
}

void decode_atom(decoder& d) {
  d.in.op = opcode::atom;
  d.take("relaxed");
  for (const char* sc : {"gpu", "cta", "sys"}) d.take(sc);
  for (const char* sem : {"acquire", "release", "acq_rel"})
    if (d.take(sem)) d.unsupported("memory-ordering semantics other than .relaxed are not modelled");
  d.in.sp = d.space_of({{"global", space::global}, {"shared", space::shared}});
  static const std::pair<const char*, atom_op> aops[] = {
      {"add", atom_op::add}, {"min", atom_op::min}, {"max", atom_op::max}, {"exch", atom_op::exch}};
  if (!d.take_first(aops, d.in.atom)) d.unsupported("an atomic operation .add, .min, .max or .exch");
  d.in.type = d.take_type();
  d.no_more();
  if (d.in.atom == atom_op::add) d.one_of(d.in.type, {dtype::u32, dtype::s32, dtype::f32});
  else if (d.in.atom == atom_op::exch) d.one_of(d.in.type, {dtype::b32, dtype::u32, dtype::s32});
  else d.one_of(d.in.type, {dtype::u32, dtype::s32});
  d.need(3);
  d.dest(0, d.in.type);
  d.set(1, d.address(d.ops[1], d.in.sp));
  d.src(2, d.in.type);
}

void decode_fence(decoder& d) {
  d.in.op = opcode::fence;  // (ordering between the memory proxies: every access here is in order)
  d.mods.clear();
  d.need(0);
}

}  // namespace flynn::ptx

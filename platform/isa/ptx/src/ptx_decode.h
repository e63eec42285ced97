// The PTX instruction decoders: one function per opcode family, found by the opcode's head
// ("ld" of ld.global.f32) in a table, each checking the modifiers, the type and the operands
// and filling in the instruction.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "flynn/platform/ptx.h"
#include "ptx_reader.h"

namespace flynn::ptx {

// The instruction being decoded: its opcode (head and the modifiers not taken yet), its
// operands as written, and what the family decoders share to read them.
struct decoder {
  reader& r;
  const token& op;
  const std::vector<raw_operand>& ops;
  instruction& in;
  std::string head;
  std::vector<std::string> mods;

  // Takes modifier m if the opcode has it.
  bool take(const std::string& m);
  // Takes the last modifier when it names a type (the instruction type); none otherwise.
  dtype take_type();
  // No modifier left that the family did not take.
  void no_more();
  // t is one of the types the instruction supports.
  void one_of(dtype t, std::initializer_list<dtype> ok);
  // Operand i of the instruction (the operand count grows to cover it).
  void set(unsigned i, operand o);
  // Operand i as a destination register of type ty (min_bytes: reader::value's min_reg_bytes).
  void dest(unsigned i, dtype ty, unsigned min_bytes = 0);
  // Operand i as a source of type ty, with what `allow` lets it be besides a register.
  void src(unsigned i, dtype ty, unsigned allow = allow_imm);
  // The state space the modifiers name, the first of `ok` taken.
  space space_of(std::initializer_list<std::pair<const char*, space>> ok);
  // Takes the first of the named modifiers that the opcode has, and sets v to what it stands
  // for; false when it has none of them.
  template <class T, std::size_t N>
  bool take_first(const std::pair<const char*, T> (&names)[N], T& v) {
    for (const auto& [n, x] : names)
      if (take(n)) {
        v = x;
        return true;
      }
    return false;
  }

  operand value(const raw_operand& o, dtype ty, unsigned allow, unsigned min_reg_bytes = 0) {
    return r.value(o, op, ty, allow, min_reg_bytes);
  }
  operand address(const raw_operand& o, space sp) { return r.address(o, sp); }
  operand group(const raw_operand& o, dtype ty, unsigned count) { return r.group(o, op, ty, count, in); }
  void need(unsigned n) { r.need(op, ops, n); }
  [[noreturn]] void unsupported(const std::string& why = "") { r.unsupported(op, why); }
  [[noreturn]] void fail(const token& t, const std::string& expected, const std::string& f) { r.fail(t, expected, f); }
};

using decode_fn = void (*)(decoder&);

// Decodes instruction `op` with its operands into `in`; an opcode outside the supported
// subset is an input_error.
void decode(reader& r, const token& op, const std::vector<raw_operand>& ops, instruction& in);

// Arithmetic, logic and comparisons (ptx_decode_arith.cpp).
void decode_add(decoder& d);  // add, sub, min, max
void decode_mul(decoder& d);
void decode_mad(decoder& d);  // mad, fma
void decode_div(decoder& d);  // div, rem
void decode_logic(decoder& d);  // and, or, xor, not
void decode_shift(decoder& d);  // shl, shr
void decode_setp(decoder& d);
void decode_selp(decoder& d);

// Moves and conversions (ptx_decode_move.cpp).
void decode_mov(decoder& d);
void decode_cvt(decoder& d);
void decode_cvta(decoder& d);

// Memory accesses (ptx_decode_memory.cpp).
void decode_ld_st(decoder& d);  // ld, st
void decode_atom(decoder& d);
void decode_fence(decoder& d);

// Control flow and warp-wide instructions (ptx_decode_control.cpp).
void decode_bra(decoder& d);
void decode_bar(decoder& d);  // bar, barrier
void decode_shfl(decoder& d);
void decode_elect(decoder& d);
void decode_setmaxnreg(decoder& d);
void decode_exit(decoder& d);  // ret, exit

// Hopper's asynchronous instructions (ptx_decode_async.cpp).
void decode_mbarrier(decoder& d);
void decode_cp(decoder& d);  // cp.async.bulk.tensor (TMA)
void decode_wgmma(decoder& d);

}  // namespace flynn::ptx

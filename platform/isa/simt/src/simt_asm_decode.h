// The SIMT instruction decoders: one function per mnemonic family, found by the mnemonic's
// base ("ld" of ld.global.32) in a table, each checking the suffixes and the operands and
// filling in the instruction.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "simt_assembler.h"

namespace flynn::simt::assembly {

// One '.'-separated suffix of the mnemonic.
struct part {
  std::string s;     // lower case, without the dot
  std::string orig;  // as written, with the dot
  unsigned col = 0;  // column of the dot
};

// The instruction being decoded: its mnemonic split into the base and the suffixes, its
// operands as written, and what the family decoders share to read them.
struct decoder {
  assembler& a;
  const token& head;
  const std::vector<token>& labels;  // the labels that start the line
  const std::vector<operand>& ops;
  instr& in;
  std::string name;         // the mnemonic in lower case
  std::string base;         // before the first '.'
  std::string rest;         // the suffixes as written
  std::vector<part> parts;  // the suffixes
  std::string display;      // the mnemonic shown in usage messages

  // An error at the first suffix (at the mnemonic when it has none).
  [[noreturn]] void bad_suffix(const std::string& expected) const;
  // An error at suffix i (at the mnemonic when it has fewer).
  [[noreturn]] void bad_part(std::size_t i, const std::string& expected) const;
  // A mnemonic of a family that takes no suffix.
  void no_suffix() const;
  // The operand count must be `want` (`use`: the operands, shown in the error); then the
  // line's labels are defined at this instruction.
  void operands(unsigned want, const std::string& use) const;

  // Operands 0..n-1 as general registers rd, ra, rb, rc (after the count check).
  void registers(unsigned n, const std::string& use);

  std::uint8_t reg(std::size_t i) const { return a.reg(ops[i]); }
  std::uint8_t pred(std::size_t i) const { return a.pred(ops[i]); }
};

// A family's decoder: reads the suffixes and the operands into d.in (then the line's labels
// are defined at the instruction).
using family_decoder = void(decoder& d);

// Decodes the instruction whose mnemonic is `head` into `in` (guard, line and text are set).
void decode(assembler& a, const token& head, const std::vector<token>& labels, const std::vector<operand>& ops,
            instr& in);

// Integer and floating-point arithmetic, comparisons, moves, and 64-bit values in register
// pairs (simt_asm_decode_arith.cpp).
family_decoder decode_alu, decode_mul, decode_r4, decode_unary, decode_falu, decode_cvt, decode_setp, decode_selp,
    decode_mov, decode_ldparam, decode_plogic, decode_mov64, decode_cvt64, decode_add64, decode_logic64;

// Memory accesses (simt_asm_decode_memory.cpp).
family_decoder decode_ld, decode_st, decode_atom, decode_mbarrier, decode_tma;

// Control flow and warp-wide instructions (simt_asm_decode_control.cpp); decode_plain: exit
// and nop.
family_decoder decode_bra, decode_bar, decode_plain, decode_shfl, decode_elect;

// Matrix multiply-accumulate (simt_asm_decode_mma.cpp).
family_decoder decode_wgmma, decode_mma;

}  // namespace flynn::simt::assembly

// The SIMT assembler's line reader and the operand readers its instruction decoders share
// (syntax: docs/isa/simt.md).
//
// Two passes: every line is parsed into instructions (branch targets are recorded as
// fixups), then the fixups are resolved, so labels may be used before they are defined.
// The first error ends assembly with an input_error "FILE:LINE:COL: expected X, found Y"
// (COL 1-based, at the offending token).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "asm_lexer.h"
#include "flynn/platform/simt_asm.h"

namespace flynn::simt::assembly {

using namespace asm_lexer;

// A general register r0..r255 or a predicate p0..p7 (case-insensitive; no leading zeros).
bool is_register_name(const std::string& s);

constexpr const char* imm_desc = "a 32-bit integer (decimal or 0x hex) or a binary32 number";
constexpr const char* int_desc = "a 32-bit integer (decimal or 0x hex)";

class assembler : asm_lexer::line_assembler<std::uint32_t> {  // labels: instruction indices
 public:
  explicit assembler(const std::string& file) : line_assembler(file) {}

  kernel run(const std::string& text);

  using line_assembler::check_count;
  using line_assembler::fail;
  using line_assembler::fail_hint;

  // Defines the labels that start the current line at the next instruction.
  void define_labels(const std::vector<token>& labels);

  // A 32-bit immediate: [-]INTEGER (decimal or 0x hex, -2^31 .. 2^32 - 1, stored as
  // written) or, when float_ok, [-]DECIMAL with '.' or an exponent (stored as the binary32
  // bit pattern).
  static num parse_imm(const operand& o, bool float_ok, std::int64_t& v);

  std::uint8_t reg(const operand& o) const;
  std::uint8_t pred(const operand& o) const;
  // Second source: rb or an immediate (sets b_imm).
  void source2(const operand& o, instr& in) const;
  // A general register (ra), a special register (sreg) or an immediate (b_imm).
  void mov_source(const operand& o, instr& in) const;
  // A general register (r) or an integer (is_imm and imm).
  void reg_or_int(const operand& o, std::uint8_t& r, bool& is_imm, std::uint32_t& imm) const;
  // "rd|pd" (true, both set) or a single operand (false, nothing set).
  bool reg_pred_pair(const operand& o, instr& in) const;
  // An unsigned number 0..max.
  std::uint64_t small_number(const operand& o, std::uint64_t max, const std::string& expected) const;
  // [ra+imm] | [ra-imm] | [ra]; with wide, also [ra:ra+1+imm] (a 64-bit address in a
  // register pair) and [imm] (an absolute address).
  void memory(const operand& o, instr& in, bool wide = false) const;
  // The first register of a 64- or 128-bit access must start an aligned group.
  void check_group(const operand& o, std::uint8_t r, std::uint8_t width) const;
  // A branch target label (resolved after the last line).
  void target(const operand& o);

 private:
  void do_line(std::string line);
  void directive(const token& head, const std::vector<token>& labels, const std::vector<operand>& ops,
                 unsigned eol_col);
  void resolve();

  kernel k_;
  unsigned name_line_ = 0;  // line of the .kernel directive (0: none yet)
  std::vector<asm_lexer::label_ref> fixups_;
};

}  // namespace flynn::simt::assembly

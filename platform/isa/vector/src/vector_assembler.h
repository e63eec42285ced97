// The vector machine's assembler (syntax: docs/isa/vector.md).
//
// Two passes: every line is parsed into instructions and data (label references are
// recorded as fixups), then the fixups are resolved, so labels may be used before they are
// defined. The first error ends assembly with an input_error "FILE:LINE:COL: expected X,
// found Y" (COL 1-based, at the offending token).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "asm_lexer.h"
#include "flynn/platform/vector_asm.h"

namespace flynn::vec::assembly {

using namespace asm_lexer;

// A scalar register r0..r15 or a vector register v0..v7 (case-insensitive; no leading zeros).
bool is_register_name(const std::string& s);

// Operand layouts; see isa.h for the field mapping.
enum class form {
  li, mov, alu, falu, ld, st, br1, br, none, setvl, setvs, vmpop,
  vld, vst, vldx, vstx, varith, vfarith, vcmp, pw, p
};

struct label_def {
  bool text = false;         // text label (instruction index) or data label (byte address)
  std::uint64_t value = 0;
};

// A label reference: a branch target (text label) or an address or immediate (data label,
// plus offset).
struct fixup : asm_lexer::label_ref {
  bool target = false;
  std::int64_t offset = 0;
};

class assembler : asm_lexer::line_assembler<label_def> {
 public:
  explicit assembler(const std::string& file) : line_assembler(file) {}

  program run(const std::string& text);

 private:
  void do_line(std::string line);
  void define_labels(const std::vector<token>& labels);

  // Instructions (vector_asm_decode.cpp).
  void instruction(const token& head, const std::vector<token>& labels, const std::vector<operand>& ops,
                   const std::string& text);
  void read_operands(form f, const std::vector<operand>& ops, instr& in);

  // Directives and data (vector_asm_data.cpp).
  void directive(const token& head, const std::vector<token>& labels, const std::vector<operand>& ops,
                 unsigned eol_col);
  void emit(const std::vector<std::uint64_t>& words, const token& head);

  // An integer operand: [-]number. `bad_col` is set when it looks like a number but is not
  // a valid 64-bit one.
  static num parse_int(const operand& o, std::int64_t& v, unsigned& bad_col);
  std::int64_t integer(const operand& o, const std::string& expected) const;

  std::uint8_t sreg(const operand& o) const;
  std::uint8_t vreg(const operand& o) const;
  // Second source: sets kind and rb or imm.
  void source2(const operand& o, instr& in, bool vector_ok, bool scalar_ok, bool imm_ok) const;
  // An integer or a data label with an optional +/- offset. Label references become fixups
  // on code[index].imm.
  void address_expr(const operand& o, std::int64_t& value, const std::string& expected);
  // [ra+imm] | [ra-imm] | [ra] | [ra]+ (post_ok) | address expression (ra = no_reg).
  void memory(const operand& o, instr& in, bool post_ok);
  void target(const operand& o);
  void resolve();

  program prog_;
  bool in_data_ = false;
  std::uint64_t cursor_ = 0;  // next data address
  static constexpr std::uint64_t max_data_words = std::uint64_t(1) << 24;
  std::uint64_t data_words_ = 0;  // data words so far
  std::vector<fixup> fixups_;
};

}  // namespace flynn::vec::assembly

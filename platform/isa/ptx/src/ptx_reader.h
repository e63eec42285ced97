// The PTX reader: the parser of directives, declarations and statements over the lexer's
// tokens, and the operand checks the instruction decoders (ptx_decode.h) share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "flynn/platform/ptx.h"
#include "ptx_lexer.h"

namespace flynn::ptx {

// The type named s ("u32", "pred", ...), none for any other name.
dtype type_named(const std::string& s);

// One comma-separated operand of an instruction, as written.
struct raw_operand {
  std::vector<token> toks;
  std::uint32_t line = 0, col = 0;
  std::string text;
};

// What an operand may be besides a register (value's `allow`).
enum accept_t : unsigned { reg_only = 0, allow_imm = 1, allow_sreg = 2, allow_symbol = 4, allow_neg = 8 };

class reader {
 public:
  reader(const std::string& text, std::string file);

  module run();

  // ------------------------------------------------------------------ operands (ptx_operands.cpp)
  [[noreturn]] void fail(std::uint32_t line, std::uint32_t col, const std::string& expected, const std::string& f) const {
    fail_at(file_, line, col, expected, f);
  }
  [[noreturn]] void fail(const token& t, const std::string& expected, const std::string& f) const {
    fail(t.line, t.col, expected, f);
  }
  [[noreturn]] void fail(const token& t, const std::string& expected) const { fail(t, expected, found(t)); }
  [[noreturn]] void unsupported(const token& op, const std::string& why = "");
  // Exactly n operands for op.
  void need(const token& op, const std::vector<raw_operand>& ops, unsigned n);

  // The operand's register for type ty (0 min_reg_bytes: of its size exactly; otherwise at
  // least that wide), or what `allow` lets it be besides.
  operand value(const raw_operand& o, const token& op, dtype ty, unsigned allow, unsigned min_reg_bytes = 0);
  // An immediate for type ty: an integer (decimal, hex, octal, optionally negative) or, for
  // a float type, 0fXXXXXXXX (binary32 bits) or 0dXXXXXXXXXXXXXXXX.
  std::uint64_t immediate(const raw_operand& o, dtype ty);
  // [reg], [reg+off], [reg+-off], [symbol], [symbol+off], [off]
  operand address(const raw_operand& o, space sp);
  // {%a, %b, ...}: `count` registers of the type's size, kept in in.group.
  operand group(const raw_operand& o, const token& op, dtype ty, unsigned count, instruction& in);

  dtype reg_type(std::uint32_t r) const { return k_->regs[r].type; }
  const param& param_at(std::int32_t i) const { return k_->params[static_cast<std::size_t>(i)]; }
  // A branch to `label` from the instruction being read, resolved when its scope closes.
  void branch_to(const token& label) { pending_.back().emplace_back(k_->code.size(), label); }

 private:
  // ------------------------------------------------------------------ tokens
  const token& peek(std::size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  const token& next() {
    const token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  const token& expect(const std::string& s, const std::string& what = "");
  bool accept(const std::string& s);
  const token& identifier(const std::string& what);
  std::uint64_t unsigned_number(const std::string& what);
  // The tokens to the end of the current line (directives without ';': .version, .loc, ...).
  void skip_line(std::uint32_t line) {
    while (peek().kind != token::end && peek().line == line) next();
  }

  // ------------------------------------------------------------------ module level (ptx_reader.cpp)
  void top_level();
  void file_directive();
  // .shared [.align N] .TYPE name[N]; (or name[] when extern)
  void shared_declaration(bool is_extern, std::vector<shared_var>& into);
  void entry();
  void params(kernel& k);
  // The kernel's shared variables placed: the static ones in order, aligned; extern ones after them.
  void place_shared(kernel& k);
  // Keeps only the registers the instructions name (nvcc declares %r<N> ranges whose first
  // register, at least, is never used), renumbered in order of declaration.
  static void compact_registers(kernel& k);

  // ------------------------------------------------------------------ kernel bodies (ptx_body.cpp)
  // The statements of a { } scope, up to its closing brace.
  void body(const token& open);
  // The end of a nested scope: its names go, the outer names they hid come back.
  void close_scope();
  void define_label(const token& t);
  // .reg .TYPE %name<N>; or .reg .TYPE %a, %b;
  void reg_declaration();
  void declare(const token& at, const std::string& name, dtype ty);
  void instruction_statement();
  // The operands of an instruction, up to its ';'.
  std::vector<raw_operand> operands();
  // The instruction's text for messages and traces: its source line, trimmed.
  std::string statement_text(std::uint32_t line) const;
  // At the end of a scope: its branches to its labels are resolved, the others go to the
  // enclosing scope (at the end of the kernel: every branch must be resolved).
  void resolve_labels(bool kernel_end);

  // ------------------------------------------------------------------ names (ptx_operands.cpp)
  std::uint32_t reg_of(const token& t, dtype want_class);
  std::int32_t shared_index(const std::string& n) const;
  std::int32_t param_index(const std::string& n) const;

  std::string file_;
  module m_;
  std::vector<token> toks_;
  std::vector<std::string> lines_;
  std::size_t pos_ = 0;
  kernel* k_ = nullptr;
  std::vector<std::map<std::string, std::uint32_t>> scopes_;
  std::map<std::string, std::uint32_t> regs_by_name_;
  std::uint64_t declared_ = 0;  // registers declared in the whole file
  // Labels are local to the { } scope that defines them (nvcc's inline assembly repeats its
  // labels, each copy in a scope of its own): per open scope, its labels and the branches
  // made in it not resolved yet.
  std::vector<std::map<std::string, std::uint32_t>> labels_;
  std::vector<std::vector<std::pair<std::size_t, token>>> pending_;
  std::vector<shared_var> module_shared_, shared_;
  std::uint32_t loc_file_ = 0, loc_line_ = 0;
};

}  // namespace flynn::ptx

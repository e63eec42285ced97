// The vector assembler's line loop, label resolution and operand readers; instructions are
// decoded in vector_asm_decode.cpp, directives and data read in vector_asm_data.cpp.
#include "flynn/platform/vector_asm.h"

#include "flynn/platform/errors.h"
#include "vector_assembler.h"

namespace flynn::vec {

program assemble(const std::string& text, const std::string& file) {
  return assembly::assembler(file).run(text);
}

program assemble_file(const std::string& path) {
  return assemble(read_source(path, "a program file (vector assembly)"), path);
}

namespace assembly {

bool is_register_name(const std::string& s) {
  std::uint8_t n = 0;
  return register_number(s, 'r', 16, n) || register_number(s, 'v', 8, n);
}

program assembler::run(const std::string& text) {
  prog_.file = file_;
  each_line(text, [this](std::string line) { do_line(std::move(line)); }, prog_.code);
  resolve();
  return std::move(prog_);
}

void assembler::do_line(std::string text) {
  const line_tokens l = split_line(std::move(text), "", is_register_name, "a label name that is not a register name");
  if (l.k == l.toks.size()) {
    define_labels(l.labels);
    return;
  }
  const token& head = l.toks[l.k];
  if (head.kind != token::ident) fail(head.col, "an instruction, a directive or a label", quoted(head.s));

  const std::vector<operand> ops = asm_lexer::split_operands(l.toks, l.k + 1, l.text, l.eol_col);

  if (head.s[0] == '.') {
    directive(head, l.labels, ops, l.eol_col);
    return;
  }
  instruction(head, l.labels, ops, l.text.substr(head.col - 1));
}

void assembler::define_labels(const std::vector<token>& labels) {
  for (const token& l : labels) {
    define_label(l, label_def{!in_data_, in_data_ ? cursor_ : prog_.code.size()});
    if (in_data_) prog_.symbols.emplace_back(l.s, cursor_);
  }
}

void assembler::resolve() {
  for (const fixup& f : fixups_) {
    const label_def& d = label(f.label, f.line, f.col);
    instr& in = prog_.code[f.index];
    if (f.target) {
      if (!d.text) fail(f.line, f.col, "a branch target (a text label)", quoted(f.label) + " (a data label)");
      in.target = static_cast<std::uint32_t>(d.value);
    } else {
      if (d.text)
        fail(f.line, f.col, "a data label (text labels are branch targets)", quoted(f.label) + " (a text label)");
      in.imm = static_cast<std::int64_t>(d.value + static_cast<std::uint64_t>(f.offset));
    }
  }
}

// ---- numbers --------------------------------------------------------------------------

num assembler::parse_int(const operand& o, std::int64_t& v, unsigned& bad_col) {
  const auto& t = o.toks;
  const bool neg = asm_lexer::is_punct(t, 0, "-");
  const std::size_t i = neg ? 1 : 0;
  if (t.size() != i + 1 || t[i].kind != token::number) {
    if (!t.empty() && t[i < t.size() ? i : 0].kind == token::number) {
      bad_col = o.col;
      return num::bad;
    }
    return num::not_number;
  }
  std::uint64_t m = 0;
  if (!parse_magnitude(t[i].s, m) || (neg && m > (std::uint64_t{1} << 63))) {
    bad_col = o.col;
    return num::bad;
  }
  v = static_cast<std::int64_t>(neg ? ~m + 1 : m);
  return num::ok;
}

std::int64_t assembler::integer(const operand& o, const std::string& expected) const {
  std::int64_t v = 0;
  unsigned bad = 0;
  switch (parse_int(o, v, bad)) {
    case num::ok: return v;
    case num::bad: fail(bad, "a 64-bit integer (decimal or 0x hex)", o.found());
    case num::not_number: break;
  }
  fail(o.col, expected, o.found());
}

// ---- operands -------------------------------------------------------------------------

std::uint8_t assembler::sreg(const operand& o) const {
  std::uint8_t n = 0;
  if (o.toks.size() == 1 && register_number(o.toks[0].s, 'r', 16, n)) return n;
  fail(o.col, "a scalar register r0..r15", o.found());
}

std::uint8_t assembler::vreg(const operand& o) const {
  std::uint8_t n = 0;
  if (o.toks.size() == 1 && register_number(o.toks[0].s, 'v', 8, n)) return n;
  fail(o.col, "a vector register v0..v7", o.found());
}

void assembler::source2(const operand& o, instr& in, bool vector_ok, bool scalar_ok, bool imm_ok) const {
  std::uint8_t n = 0;
  if (o.toks.size() == 1) {
    if (vector_ok && register_number(o.toks[0].s, 'v', 8, n)) {
      in.kind = src2::vreg;
      in.rb = n;
      return;
    }
    if (scalar_ok && register_number(o.toks[0].s, 'r', 16, n)) {
      in.kind = src2::reg;
      in.rb = n;
      return;
    }
  }
  std::vector<std::string> kinds;
  if (vector_ok) kinds.emplace_back("a vector register v0..v7");
  if (scalar_ok) kinds.emplace_back("a scalar register r0..r15");
  if (imm_ok) kinds.emplace_back("an integer");
  std::string expected;
  for (std::size_t i = 0; i < kinds.size(); ++i)
    expected += (i == 0 ? "" : (i + 1 == kinds.size() ? " or " : ", ")) + kinds[i];
  if (!imm_ok) fail(o.col, expected, o.found());
  in.kind = src2::imm;
  in.imm = integer(o, expected);
}

void assembler::address_expr(const operand& o, std::int64_t& value, const std::string& expected) {
  std::int64_t v = 0;
  unsigned bad = 0;
  switch (parse_int(o, v, bad)) {
    case num::ok: value = v; return;
    case num::bad: fail(bad, "a 64-bit integer (decimal or 0x hex)", o.found());
    case num::not_number: break;
  }
  const auto& t = o.toks;
  if (t.empty() || t[0].kind != token::ident || !asm_lexer::valid_label_name(t[0].s) || is_register_name(t[0].s))
    fail(o.col, expected, o.found());
  fixup f;
  f.index = prog_.code.size();
  f.label = t[0].s;
  f.line = line_;
  f.col = t[0].col;
  if (t.size() > 1) {
    if (t.size() != 3 || t[1].kind != token::punct || (t[1].s != "+" && t[1].s != "-"))
      fail(o.col, expected, o.found());
    if (t[2].kind != token::number) fail(t[2].col, "an integer offset", quoted(t[2].s));
    std::uint64_t m = 0;
    if (!parse_magnitude(t[2].s, m)) fail(t[2].col, "a 64-bit integer (decimal or 0x hex)", quoted(t[2].s));
    f.offset = static_cast<std::int64_t>(t[1].s == "-" ? ~m + 1 : m);
  }
  value = 0;
  fixups_.push_back(std::move(f));
}

void assembler::memory(const operand& o, instr& in, bool post_ok) {
  const std::string expected = post_ok ? "a memory operand [rN+imm], [rN-imm], [rN], [rN]+ or a data label"
                                       : "a memory operand [rN+imm], [rN-imm], [rN] or a data label";
  const auto& t = o.toks;
  if (!asm_lexer::is_punct(t, 0, "[")) {
    address_expr(o, in.imm, expected);
    in.ra = no_reg;
    return;
  }
  if (t.size() < 2) fail(o.col, expected, o.found());
  std::uint8_t n = 0;
  if (!register_number(t[1].s, 'r', 16, n)) fail(t[1].col, "a scalar register r0..r15", quoted(t[1].s));
  in.ra = n;
  in.imm = 0;
  if (asm_lexer::is_punct(t, 2, "]")) {
    if (t.size() == 3) return;
    if (t.size() == 4 && asm_lexer::is_punct(t, 3, "+")) {
      if (!post_ok) fail(t[3].col, expected + " (post-increment [rN]+ is only for ld and st)", o.found());
      in.post_inc = true;
      return;
    }
    fail(t[3].col, expected, o.found());
  }
  if (memory_offset(t, 2, std::uint64_t{1} << 63, ~std::uint64_t{0}, "a 64-bit integer (decimal or 0x hex)", in.imm))
    return;
  fail(o.col, expected, o.found());
}

void assembler::target(const operand& o) {
  fixup f;
  static_cast<asm_lexer::label_ref&>(f) =
      target_ref(o, prog_.code.size(), is_register_name, "a branch target (a text label)");
  f.target = true;
  fixups_.push_back(std::move(f));
}

}  // namespace assembly

}  // namespace flynn::vec

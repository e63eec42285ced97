// The SIMT assembler's line loop, directives, label resolution and operand readers; the
// instructions are decoded by family (simt_asm_decode.h).
#include "flynn/platform/simt_asm.h"

#include <charconv>
#include <filesystem>
#include <system_error>

#include "flynn/common/bits.h"
#include "flynn/platform/errors.h"
#include "simt_asm_decode.h"

namespace flynn::simt {

namespace assembly {

namespace {

struct special_name {
  const char* name;
  special s;
};
const special_name specials[] = {{"%tid", special::tid},         {"%ntid", special::ntid},
                                 {"%ctaid", special::ctaid},     {"%nctaid", special::nctaid},
                                 {"%laneid", special::laneid},   {"%warpid", special::warpid},
                                 {"%tid.x", special::tid},       {"%tid.y", special::tid_y},
                                 {"%tid.z", special::tid_z},     {"%ntid.x", special::ntid},
                                 {"%ntid.y", special::ntid_y},   {"%ntid.z", special::ntid_z},
                                 {"%ctaid.x", special::ctaid},   {"%ctaid.y", special::ctaid_y},
                                 {"%ctaid.z", special::ctaid_z}, {"%nctaid.x", special::nctaid},
                                 {"%nctaid.y", special::nctaid_y}, {"%nctaid.z", special::nctaid_z}};
const char* const special_list = "%tid, %ntid, %ctaid, %nctaid (each also .x, .y, .z), %laneid or %warpid";

// Unsigned integer literal: decimal or 0x hex, up to 2^64 - 1.
bool is_hex_literal(const std::string& s) {
  return s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

// A decimal literal with a '.' or an exponent is a binary32 number.
bool is_float_literal(const std::string& s) {
  return !is_hex_literal(s) && s.find_first_of(".eE") != std::string::npos;
}

// A 32-bit integer written as a signed or unsigned value: -2^31 .. 2^32 - 1.
bool fits_32(bool neg, std::uint64_t m) {
  return neg ? m <= (std::uint64_t{1} << 31) : m <= 0xffffffffu;
}

}  // namespace

bool is_register_name(const std::string& s) {
  std::uint8_t n = 0;
  return register_number(s, 'r', num_registers, n) || register_number(s, 'p', 8, n);
}

kernel assembler::run(const std::string& text) {
  k_.file = file_;
  each_line(text, [this](std::string line) { do_line(std::move(line)); }, k_.code);
  resolve();
  if (name_line_ == 0) k_.name = std::filesystem::path(file_).stem().string();
  return std::move(k_);
}

void assembler::do_line(std::string text) {
  const line_tokens l =
      split_line(std::move(text), "%", is_register_name, "a label name that is not a register or predicate name");
  const std::vector<token>& toks = l.toks;
  std::size_t k = l.k;
  if (k == toks.size()) {
    define_labels(l.labels);
    return;
  }

  // Guard: @pN or @!pN.
  const std::size_t start = k;
  bool guarded = false, neg = false;
  std::uint8_t guard = no_pred;
  if (asm_lexer::is_punct(toks, k, "@")) {
    guarded = true;
    ++k;
    if (asm_lexer::is_punct(toks, k, "!")) {
      neg = true;
      ++k;
    }
    if (k == toks.size()) fail(l.eol_col, "a guard predicate p0..p7", "end of line");
    if (toks[k].kind != token::ident || !register_number(toks[k].s, 'p', 8, guard))
      fail(toks[k].col, "a guard predicate p0..p7", quoted(toks[k].s));
    ++k;
    if (k == toks.size()) fail(l.eol_col, "an instruction after the guard", "end of line");
  }

  const token& head = toks[k];
  if (head.kind != token::ident)
    fail(head.col, guarded ? "an instruction mnemonic" : "an instruction, a directive or a label", quoted(head.s));
  if (guarded && head.s[0] == '.')
    fail(head.col, "an instruction mnemonic (directives cannot be guarded)", quoted(head.s));

  const std::vector<operand> ops = asm_lexer::split_operands(toks, k + 1, l.text, l.eol_col);

  if (head.s[0] == '.') {
    directive(head, l.labels, ops, l.eol_col);
    return;
  }
  instr in;
  in.guard = guard;
  in.guard_neg = neg;
  in.line = line_;
  in.text = l.text.substr(toks[start].col - 1);
  decode(*this, head, l.labels, ops, in);
  k_.code.push_back(std::move(in));
}

void assembler::define_labels(const std::vector<token>& labels) {
  for (const token& l : labels) define_label(l, static_cast<std::uint32_t>(k_.code.size()));
}

void assembler::directive(const token& head, const std::vector<token>& labels, const std::vector<operand>& ops,
                          unsigned eol_col) {
  const std::string name = lower(head.s);
  if (name != ".kernel") fail_hint(head.col, "a directive (.kernel)", did_you_mean(name, {".kernel"}), quoted(head.s));
  const std::string exp = "a kernel name (a letter or '_', then letters, digits or '_')";
  if (ops.empty()) fail(eol_col, exp, "end of line");
  if (ops.size() > 1) fail(ops[1].col, "end of line (.kernel NAME)", ops[1].found());
  const operand& o = ops[0];
  if (o.toks.size() != 1 || !asm_lexer::valid_label_name(o.toks[0].s)) fail(o.col, exp, o.found());
  if (name_line_ != 0)
    fail(head.col,
         "one .kernel directive (the kernel is named '" + k_.name + "' at line " + std::to_string(name_line_) + ")",
         quoted(head.s));
  define_labels(labels);
  k_.name = o.toks[0].s;
  name_line_ = line_;
}

void assembler::resolve() {
  for (const auto& f : fixups_) k_.code[f.index].target = label(f.label, f.line, f.col);
}

// ---- numbers --------------------------------------------------------------------------

num assembler::parse_imm(const operand& o, bool float_ok, std::int64_t& v) {
  const auto& t = o.toks;
  if (t.empty()) return num::not_number;
  const bool neg = asm_lexer::is_punct(t, 0, "-");
  const std::size_t i = neg ? 1 : 0;
  if (i >= t.size() || t[i].kind != token::number) return i == 1 ? num::bad : num::not_number;
  if (t.size() != i + 1) return num::bad;
  const std::string& s = t[i].s;
  if (float_ok && is_float_literal(s)) {
    float f = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), f);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return num::bad;
    v = static_cast<std::int64_t>(float_to_bits(neg ? -f : f));
    return num::ok;
  }
  std::uint64_t m = 0;
  if (!parse_magnitude(s, m) || !fits_32(neg, m)) return num::bad;
  v = neg ? -static_cast<std::int64_t>(m) : static_cast<std::int64_t>(m);
  return num::ok;
}

std::uint64_t assembler::small_number(const operand& o, std::uint64_t max, const std::string& expected) const {
  std::uint64_t m = 0;
  const auto& t = o.toks;
  if (t.size() != 1 || t[0].kind != token::number || !parse_magnitude(t[0].s, m) || m > max)
    fail(o.col, expected, o.found());
  return m;
}

// ---- operands -------------------------------------------------------------------------

std::uint8_t assembler::reg(const operand& o) const {
  std::uint8_t n = 0;
  if (o.toks.size() == 1 && register_number(o.toks[0].s, 'r', num_registers, n)) return n;
  if (o.toks.size() == 1 && o.toks[0].s[0] == '%')
    fail(o.col, "a general register r0..r255 (special registers are read with mov)", o.found());
  fail(o.col, "a general register r0..r255", o.found());
}

std::uint8_t assembler::pred(const operand& o) const {
  std::uint8_t n = 0;
  if (o.toks.size() == 1 && register_number(o.toks[0].s, 'p', 8, n)) return n;
  fail(o.col, "a predicate p0..p7", o.found());
}

void assembler::source2(const operand& o, instr& in) const {
  std::uint8_t n = 0;
  if (o.toks.size() == 1 && register_number(o.toks[0].s, 'r', num_registers, n)) {
    in.rb = n;
    return;
  }
  const std::string expected = "a general register r0..r255 or an immediate";
  switch (parse_imm(o, true, in.imm)) {
    case num::ok: in.b_imm = true; return;
    case num::bad: fail(o.col, imm_desc, o.found());
    case num::not_number: break;
  }
  if (o.toks.size() == 1 && o.toks[0].s[0] == '%')
    fail(o.col, expected + " (special registers are read with mov)", o.found());
  fail(o.col, expected, o.found());
}

void assembler::mov_source(const operand& o, instr& in) const {
  const std::string expected =
      std::string("a general register r0..r255, a special register (") + special_list + ") or an immediate";
  if (o.toks.size() == 1 && o.toks[0].s[0] == '%') {
    const std::string s = lower(o.toks[0].s);
    for (const auto& sp : specials) {
      if (s == sp.name) {
        in.sreg = sp.s;
        return;
      }
    }
    std::vector<std::string> names;
    for (const auto& sp : specials) names.emplace_back(sp.name);
    fail_hint(o.col, std::string("a special register ") + special_list, did_you_mean(s, names), o.found());
  }
  std::uint8_t n = 0;
  if (o.toks.size() == 1 && register_number(o.toks[0].s, 'r', num_registers, n)) {
    in.ra = n;
    return;
  }
  switch (parse_imm(o, true, in.imm)) {
    case num::ok: in.b_imm = true; return;
    case num::bad: fail(o.col, imm_desc, o.found());
    case num::not_number: break;
  }
  fail(o.col, expected, o.found());
}

void assembler::reg_or_int(const operand& o, std::uint8_t& r, bool& is_imm, std::uint32_t& imm) const {
  std::uint8_t x = 0;
  if (o.toks.size() == 1 && register_number(o.toks[0].s, 'r', num_registers, x)) {
    r = x;
    return;
  }
  std::int64_t v = 0;
  if (parse_imm(o, false, v) != num::ok) fail(o.col, "a general register r0..r255 or an integer", o.found());
  is_imm = true;
  imm = static_cast<std::uint32_t>(v);
}

bool assembler::reg_pred_pair(const operand& o, instr& in) const {
  const auto& t = o.toks;
  if (!(t.size() == 3 && t[1].s == "|")) return false;
  std::uint8_t n = 0;
  if (!register_number(t[0].s, 'r', num_registers, n)) fail(o.col, "a general register r0..r255", quoted(t[0].s));
  in.rd = n;
  if (!register_number(t[2].s, 'p', 8, n)) fail(t[2].col, "a predicate p0..p7", quoted(t[2].s));
  in.pd = n;
  return true;
}

void assembler::memory(const operand& o, instr& in, bool wide) const {
  const std::string expected = wide ? "a memory operand [rN+imm], [rN-imm], [rN], [rN:rN+1+imm] or [imm]"
                                    : "a memory operand [rN+imm], [rN-imm] or [rN]";
  std::vector<token> t = o.toks;  // without the ":rN+1" of a register pair
  std::uint8_t n = 0, hi = 0;
  if (wide && t.size() > 3 && asm_lexer::is_punct(t, 2, ":")) {
    const token& h = t[3];
    if (!register_number(t[1].s, 'r', num_registers, n) || !register_number(h.s, 'r', num_registers, hi) ||
        hi != n + 1u)
      fail(h.col, "the pair's high register (rN:rN+1)", quoted(h.s));
    t.erase(t.begin() + 2, t.begin() + 4);
    in.addr64 = true;
  }
  if (!asm_lexer::is_punct(t, 0, "[") || t.size() < 2) fail(o.col, expected, o.found());
  in.imm = 0;
  if (wide && t[1].kind == token::number && t.size() == 3 && asm_lexer::is_punct(t, 2, "]")) {
    std::uint64_t m = 0;
    if (!parse_magnitude(t[1].s, m) || m > 0xffffffffu) fail(t[1].col, int_desc, asm_lexer::quoted(t[1].s));
    in.abs_addr = true;
    in.imm = static_cast<std::int64_t>(m);
    return;
  }
  if (!register_number(t[1].s, 'r', num_registers, n))
    fail(t[1].col, "a general register r0..r255", asm_lexer::quoted(t[1].s));
  in.ra = n;
  if (asm_lexer::is_punct(t, 2, "]") && t.size() == 3) return;
  if (memory_offset(t, 2, std::uint64_t{1} << 31, 0xffffffffu, int_desc, in.imm)) return;
  fail(t.size() > 2 ? t[2].col : o.col, expected, o.found());
}

void assembler::check_group(const operand& o, std::uint8_t r, std::uint8_t width) const {
  if (width == 8 && r % 2 != 0)
    fail(o.col, "an even register r0, r2, .., r254 (a 64-bit access uses rN, rN+1)", o.found());
  if (width == 16 && r % 4 != 0)
    fail(o.col, "a register that is a multiple of 4: r0, r4, .., r252 (a 128-bit access uses rN..rN+3)", o.found());
}

void assembler::target(const operand& o) {
  fixups_.push_back(target_ref(o, k_.code.size(), is_register_name, "a branch target (a label)"));
}

}  // namespace assembly

kernel assemble(const std::string& text, const std::string& file) {
  return assembly::assembler(file).run(text);
}

kernel assemble_file(const std::string& path) {
  return assemble(read_source(path, "a kernel file (SIMT assembly)"), path);
}

}  // namespace flynn::simt

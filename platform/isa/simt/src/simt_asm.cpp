// Assembler for the SIMT kernel language (syntax: docs/isa/simt.md).
//
// Two passes: every line is parsed into instructions (branch targets are recorded as
// fixups), then the fixups are resolved, so labels may be used before they are defined.
// The first error ends assembly with an input_error "FILE:LINE:COL: expected X, found Y"
// (COL 1-based, at the offending token).
#include "flynn/platform/simt_asm.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>
#include <vector>

#include "asm_lexer.h"
#include "flynn/common/bits.h"
#include "flynn/platform/errors.h"

namespace flynn::simt {

namespace {

using asm_lexer::lower;
using asm_lexer::operand;
using asm_lexer::parse_magnitude;
using asm_lexer::quoted;
using asm_lexer::register_number;
using asm_lexer::token;
using asm_lexer::valid_label_name;

// Operand layouts; see isa.h for the field mapping.
enum class form { mov, ldparam, alu, r4, unary, falu, setp, selp, ld, st, bra, none, mbar, mbar1, tma, tma_store, wgmma, count,
                  mov64, alu64, plogic, atom, shfl, elect, mma };

struct op_info {
  const char* name;  // the mnemonic's base (before the first '.')
  op code;
  form f;
};

const op_info op_table[] = {
    {"mov", op::mov, form::mov},      {"ldparam", op::ldparam, form::ldparam},
    {"add", op::add, form::alu},      {"sub", op::sub, form::alu},
    {"mul", op::mul, form::alu},      {"mulhi", op::mulhi, form::alu},
    {"mad", op::mad, form::r4},       {"div", op::div, form::alu},
    {"rem", op::rem, form::alu},      {"and", op::and_, form::alu},
    {"or", op::or_, form::alu},       {"xor", op::xor_, form::alu},
    {"not", op::not_, form::unary},   {"shl", op::shl, form::alu},
    {"shr", op::shr, form::alu},      {"sra", op::sra, form::alu},
    {"min", op::min, form::alu},      {"max", op::max, form::alu},
    {"fadd", op::fadd, form::falu},   {"fsub", op::fsub, form::falu},
    {"fmul", op::fmul, form::falu},   {"ffma", op::ffma, form::r4},
    {"fmin", op::fmin, form::falu},   {"fmax", op::fmax, form::falu},
    {"fdiv", op::fdiv, form::falu},   {"fsqrt", op::fsqrt, form::unary},
    {"cvt", op::cvt_f_s, form::unary}, {"setp", op::setp, form::setp},
    {"selp", op::selp, form::selp},   {"ld", op::ld, form::ld},
    {"st", op::st, form::st},         {"bra", op::bra, form::bra},
    {"bar", op::bar, form::none},     {"exit", op::exit, form::none},
    {"nop", op::nop, form::none},
    {"mbarrier", op::mbar_init, form::mbar}, {"tma", op::tma_load, form::tma},
    {"wgmma", op::wgmma, form::wgmma},
    {"mov64", op::mov64, form::mov64}, {"add64", op::add64, form::alu64},
    {"cvt64", op::cvt64, form::unary}, {"plogic", op::plogic, form::plogic},
    {"atom", op::atom, form::atom},    {"shfl", op::shfl, form::shfl},
    {"logic64", op::logic64, form::alu64}, {"elect", op::elect, form::elect},
    {"mma", op::mma_sync, form::mma},
};

const op_info* find_op(const std::string& base) {
  for (const auto& o : op_table)
    if (base == o.name) return &o;
  return nullptr;
}

// Suggestion for an unknown mnemonic: the nearest full form (cvt.f.s, bar.sync, ...), else
// the nearest base name.
std::string mnemonic_hint(const std::string& name, const std::string& base) {
  std::vector<std::string> full, bases;
  for (const auto& o : op_table) {
    bases.emplace_back(o.name);
    if (o.code == op::cvt_f_s) {
      full.emplace_back("cvt.f.s");
      full.emplace_back("cvt.s.f");
    } else {
      full.emplace_back(mnemonic(o.code));
    }
  }
  std::string hint = did_you_mean(name, full);
  if (hint.empty()) hint = did_you_mean(base, bases);
  return hint;
}

// Operand usage shown in operand-count errors.
const char* usage(form f) {
  switch (f) {
    case form::mov: return "rd, ra|imm|%sreg";
    case form::ldparam: return "rd, N";
    case form::alu: return "rd, ra, rb|imm";
    case form::r4: return "rd, ra, rb, rc";
    case form::unary: return "rd, ra";
    case form::falu: return "rd, ra, rb";
    case form::setp: return "pd, ra, rb|imm";
    case form::selp: return "rd, ra|imm, rb|imm, pa";
    case form::ld: return "rd, [ra+imm]";
    case form::st: return "[ra+imm], rb";
    case form::bra: return "label";
    case form::none: return "";
    case form::mbar: return "[ra+imm], rb|imm";
    case form::mbar1: return "[ra+imm]";
    case form::tma: return "[ra+imm], MAP, [rb], rc";
    case form::tma_store: return "[ra+imm], MAP, rc";
    case form::wgmma: return "rd, ra, rb, scale-d (0 or 1)";
    case form::count: return "N";
    case form::mov64: return "rd, ra|imm";
    case form::alu64: return "rd, ra, rb|imm";
    case form::plogic: return "pd, pa, pb";
    case form::atom: return "rd, [address], rb|imm";
    case form::shfl: return "rd[|pd], ra, rb|imm, rc|imm, re|imm";
    case form::elect: return "[rd|]pd, re|imm";
    case form::mma: return "rd, ra, rb, rc (D rd..rd+3, A ra..ra+3, B rb..rb+1, C rc..rc+3)";
  }
  return "";
}

unsigned operand_count(form f) {
  switch (f) {
    case form::none: return 0;
    case form::bra: case form::mbar1: case form::count: return 1;
    case form::mbar: case form::elect: return 2;
    case form::tma_store: return 3;
    case form::tma: case form::wgmma: case form::mma: return 4;
    case form::mov: case form::ldparam: case form::unary: case form::ld: case form::st: return 2;
    case form::alu: case form::falu: case form::setp: case form::alu64: case form::plogic: case form::atom: return 3;
    case form::shfl: return 5;
    case form::mov64: return 2;
    case form::r4: case form::selp: return 4;
  }
  return 0;
}

// "r5" -> 5 (prefix 'r', below `limit`). Case-insensitive; no leading zeros.
bool is_register_name(const std::string& s) {
  std::uint8_t n = 0;
  return register_number(s, 'r', num_registers, n) || register_number(s, 'p', 8, n);
}

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

struct fixup {
  std::size_t index = 0;
  std::string label;
  unsigned line = 0, col = 0;
};

class assembler : asm_lexer::line_assembler<std::uint32_t> {  // labels: instruction indices
 public:
  explicit assembler(const std::string& file) : line_assembler(file) {}

  kernel run(const std::string& text) {
    k_.file = file_;
    each_line(text, [this](std::string line) { do_line(std::move(line)); });
    if (k_.code.empty()) fail(1, 1, "at least one instruction", "none");
    resolve();
    if (name_line_ == 0) k_.name = std::filesystem::path(file_).stem().string();
    return std::move(k_);
  }

 private:
  static std::vector<token> tokenize(const std::string& s) { return asm_lexer::tokenize(s, "%"); }


  void do_line(std::string line) {
    line = asm_lexer::strip_comment(std::move(line));
    const unsigned eol_col = static_cast<unsigned>(line.size() + 1);

    const std::vector<token> toks = tokenize(line);
    std::size_t k = 0;
    const std::vector<token> labels =
        leading_labels(toks, k, is_register_name, "a label name that is not a register or predicate name");
    if (k == toks.size()) {
      define_labels(labels);
      return;
    }

    // Guard: @pN or @!pN.
    const std::size_t start = k;
    bool guarded = false, neg = false;
    std::uint8_t guard = no_pred;
    if (toks[k].kind == token::punct && toks[k].s == "@") {
      guarded = true;
      ++k;
      if (k < toks.size() && toks[k].kind == token::punct && toks[k].s == "!") {
        neg = true;
        ++k;
      }
      if (k == toks.size()) fail(eol_col, "a guard predicate p0..p7", "end of line");
      if (toks[k].kind != token::ident || !register_number(toks[k].s, 'p', 8, guard))
        fail(toks[k].col, "a guard predicate p0..p7", quoted(toks[k].s));
      ++k;
      if (k == toks.size()) fail(eol_col, "an instruction after the guard", "end of line");
    }

    const token& head = toks[k];
    if (head.kind != token::ident)
      fail(head.col, guarded ? "an instruction mnemonic" : "an instruction, a directive or a label",
           quoted(head.s));
    if (guarded && head.s[0] == '.')
      fail(head.col, "an instruction mnemonic (directives cannot be guarded)", quoted(head.s));

    const std::vector<operand> ops = asm_lexer::split_operands(toks, k + 1, line, eol_col);

    if (head.s[0] == '.') {
      directive(head, labels, ops, eol_col);
      return;
    }
    instr in;
    in.guard = guard;
    in.guard_neg = neg;
    in.line = line_;
    in.text = line.substr(toks[start].col - 1);
    instruction(head, labels, ops, in);
  }

  void define_labels(const std::vector<token>& labels) {
    for (const token& l : labels) define_label(l, static_cast<std::uint32_t>(k_.code.size()));
  }

  // ---- directives -------------------------------------------------------------------

  void directive(const token& head, const std::vector<token>& labels,
                 const std::vector<operand>& ops, unsigned eol_col) {
    const std::string name = lower(head.s);
    if (name != ".kernel") {
      const std::string hint = did_you_mean(name, {".kernel"});
      fail(head.col, "a directive (.kernel)" + (hint.empty() ? "" : " (" + hint + ")"),
           quoted(head.s));
    }
    const std::string exp = "a kernel name (a letter or '_', then letters, digits or '_')";
    if (ops.empty()) fail(eol_col, exp, "end of line");
    if (ops.size() > 1) fail(ops[1].col, "end of line (.kernel NAME)", ops[1].found());
    const operand& o = ops[0];
    if (o.toks.size() != 1 || !valid_label_name(o.toks[0].s)) fail(o.col, exp, o.found());
    if (name_line_ != 0)
      fail(head.col, "one .kernel directive (the kernel is named '" + k_.name + "' at line " +
                         std::to_string(name_line_) + ")",
           quoted(head.s));
    define_labels(labels);
    k_.name = o.toks[0].s;
    name_line_ = line_;
  }

  // ---- numbers ----------------------------------------------------------------------

  enum class num { ok, not_number, bad };

  // A 32-bit immediate: [-]INTEGER (decimal or 0x hex, -2^31 .. 2^32 - 1, stored as
  // written) or, when float_ok, [-]DECIMAL with '.' or an exponent (stored as the binary32
  // bit pattern).
  static num parse_imm(const operand& o, bool float_ok, std::int64_t& v) {
    const auto& t = o.toks;
    if (t.empty()) return num::not_number;
    std::size_t i = 0;
    bool neg = false;
    if (t[0].kind == token::punct && t[0].s == "-") {
      neg = true;
      i = 1;
    }
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

  static constexpr const char* imm_desc = "a 32-bit integer (decimal or 0x hex) or a binary32 number";
  static constexpr const char* int_desc = "a 32-bit integer (decimal or 0x hex)";

  // ---- operands ---------------------------------------------------------------------

  std::uint8_t reg(const operand& o) const {
    std::uint8_t n = 0;
    if (o.toks.size() == 1 && register_number(o.toks[0].s, 'r', num_registers, n)) return n;
    if (o.toks.size() == 1 && o.toks[0].s[0] == '%')
      fail(o.col, "a general register r0..r255 (special registers are read with mov)", o.found());
    fail(o.col, "a general register r0..r255", o.found());
  }

  std::uint8_t pred(const operand& o) const {
    std::uint8_t n = 0;
    if (o.toks.size() == 1 && register_number(o.toks[0].s, 'p', 8, n)) return n;
    fail(o.col, "a predicate p0..p7", o.found());
  }

  // Second source: rb or an immediate (sets b_imm).
  void source2(const operand& o, instr& in) const {
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

  void mov_source(const operand& o, instr& in) const {
    const std::string expected =
        std::string("a general register r0..r255, a special register (") + special_list +
        ") or an immediate";
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
      const std::string hint = did_you_mean(s, names);
      fail(o.col,
           std::string("a special register ") + special_list + (hint.empty() ? "" : " (" + hint + ")"),
           o.found());
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

  // [ra+imm] | [ra-imm] | [ra]; with wide, also [ra:ra+1+imm] (a 64-bit address in a
  // register pair) and [imm] (an absolute address).
  void memory(const operand& o, instr& in, bool wide = false) const {
    const std::string expected = wide ? "a memory operand [rN+imm], [rN-imm], [rN], [rN:rN+1+imm] or [imm]"
                                      : "a memory operand [rN+imm], [rN-imm] or [rN]";
    std::vector<token> pair_removed = o.toks;
    std::uint8_t n = 0, hi = 0;
    const bool pair = wide && pair_removed.size() > 3 && pair_removed[2].kind == token::punct && pair_removed[2].s == ":";
    if (pair) {
      const token& h = pair_removed[3];
      if (!register_number(pair_removed[1].s, 'r', num_registers, n) || !register_number(h.s, 'r', num_registers, hi) ||
          hi != n + 1u)
        fail(h.col, "the pair's high register (rN:rN+1)", asm_lexer::quoted(h.s));
      pair_removed.erase(pair_removed.begin() + 2, pair_removed.begin() + 4);
      in.addr64 = true;
    }
    const std::vector<token>& t = pair_removed;
    auto is = [&](std::size_t i, const char* s) {
      return i < t.size() && t[i].kind == token::punct && t[i].s == s;
    };
    if (!is(0, "[") || t.size() < 2) fail(o.col, expected, o.found());
    in.imm = 0;
    if (wide && t[1].kind == token::number && t.size() == 3 && is(2, "]")) {
      std::uint64_t m = 0;
      if (!parse_magnitude(t[1].s, m) || m > 0xffffffffu) fail(t[1].col, int_desc, quoted(t[1].s));
      in.abs_addr = true;
      in.imm = static_cast<std::int64_t>(m);
      return;
    }
    if (!register_number(t[1].s, 'r', num_registers, n))
      fail(t[1].col, "a general register r0..r255", quoted(t[1].s));
    in.ra = n;
    if (is(2, "]") && t.size() == 3) return;
    if ((is(2, "+") || is(2, "-")) && t.size() == 5 && is(4, "]")) {
      if (t[3].kind != token::number) fail(t[3].col, "an integer offset", quoted(t[3].s));
      std::uint64_t m = 0;
      const bool neg = t[2].s == "-";
      if (!parse_magnitude(t[3].s, m) || !fits_32(neg, m)) fail(t[3].col, int_desc, quoted(t[3].s));
      in.imm = neg ? -static_cast<std::int64_t>(m) : static_cast<std::int64_t>(m);
      return;
    }
    fail(t.size() > 2 ? t[2].col : o.col, expected, o.found());
  }

  // The first register of a 64- or 128-bit access must start an aligned group.
  void check_group(const operand& o, std::uint8_t r, std::uint8_t width) const {
    if (width == 8 && r % 2 != 0)
      fail(o.col, "an even register r0, r2, .., r254 (a 64-bit access uses rN, rN+1)", o.found());
    if (width == 16 && r % 4 != 0)
      fail(o.col, "a register that is a multiple of 4: r0, r4, .., r252 (a 128-bit access uses rN..rN+3)",
           o.found());
  }

  void target(const operand& o) {
    if (o.toks.size() != 1 || o.toks[0].kind != token::ident || !valid_label_name(o.toks[0].s) ||
        is_register_name(o.toks[0].s))
      fail(o.col, "a branch target (a label)", o.found());
    fixup f;
    f.index = k_.code.size();
    f.label = o.toks[0].s;
    f.line = line_;
    f.col = o.col;
    fixups_.push_back(std::move(f));
  }

  // ---- instructions -----------------------------------------------------------------

  struct part {
    std::string s;     // lower case, without the dot
    std::string orig;  // as written, with the dot
    unsigned col = 0;  // column of the dot
  };

  static std::vector<part> suffix_parts(const token& head, std::size_t base_len) {
    std::vector<part> parts;
    std::size_t i = base_len;
    while (i < head.s.size()) {  // head.s[i] == '.'
      std::size_t j = head.s.find('.', i + 1);
      if (j == std::string::npos) j = head.s.size();
      part p;
      p.orig = head.s.substr(i, j - i);
      p.s = lower(p.orig.substr(1));
      p.col = head.col + static_cast<unsigned>(i);
      parts.push_back(std::move(p));
      i = j;
    }
    return parts;
  }

  void instruction(const token& head, const std::vector<token>& labels,
                   const std::vector<operand>& ops, instr& in) {
    const std::string name = lower(head.s);
    const std::string base = name.substr(0, name.find('.'));
    const op_info* info = find_op(base);
    if (!info) {
      const std::string hint = mnemonic_hint(name, base);
      fail(head.col, "an instruction mnemonic" + (hint.empty() ? "" : " (" + hint + ")"),
           quoted(head.s));
    }
    in.code = info->code;
    const std::vector<part> parts = suffix_parts(head, base.size());
    const std::string rest = head.s.substr(base.size());
    std::string display = info->name;  // the mnemonic shown in usage messages

    form f = info->f;
    if (base == "mbarrier") {
      if (name == "mbarrier.init") in.code = op::mbar_init;
      else if (name == "mbarrier.arrive") in.code = op::mbar_arrive, f = form::mbar1;
      else if (name == "mbarrier.arrive.expect_tx") in.code = op::mbar_arrive_tx;
      else if (name == "mbarrier.wait") in.code = op::mbar_wait;
      else fail(parts.empty() ? head.col : parts[0].col,
                "mbarrier.init, mbarrier.arrive, mbarrier.arrive.expect_tx or mbarrier.wait",
                quoted(parts.empty() ? head.s : rest));
      display = mnemonic(in.code);
    } else if (base == "tma") {
      if (name == "tma.store") in.code = op::tma_store, f = form::tma_store;
      else if (name == "tma.wait") in.code = op::tma_wait, f = form::none;
      else if (name != "tma.load")
        fail(parts.empty() ? head.col : parts[0].col, "tma.load, tma.store or tma.wait", quoted(parts.empty() ? head.s : rest));
      display = mnemonic(in.code);
    } else if (base == "wgmma") {
      if (name == "wgmma.commit_group") {
        in.code = op::wgmma_commit;
        f = form::none;
        display = "wgmma.commit_group";
      } else if (name == "wgmma.wait_group") {
        in.code = op::wgmma_wait;
        f = form::count;
        display = "wgmma.wait_group";
      } else {
        display = "wgmma.m64nNkK.f32.TYPE[.BTYPE][.rs]";
        const std::string shape = "a shape .m64nNkK (N = 8 .. 256 in steps of 8; K = 16, 8 or 32)";
        const std::string forms =
            "wgmma.m64nNk16.f32.bf16|f16[.rs], wgmma.m64nNk8.f32.tf32, wgmma.m64nNk32.f32.e4m3|e5m2.e4m3|e5m2, "
            "wgmma.commit_group or wgmma.wait_group";
        if (parts.empty()) fail(head.col, forms, quoted(head.s));
        const std::string& sh = parts[0].s;
        unsigned nn = 0, kk = 0;
        bool ok = sh.size() > 6 && sh.compare(0, 4, "m64n") == 0 && sh.find('k') != std::string::npos;
        if (ok) {
          const std::size_t kpos = sh.find('k');
          const std::string digits = sh.substr(4, kpos - 4), kd = sh.substr(kpos + 1);
          const auto number = [](const std::string& d) {
            return !d.empty() && d.size() <= 3 && d[0] != '0' &&
                   std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
          };
          ok = number(digits) && number(kd);
          if (ok) nn = static_cast<unsigned>(std::stoul(digits)), kk = static_cast<unsigned>(std::stoul(kd));
          ok = ok && nn >= 8 && nn <= 256 && nn % 8 == 0 && (kk == 16 || kk == 8 || kk == 32);
        }
        if (!ok) fail(parts[0].col, shape, quoted(parts[0].orig));
        in.mma_n = static_cast<std::uint16_t>(nn);
        if (parts.size() < 2 || parts[1].s != "f32")
          fail(parts.size() < 2 ? head.col : parts[1].col, "the accumulator type .f32", quoted(parts.size() < 2 ? head.s : parts[1].orig));
        const char* types = kk == 16 ? "an input type .bf16 or .f16 (K = 16)"
                            : kk == 8 ? "the input type .tf32 (K = 8)"
                                      : "an input type .e4m3 or .e5m2 (K = 32)";
        const auto type_of = [&](const std::string& t, element_type& e) {
          if (kk == 16 && (t == "bf16" || t == "f16")) e = t == "bf16" ? element_type::bf16 : element_type::f16;
          else if (kk == 8 && t == "tf32") e = element_type::tf32;
          else if (kk == 32 && (t == "e4m3" || t == "e5m2")) e = t == "e4m3" ? element_type::e4m3 : element_type::e5m2;
          else return false;
          return true;
        };
        if (parts.size() < 3 || !type_of(parts[2].s, in.mma_type))
          fail(parts.size() < 3 ? head.col : parts[2].col, types, quoted(parts.size() < 3 ? head.s : parts[2].orig));
        in.mma_b_type = in.mma_type;
        std::size_t next = 3;
        if (kk == 32) {  // fp8: B's type follows A's
          if (parts.size() < 4 || !type_of(parts[3].s, in.mma_b_type))
            fail(parts.size() < 4 ? head.col : parts[3].col, "B's input type .e4m3 or .e5m2 (after A's)",
                 quoted(parts.size() < 4 ? head.s : parts[3].orig));
          next = 4;
        }
        if (parts.size() > next) {
          if (parts[next].s != "rs")
            fail(parts[next].col, ".rs (A from registers) or the end of the mnemonic", quoted(parts[next].orig));
          if (kk != 16)
            fail(parts[next].col, "A from shared memory for ." + std::string(element_name(in.mma_type)) +
                                      " (.rs takes .f16 and .bf16 only)", quoted(parts[next].orig));
          in.mma_a_regs = true;
          ++next;
        }
        if (parts.size() > next) fail(parts[next].col, "end of the mnemonic (" + display + ")", quoted(parts[next].orig));
      }
    } else if (base == "mma") {
      // mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32, TYPE f16 or bf16 (both the same)
      display = "mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32";
      static const char* const fixed[] = {"sync", "aligned", "m16n8k16", "row", "col", "f32"};
      for (unsigned i = 0; i < 6; ++i)
        if (parts.size() <= i || parts[i].s != fixed[i])
          fail(parts.size() <= i ? head.col : parts[i].col,
               "." + std::string(fixed[i]) + " (the form " + display + ", TYPE f16 or bf16)",
               quoted(parts.size() <= i ? head.s : parts[i].orig));
      if (parts.size() <= 6 || (parts[6].s != "f16" && parts[6].s != "bf16"))
        fail(parts.size() <= 6 ? head.col : parts[6].col, "A's type .f16 or .bf16 (m16n8k16 takes 16-bit inputs)",
             quoted(parts.size() <= 6 ? head.s : parts[6].orig));
      in.mma_type = parts[6].s == "bf16" ? element_type::bf16 : element_type::f16;
      in.mma_b_type = in.mma_type;
      if (parts.size() <= 7 || parts[7].s != parts[6].s)
        fail(parts.size() <= 7 ? head.col : parts[7].col, "B's type ." + parts[6].s + " (the same as A's)",
             quoted(parts.size() <= 7 ? head.s : parts[7].orig));
      if (parts.size() <= 8 || parts[8].s != "f32")
        fail(parts.size() <= 8 ? head.col : parts[8].col, "C's type .f32", quoted(parts.size() <= 8 ? head.s : parts[8].orig));
      if (parts.size() > 9) fail(parts[9].col, "end of the mnemonic (" + display + ")", quoted(parts[9].orig));
    } else if (f == form::setp) {
      display = "setp.CMP.TYPE";
      const std::string whole =
          "a comparison and type suffix (setp.CMP.TYPE: CMP eq, ne, lt, le, gt or ge; TYPE s32, u32 or f32)";
      if (parts.empty()) fail(head.col, whole, quoted(head.s));
      static const char* const cmps[] = {"eq", "ne", "lt", "le", "gt", "ge"};
      bool found_cmp = false;
      for (unsigned i = 0; i < 6; ++i) {
        if (parts[0].s == cmps[i]) {
          in.cond = static_cast<cmp>(i);
          found_cmp = true;
        }
      }
      if (!found_cmp)
        fail(parts[0].col, "a comparison .eq, .ne, .lt, .le, .gt or .ge", quoted(parts[0].orig));
      if (parts.size() < 2) fail(head.col, "a type suffix .s32, .u32 or .f32 after the comparison", quoted(head.s));
      if (parts[1].s == "s32") in.ty = type::s32;
      else if (parts[1].s == "u32") in.ty = type::u32;
      else if (parts[1].s == "f32") in.ty = type::f32;
      else fail(parts[1].col, "a type .s32, .u32 or .f32", quoted(parts[1].orig));
      if (parts.size() > 2) fail(parts[2].col, "end of the mnemonic (setp.CMP.TYPE)", quoted(parts[2].orig));
    } else if (f == form::ld || f == form::st) {
      display = std::string(info->name) + ".SPACE.W";
      if (parts.empty())
        fail(head.col,
             "a space and width suffix (" + display + ": SPACE global or shared; W 32, 64 or 128)",
             quoted(head.s));
      if (parts[0].s == "global") in.sp = space::global;
      else if (parts[0].s == "shared") in.sp = space::shared;
      else fail(parts[0].col, "a memory space .global or .shared", quoted(parts[0].orig));
      // ld.global.cg.W: cached at the global level only (the width follows the operator).
      in.cg = f == form::ld && in.sp == space::global && parts.size() > 1 && parts[1].s == "cg";
      const std::size_t wi = in.cg ? 2 : 1;
      if (parts.size() <= wi)
        fail(head.col, "a width suffix .8, .16, .32, .64 or .128 after the space", quoted(head.s));
      const part& wp = parts[wi];
      if (wp.s == "32") in.width = 4;
      else if (wp.s == "64") in.width = 8;
      else if (wp.s == "128") in.width = 16;
      else if (wp.s == "8") in.width = 1;
      else if (wp.s == "16") in.width = 2;
      else if (f == form::ld && (wp.s == "s8" || wp.s == "s16"))
        in.width = wp.s == "s8" ? 1 : 2, in.sign = true;
      else fail(wp.col, f == form::ld ? "an access width .8, .s8, .16, .s16, .32, .64 or .128"
                                      : "an access width .8, .16, .32, .64 or .128", quoted(wp.orig));
      if (parts.size() > wi + 1)
        fail(parts[wi + 1].col, "end of the mnemonic (" + display + ")", quoted(parts[wi + 1].orig));
    } else if (base == "mul" && !parts.empty()) {
      display = "mul.wide.TYPE";
      static const std::pair<const char*, type> tys[] = {{"s32", type::s32}, {"u32", type::u32}, {"s16", type::s16}, {"u16", type::u16}};
      if (parts[0].s != "wide") fail(parts[0].col, "mul or mul.wide.TYPE", quoted(rest));
      bool ok = parts.size() == 2;
      for (const auto& [n, t] : tys)
        if (ok && parts[1].s == n) in.ty = t, in.code = op::mul_wide;
      if (in.code != op::mul_wide)
        fail(parts.size() < 2 ? head.col : parts[1].col, "a type .s32, .u32, .s16 or .u16 (mul.wide.TYPE)",
             quoted(parts.size() < 2 ? head.s : parts[1].orig));
    } else if (base == "cvt64") {
      display = "cvt64.s32|u32";
      if (parts.size() != 1 || (parts[0].s != "s32" && parts[0].s != "u32"))
        fail(parts.empty() ? head.col : parts[0].col, "cvt64.s32 (sign-extend) or cvt64.u32 (zero-extend)",
             quoted(parts.empty() ? head.s : rest));
      in.ty = parts[0].s == "s32" ? type::s32 : type::u32;
      f = form::mov64;  // (checked below as rd, ra with rd even)
    } else if (base == "plogic") {
      display = "plogic.and|or|xor|not";
      static const char* const ops_[] = {"and", "or", "xor", "not"};
      bool ok = false;
      for (unsigned i = 0; i < 4; ++i)
        if (parts.size() == 1 && parts[0].s == ops_[i]) in.imm = i, ok = true;
      if (!ok) fail(parts.empty() ? head.col : parts[0].col, "plogic.and, plogic.or, plogic.xor or plogic.not",
                    quoted(parts.empty() ? head.s : rest));
    } else if (base == "atom") {
      display = "atom.SPACE.OP.TYPE";
      const std::string whole = "atom.SPACE.OP.TYPE (SPACE global or shared; OP add, min, max or exch; TYPE u32, s32 or f32)";
      if (parts.size() != 3) fail(parts.empty() ? head.col : parts[0].col, whole, quoted(parts.empty() ? head.s : rest));
      if (parts[0].s == "global") in.sp = space::global;
      else if (parts[0].s == "shared") in.sp = space::shared;
      else fail(parts[0].col, "a memory space .global or .shared", quoted(parts[0].orig));
      static const char* const aops[] = {"add", "min", "max", "exch"};
      bool ok = false;
      for (unsigned i = 0; i < 4; ++i)
        if (parts[1].s == aops[i]) in.sub = static_cast<std::uint8_t>(i), ok = true;
      if (!ok) fail(parts[1].col, "an atomic operation .add, .min, .max or .exch", quoted(parts[1].orig));
      if (parts[2].s == "u32") in.ty = type::u32;
      else if (parts[2].s == "s32") in.ty = type::s32;
      else if (parts[2].s == "f32" && in.sub == 0) in.ty = type::f32;
      else fail(parts[2].col, in.sub == 0 ? "a type .u32, .s32 or .f32" : "a type .u32 or .s32", quoted(parts[2].orig));
    } else if (base == "shfl") {
      display = "shfl.MODE";
      static const char* const modes[] = {"up", "down", "bfly", "idx"};
      bool found = false;
      for (unsigned i = 0; parts.size() == 1 && i < 4; ++i)
        if (parts[0].s == modes[i]) in.sub = static_cast<std::uint8_t>(i), found = true;
      if (!found)
        fail(parts.empty() ? head.col : parts[0].col, "shfl.up, shfl.down, shfl.bfly or shfl.idx", quoted(parts.empty() ? head.s : rest));
    } else if (base == "logic64") {
      display = "logic64.and|or|xor";
      static const char* const lops[] = {"and", "or", "xor"};
      bool found = false;
      for (unsigned i = 0; parts.size() == 1 && i < 3; ++i)
        if (parts[0].s == lops[i]) in.sub = static_cast<std::uint8_t>(i), found = true;
      if (!found)
        fail(parts.empty() ? head.col : parts[0].col, "logic64.and, logic64.or or logic64.xor", quoted(parts.empty() ? head.s : rest));
    } else if (base == "elect") {
      display = "elect.sync";
      if (name != "elect.sync") fail(parts.empty() ? head.col : parts[0].col, "elect.sync", quoted(parts.empty() ? head.s : rest));
    } else if (base == "ldparam" && !parts.empty()) {
      if (parts.size() != 1 || (parts[0].s != "64" && parts[0].s != "32"))
        fail(parts[0].col, "ldparam or ldparam.64", quoted(rest));
      in.width = parts[0].s == "64" ? 8 : 4;
    } else if (base == "cvt") {
      if (name == "cvt.f.s") in.code = op::cvt_f_s;
      else if (name == "cvt.s.f") in.code = op::cvt_s_f;
      else fail(parts.empty() ? head.col : parts[0].col, "a conversion cvt.f.s or cvt.s.f",
                quoted(parts.empty() ? head.s : rest));
      display = mnemonic(in.code);
    } else if (base == "bar") {
      if (name != "bar.sync")
        fail(parts.empty() ? head.col : parts[0].col, "bar.sync", quoted(parts.empty() ? head.s : rest));
      display = "bar.sync";
    } else if (!parts.empty()) {
      fail(parts[0].col, "no suffix (only setp, ld, st, cvt, cvt64, mul.wide, plogic, logic64, elect, ldparam and bar take suffixes)", quoted(rest));
    }
    const bool plogic_not = in.code == op::plogic && in.imm == 3;
    if (plogic_not) f = form::plogic;

    const unsigned want = plogic_not ? 2 : operand_count(f);
    const auto have = static_cast<unsigned>(ops.size());
    if (have != want) {
      const std::string use = display + (*usage(f) ? " " : "") + usage(f);
      const std::string exp = want == 0 ? "no operands (" + use + ")"
                                        : std::to_string(want) + (want == 1 ? " operand (" : " operands (") +
                                              use + ")";
      fail(have > want ? ops[want].col : head.col, exp, std::to_string(have));
    }

    define_labels(labels);
    switch (f) {
      case form::mov:
        in.rd = reg(ops[0]);
        mov_source(ops[1], in);
        break;
      case form::ldparam: {
        in.rd = reg(ops[0]);
        const std::string exp = "a parameter index (an integer 0..4294967295)";
        std::uint64_t m = 0;
        const auto& t = ops[1].toks;
        if (t.size() != 1 || t[0].kind != token::number || !parse_magnitude(t[0].s, m) ||
            m > 0xffffffffu)
          fail(ops[1].col, exp, ops[1].found());
        in.imm = static_cast<std::int64_t>(m);
        break;
      }
      case form::alu:
        in.rd = reg(ops[0]);
        if (in.code == op::mul_wide && (in.ty == type::s32 || in.ty == type::u32)) check_group(ops[0], in.rd, 8);
        in.ra = reg(ops[1]);
        source2(ops[2], in);
        break;
      case form::r4:
        in.rd = reg(ops[0]);
        in.ra = reg(ops[1]);
        in.rb = reg(ops[2]);
        in.rc = reg(ops[3]);
        break;
      case form::unary:
        in.rd = reg(ops[0]);
        in.ra = reg(ops[1]);
        break;
      case form::falu:
        in.rd = reg(ops[0]);
        in.ra = reg(ops[1]);
        in.rb = reg(ops[2]);
        break;
      case form::setp:
        in.rd = pred(ops[0]);
        in.ra = reg(ops[1]);
        source2(ops[2], in);
        break;
      case form::selp: {
        in.rd = reg(ops[0]);
        source2(ops[1], in);  // a register or an immediate (kept in imm_b)
        if (in.b_imm) {
          in.a_imm = true;
          in.imm_b = static_cast<std::uint32_t>(in.imm);
          in.b_imm = false;
          in.imm = 0;
        } else {
          in.ra = in.rb;
          in.rb = 0;
        }
        source2(ops[2], in);
        in.rc = pred(ops[3]);
        break;
      }
      case form::ld:
        in.rd = reg(ops[0]);
        check_group(ops[0], in.rd, in.width);
        memory(ops[1], in, true);
        break;
      case form::st:
        memory(ops[0], in, true);
        in.rb = reg(ops[1]);
        check_group(ops[1], in.rb, in.width);
        break;
      case form::bra:
        target(ops[0]);
        break;
      case form::none:
        break;
      case form::mov64:  // mov64 rd, ra|imm ; cvt64.T rd, ra (the 64-bit value in rd:rd+1)
        in.rd = reg(ops[0]);
        check_group(ops[0], in.rd, 8);
        if (in.code == op::cvt64) {
          in.ra = reg(ops[1]);
        } else {
          mov_source(ops[1], in);
          if (in.sreg != special::none) fail(ops[1].col, "a general register or an immediate", ops[1].found());
          if (!in.b_imm) check_group(ops[1], in.ra, 8);
        }
        break;
      case form::alu64:
        in.rd = reg(ops[0]);
        check_group(ops[0], in.rd, 8);
        in.ra = reg(ops[1]);
        check_group(ops[1], in.ra, 8);
        source2(ops[2], in);
        if (!in.b_imm) check_group(ops[2], in.rb, 8);
        break;
      case form::atom: {
        in.rd = reg(ops[0]);
        memory(ops[1], in, true);
        const std::int64_t offset = in.imm;
        source2(ops[2], in);  // a register or an immediate (kept in imm_b: imm is the offset)
        if (in.b_imm) in.imm_b = static_cast<std::uint32_t>(in.imm);
        in.imm = offset;
        break;
      }
      case form::shfl: {
        const auto& t = ops[0].toks;  // rd or rd|pd
        std::uint8_t n = 0;
        if (t.size() == 3 && t[1].s == "|") {
          if (!register_number(t[0].s, 'r', num_registers, n)) fail(ops[0].col, "a general register r0..r255", quoted(t[0].s));
          in.rd = n;
          if (!register_number(t[2].s, 'p', 8, n)) fail(t[2].col, "a predicate p0..p7", quoted(t[2].s));
          in.pd = n;
        } else {
          in.rd = reg(ops[0]);
        }
        in.ra = reg(ops[1]);
        source2(ops[2], in);
        const std::int64_t b_imm = in.imm;
        const bool b_is_imm = in.b_imm;
        // c and the membermask: a register or an immediate each
        auto reg_or_imm = [&](const operand& o, std::uint8_t& r, bool& is_imm, std::uint32_t& imm) {
          std::uint8_t x = 0;
          if (o.toks.size() == 1 && register_number(o.toks[0].s, 'r', num_registers, x)) {
            r = x;
            return;
          }
          std::int64_t v = 0;
          if (parse_imm(o, false, v) != num::ok) fail(o.col, "a general register r0..r255 or an integer", o.found());
          is_imm = true;
          imm = static_cast<std::uint32_t>(v);
        };
        reg_or_imm(ops[3], in.rc, in.c_imm, in.imm_b);
        reg_or_imm(ops[4], in.re, in.e_imm, in.imm_e);
        in.imm = b_imm;
        in.b_imm = b_is_imm;
        break;
      }
      case form::elect: {  // elect.sync [rd|]pd, membermask
        const auto& t = ops[0].toks;
        std::uint8_t n = 0;
        if (t.size() == 3 && t[1].s == "|") {
          if (!register_number(t[0].s, 'r', num_registers, n)) fail(ops[0].col, "a general register r0..r255", quoted(t[0].s));
          in.rd = n;
          in.sub = 1;
          if (!register_number(t[2].s, 'p', 8, n)) fail(t[2].col, "a predicate p0..p7", quoted(t[2].s));
          in.pd = n;
        } else {
          in.pd = pred(ops[0]);
        }
        std::uint8_t x = 0;
        if (ops[1].toks.size() == 1 && register_number(ops[1].toks[0].s, 'r', num_registers, x)) {
          in.re = x;
        } else {
          std::int64_t v = 0;
          if (parse_imm(ops[1], false, v) != num::ok) fail(ops[1].col, "a general register r0..r255 or an integer", ops[1].found());
          in.e_imm = true;
          in.imm_e = static_cast<std::uint32_t>(v);
        }
        break;
      }
      case form::plogic:
        in.rd = pred(ops[0]);
        in.ra = pred(ops[1]);
        if (!plogic_not) in.rb = pred(ops[2]);
        break;
      case form::mbar: {
        memory(ops[0], in);
        const std::int64_t offset = in.imm;
        source2(ops[1], in);
        if (in.b_imm) in.imm_b = static_cast<std::uint32_t>(in.imm);
        in.imm = offset;
        break;
      }
      case form::mbar1:
        memory(ops[0], in);
        break;
      case form::count: {
        std::uint64_t m = 0;
        const auto& t = ops[0].toks;
        if (t.size() != 1 || t[0].kind != token::number || !parse_magnitude(t[0].s, m) || m > 7)
          fail(ops[0].col, "a group count 0..7", ops[0].found());
        in.imm = static_cast<std::int64_t>(m);
        break;
      }
      case form::tma: {
        memory(ops[0], in);
        std::uint64_t m = 0;
        const auto& t = ops[1].toks;
        if (t.size() != 1 || t[0].kind != token::number || !parse_magnitude(t[0].s, m) || m > 255)
          fail(ops[1].col, "a tensor map index 0..255", ops[1].found());
        in.rd = static_cast<std::uint8_t>(m);
        const auto& b = ops[2].toks;
        std::uint8_t n = 0;
        if (b.size() != 3 || b[0].s != "[" || !register_number(b[1].s, 'r', num_registers, n) || b[2].s != "]")
          fail(ops[2].col, "a barrier operand [rN]", ops[2].found());
        in.rb = n;
        in.rc = reg(ops[3]);
        if (in.rc + 4u >= num_registers)
          fail(ops[3].col, "a first coordinate register r0..r251 (up to 5 coordinates rc..rc+4)", ops[3].found());
        break;
      }
      case form::tma_store: {
        memory(ops[0], in);
        std::uint64_t m = 0;
        const auto& t = ops[1].toks;
        if (t.size() != 1 || t[0].kind != token::number || !parse_magnitude(t[0].s, m) || m > 255)
          fail(ops[1].col, "a tensor map index 0..255", ops[1].found());
        in.rd = static_cast<std::uint8_t>(m);
        in.rc = reg(ops[2]);
        if (in.rc + 4u >= num_registers)
          fail(ops[2].col, "a first coordinate register r0..r251 (up to 5 coordinates rc..rc+4)", ops[2].found());
        break;
      }
      case form::mma: {
        in.rd = reg(ops[0]);
        in.ra = reg(ops[1]);
        in.rb = reg(ops[2]);
        in.rc = reg(ops[3]);
        const char* const what[] = {"D", "A", "B", "C"};
        const unsigned first[] = {in.rd, in.ra, in.rb, in.rc}, count[] = {4, 4, 2, 4};
        for (unsigned i = 0; i < 4; ++i)
          if (first[i] + count[i] > num_registers)
            fail(ops[i].col, std::string(what[i]) + "'s registers r" + std::to_string(first[i]) + " .. +" +
                                 std::to_string(count[i] - 1) + " within r255", ops[i].found());
        break;
      }
      case form::wgmma: {
        in.rd = reg(ops[0]);
        in.ra = reg(ops[1]);
        in.rb = reg(ops[2]);
        if (in.rd + in.mma_n / 2 > num_registers)
          fail(ops[0].col, "accumulators rd .. rd+" + std::to_string(in.mma_n / 2 - 1) + " within r255", ops[0].found());
        if (in.mma_a_regs ? in.ra % 4 : in.ra % 2)
          fail(ops[1].col, in.mma_a_regs ? "a multiple-of-4 register (the A fragment is ra .. ra+3)"
                                         : "an even register (the A descriptor is ra:ra+1)", ops[1].found());
        if (in.rb % 2) fail(ops[2].col, "an even register (the B descriptor is rb:rb+1)", ops[2].found());
        std::uint64_t m = 0;
        const auto& t = ops[3].toks;
        if (t.size() != 1 || t[0].kind != token::number || !parse_magnitude(t[0].s, m) || m > 1)
          fail(ops[3].col, "scale-d 0 (D = A x B) or 1 (D = A x B + D)", ops[3].found());
        in.imm = static_cast<std::int64_t>(m);
        break;
      }
    }
    k_.code.push_back(std::move(in));
  }

  // ---- labels -----------------------------------------------------------------------

  void resolve() {
    for (const fixup& f : fixups_) k_.code[f.index].target = label(f.label, f.line, f.col);
  }

  kernel k_;
  unsigned name_line_ = 0;  // line of the .kernel directive (0: none yet)
  std::vector<fixup> fixups_;
};

}  // namespace

kernel assemble(const std::string& text, const std::string& file) {
  return assembler(file).run(text);
}

kernel assemble_file(const std::string& path) {
  return assemble(read_source(path, "a kernel file (SIMT assembly)"), path);
}

}  // namespace flynn::simt

// Assembler for the vector machine (syntax: docs/isa/vector.md).
//
// Two passes: every line is parsed into instructions and data (label references are
// recorded as fixups), then the fixups are resolved, so labels may be used before they are
// defined. The first error ends assembly with an input_error "FILE:LINE:COL: expected X,
// found Y" (COL 1-based, at the offending token).
#include "flynn/platform/vector_asm.h"

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
#include "flynn/common/format.h"
#include "flynn/platform/errors.h"

namespace flynn::vec {

namespace {

using asm_lexer::lower;
using asm_lexer::operand;
using asm_lexer::parse_magnitude;
using asm_lexer::quoted;
using asm_lexer::register_number;
using asm_lexer::token;
using asm_lexer::valid_label_name;

// Operand layouts; see isa.h for the field mapping.
enum class form {
  li, mov, alu, falu, ld, st, br1, br, none, setvl, setvs, vmpop,
  vld, vst, vldx, vstx, varith, vfarith, vcmp, pw, p
};

struct op_info {
  const char* name;
  op code;
  form f;
};

const op_info op_table[] = {
    {"li", op::li, form::li},         {"mov", op::mov, form::mov},
    {"add", op::add, form::alu},      {"sub", op::sub, form::alu},
    {"mul", op::mul, form::alu},      {"and", op::and_, form::alu},
    {"or", op::or_, form::alu},       {"xor", op::xor_, form::alu},
    {"shl", op::shl, form::alu},      {"shr", op::shr, form::alu},
    {"sra", op::sra, form::alu},      {"fadd", op::fadd, form::falu},
    {"fsub", op::fsub, form::falu},   {"fmul", op::fmul, form::falu},
    {"slt", op::slt, form::alu},      {"seq", op::seq, form::alu},
    {"ld", op::ld, form::ld},         {"st", op::st, form::st},
    {"dbnz", op::dbnz, form::br1},    {"beqz", op::beqz, form::br1},
    {"bnez", op::bnez, form::br1},    {"br", op::br, form::br},
    {"halt", op::halt, form::none},   {"setvl", op::setvl, form::setvl},
    {"setvs", op::setvs, form::setvs}, {"vmset", op::vmset, form::none},
    {"vmnot", op::vmnot, form::none}, {"vmpop", op::vmpop, form::vmpop},
    {"vld", op::vld, form::vld},      {"vst", op::vst, form::vst},
    {"vldx", op::vldx, form::vldx},   {"vstx", op::vstx, form::vstx},
    {"vadd", op::vadd, form::varith}, {"vsub", op::vsub, form::varith},
    {"vmul", op::vmul, form::varith}, {"vdiv", op::vdiv, form::varith},
    {"vand", op::vand, form::varith}, {"vor", op::vor, form::varith},
    {"vxor", op::vxor, form::varith}, {"vshl", op::vshl, form::varith},
    {"vshr", op::vshr, form::varith}, {"vsra", op::vsra, form::varith},
    {"vfadd", op::vfadd, form::vfarith}, {"vfsub", op::vfsub, form::vfarith},
    {"vfmul", op::vfmul, form::vfarith}, {"vcmpeq", op::vcmpeq, form::vcmp},
    {"vcmpne", op::vcmpne, form::vcmp}, {"vcmplt", op::vcmplt, form::vcmp},
    {"vcmpgt", op::vcmpgt, form::vcmp}, {"padd", op::padd, form::pw},
    {"psub", op::psub, form::pw},     {"pcmpeq", op::pcmpeq, form::pw},
    {"pcmpgt", op::pcmpgt, form::pw}, {"pand", op::pand, form::p},
    {"pandn", op::pandn, form::p},    {"por", op::por, form::p},
    {"pmaddwd", op::pmaddwd, form::p},
};

const op_info* find_op(const std::string& name) {
  for (const auto& o : op_table)
    if (name == o.name) return &o;
  return nullptr;
}

std::vector<std::string> op_names() {
  std::vector<std::string> v;
  for (const auto& o : op_table) v.emplace_back(o.name);
  return v;
}

// Operand usage shown in operand-count errors.
const char* usage(form f) {
  switch (f) {
    case form::li: return "rd, imm|label";
    case form::mov: return "rd, ra";
    case form::alu: return "rd, ra, rb|imm";
    case form::falu: return "rd, ra, rb";
    case form::ld: return "rd, [ra+imm]|[ra]+|label";
    case form::st: return "[ra+imm]|[ra]+|label, rb";
    case form::br1: return "ra, label";
    case form::br: return "label";
    case form::none: return "";
    case form::setvl: return "ra|imm  or  setvl rd, ra";
    case form::setvs: return "ra|imm";
    case form::vmpop: return "rd";
    case form::vld: return "vd, [ra+imm]|label";
    case form::vst: return "[ra+imm]|label, vb";
    case form::vldx: return "vd, [ra+imm]|label, vi";
    case form::vstx: return "[ra+imm]|label, vi, vb";
    case form::varith: return "vd, va, vb|rb|imm";
    case form::vfarith: return "vd, va, vb|rb";
    case form::vcmp: return "va, vb|rb|imm";
    case form::pw: return "rd, ra, rb";
    case form::p: return "rd, ra, rb";
  }
  return "";
}

unsigned operand_count(form f) {
  switch (f) {
    case form::none: return 0;
    case form::br: case form::setvl: case form::setvs: case form::vmpop: return 1;
    case form::li: case form::mov: case form::ld: case form::st: case form::br1:
    case form::vld: case form::vst: case form::vcmp: return 2;
    default: return 3;
  }
}

bool maskable(form f) {
  return f == form::vld || f == form::vst || f == form::vldx || f == form::vstx ||
         f == form::varith || f == form::vfarith;
}

// "r5" -> 5 (prefix 'r', below 16). Case-insensitive; no leading zeros.
bool is_register_name(const std::string& s) {
  std::uint8_t n = 0;
  return register_number(s, 'r', 16, n) || register_number(s, 'v', 8, n);
}

// Unsigned integer literal: decimal or 0x hex, up to 2^64 - 1.
struct label_def {
  bool text = false;         // text label (instruction index) or data label (byte address)
  std::uint64_t value = 0;
};

struct fixup {
  bool target = false;  // branch target (text label) or address/immediate (data label)
  std::size_t index = 0;
  std::string label;
  std::int64_t offset = 0;
  unsigned line = 0, col = 0;
};

class assembler : asm_lexer::line_assembler<label_def> {
 public:
  explicit assembler(const std::string& file) : line_assembler(file) {}

  program run(const std::string& text) {
    prog_.file = file_;
    each_line(text, [this](std::string line) { do_line(std::move(line)); });
    if (prog_.code.empty()) fail(1, 1, "at least one instruction", "none");
    resolve();
    return std::move(prog_);
  }

 private:
  static std::vector<token> tokenize(const std::string& s) { return asm_lexer::tokenize(s, ""); }


  void do_line(std::string line) {
    line = asm_lexer::strip_comment(std::move(line));
    const unsigned eol_col = static_cast<unsigned>(line.size() + 1);

    const std::vector<token> toks = tokenize(line);
    std::size_t k = 0;
    const std::vector<token> labels =
        leading_labels(toks, k, is_register_name, "a label name that is not a register name");
    if (k == toks.size()) {
      define_labels(labels);
      return;
    }
    const token& head = toks[k];
    if (head.kind != token::ident) fail(head.col, "an instruction, a directive or a label", quoted(head.s));

    const std::vector<operand> ops = asm_lexer::split_operands(toks, k + 1, line, eol_col);

    if (head.s[0] == '.') {
      directive(head, labels, ops, eol_col);
      return;
    }
    std::string text = line.substr(head.col - 1);
    instruction(head, labels, ops, text);
  }

  void define_labels(const std::vector<token>& labels) {
    for (const token& l : labels) {
      define_label(l, label_def{!in_data_, in_data_ ? cursor_ : prog_.code.size()});
      if (in_data_) prog_.symbols.emplace_back(l.s, cursor_);
    }
  }

  // ---- numbers ----------------------------------------------------------------------

  enum class num { ok, not_number, bad };

  // An integer operand: [-]number. `bad_col` is set when it looks like a number but is not
  // a valid 64-bit one.
  static num parse_int(const operand& o, std::int64_t& v, unsigned& bad_col) {
    const auto& t = o.toks;
    bool neg = false;
    std::size_t i = 0;
    if (!t.empty() && t[0].kind == token::punct && t[0].s == "-") {
      neg = true;
      i = 1;
    }
    if (t.size() != i + 1 || t[i].kind != token::number) {
      if (!t.empty() && t[i < t.size() ? i : 0].kind == token::number) {
        bad_col = o.col;
        return num::bad;
      }
      return num::not_number;
    }
    std::uint64_t m = 0;
    if (!parse_magnitude(t[i].s, m)) {
      bad_col = o.col;
      return num::bad;
    }
    if (neg) {
      if (m > (std::uint64_t{1} << 63)) {
        bad_col = o.col;
        return num::bad;
      }
      v = static_cast<std::int64_t>(~m + 1);
    } else {
      v = static_cast<std::int64_t>(m);
    }
    return num::ok;
  }

  std::int64_t integer(const operand& o, const std::string& expected) const {
    std::int64_t v = 0;
    unsigned bad = 0;
    switch (parse_int(o, v, bad)) {
      case num::ok: return v;
      case num::bad: fail(bad, "a 64-bit integer (decimal or 0x hex)", o.found());
      case num::not_number: break;
    }
    fail(o.col, expected, o.found());
  }

  // ---- operands ---------------------------------------------------------------------

  std::uint8_t sreg(const operand& o) const {
    std::uint8_t n = 0;
    if (o.toks.size() == 1 && register_number(o.toks[0].s, 'r', 16, n)) return n;
    fail(o.col, "a scalar register r0..r15", o.found());
  }

  std::uint8_t vreg(const operand& o) const {
    std::uint8_t n = 0;
    if (o.toks.size() == 1 && register_number(o.toks[0].s, 'v', 8, n)) return n;
    fail(o.col, "a vector register v0..v7", o.found());
  }

  // Second source: sets kind and rb or imm.
  void source2(const operand& o, instr& in, bool vector_ok, bool scalar_ok, bool imm_ok) const {
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

  // An integer or a data label with an optional +/- offset. Label references become fixups
  // on code[index].imm.
  void address_expr(const operand& o, std::int64_t& value, const std::string& expected) {
    std::int64_t v = 0;
    unsigned bad = 0;
    switch (parse_int(o, v, bad)) {
      case num::ok: value = v; return;
      case num::bad: fail(bad, "a 64-bit integer (decimal or 0x hex)", o.found());
      case num::not_number: break;
    }
    const auto& t = o.toks;
    if (t.empty() || t[0].kind != token::ident || !valid_label_name(t[0].s) ||
        is_register_name(t[0].s))
      fail(o.col, expected, o.found());
    fixup f;
    f.target = false;
    f.index = prog_.code.size();
    f.label = t[0].s;
    f.line = line_;
    f.col = t[0].col;
    if (t.size() > 1) {
      if (t.size() != 3 || t[1].kind != token::punct || (t[1].s != "+" && t[1].s != "-"))
        fail(o.col, expected, o.found());
      if (t[2].kind != token::number)
        fail(t[2].col, "an integer offset", quoted(t[2].s));
      std::uint64_t m = 0;
      if (!parse_magnitude(t[2].s, m)) fail(t[2].col, "a 64-bit integer (decimal or 0x hex)", quoted(t[2].s));
      f.offset = static_cast<std::int64_t>(t[1].s == "-" ? ~m + 1 : m);
    }
    value = 0;
    fixups_.push_back(std::move(f));
  }

  // [ra+imm] | [ra-imm] | [ra] | [ra]+ (post_ok) | address expression (ra = no_reg).
  void memory(const operand& o, instr& in, bool post_ok) {
    const std::string expected =
        post_ok ? "a memory operand [rN+imm], [rN-imm], [rN], [rN]+ or a data label"
                : "a memory operand [rN+imm], [rN-imm], [rN] or a data label";
    const auto& t = o.toks;
    if (t.empty() || !(t[0].kind == token::punct && t[0].s == "[")) {
      address_expr(o, in.imm, expected);
      in.ra = no_reg;
      return;
    }
    if (t.size() < 2) fail(o.col, expected, o.found());
    std::uint8_t n = 0;
    if (!register_number(t[1].s, 'r', 16, n))
      fail(t[1].col, "a scalar register r0..r15", quoted(t[1].s));
    in.ra = n;
    in.imm = 0;
    auto is = [&](std::size_t i, const char* s) {
      return i < t.size() && t[i].kind == token::punct && t[i].s == s;
    };
    if (is(2, "]")) {
      if (t.size() == 3) return;
      if (t.size() == 4 && is(3, "+")) {
        if (!post_ok)
          fail(t[3].col, expected + " (post-increment [rN]+ is only for ld and st)", o.found());
        in.post_inc = true;
        return;
      }
      fail(t[3].col, expected, o.found());
    }
    if ((is(2, "+") || is(2, "-")) && t.size() == 5 && is(4, "]")) {
      if (t[3].kind != token::number) fail(t[3].col, "an integer offset", quoted(t[3].s));
      std::uint64_t m = 0;
      if (!parse_magnitude(t[3].s, m) || (t[2].s == "-" && m > (std::uint64_t{1} << 63)))
        fail(t[3].col, "a 64-bit integer (decimal or 0x hex)", quoted(t[3].s));
      in.imm = static_cast<std::int64_t>(t[2].s == "-" ? ~m + 1 : m);
      return;
    }
    fail(o.col, expected, o.found());
  }

  void target(const operand& o) {
    if (o.toks.size() != 1 || o.toks[0].kind != token::ident || !valid_label_name(o.toks[0].s) ||
        is_register_name(o.toks[0].s))
      fail(o.col, "a branch target (a text label)", o.found());
    fixup f;
    f.target = true;
    f.index = prog_.code.size();
    f.label = o.toks[0].s;
    f.line = line_;
    f.col = o.col;
    fixups_.push_back(std::move(f));
  }

  // ---- instructions -----------------------------------------------------------------

  void instruction(const token& head, const std::vector<token>& labels,
                   const std::vector<operand>& ops, const std::string& text) {
    if (in_data_)
      fail(head.col, "a data directive (.word, .double, .space) in a .data section (instructions belong in .text)",
           quoted(head.s));
    const std::string name = lower(head.s);
    const std::size_t dot = name.find('.');
    const std::string base = name.substr(0, dot);
    const std::string suffix = dot == std::string::npos ? "" : name.substr(dot);
    const unsigned suffix_col = head.col + static_cast<unsigned>(base.size());
    const op_info* info = find_op(base);
    if (!info) {
      const std::string hint = did_you_mean(base, op_names());
      fail(head.col, "an instruction mnemonic" + (hint.empty() ? "" : " (" + hint + ")"),
           quoted(head.s));
    }
    instr in;
    in.code = info->code;
    in.line = line_;
    in.text = text;

    const form f = info->f;
    if (f == form::pw) {
      if (suffix.empty())
        fail(head.col, std::string("a width suffix .b, .h or .w (") + info->name + ".b|.h|.w " +
                           usage(f) + ")",
             quoted(head.s));
      if (suffix == ".b") in.width = 8;
      else if (suffix == ".h") in.width = 16;
      else if (suffix == ".w") in.width = 32;
      else fail(suffix_col, "a width suffix .b, .h or .w", quoted(head.s.substr(base.size())));
    } else if (!suffix.empty()) {
      if (maskable(f) && suffix == ".m") {
        in.masked = true;
      } else if (maskable(f)) {
        fail(suffix_col, "no suffix or .m", quoted(head.s.substr(base.size())));
      } else {
        fail(suffix_col, std::string("no suffix (.m is only for vector memory and arithmetic, ") +
                             ".b/.h/.w only for padd, psub, pcmpeq and pcmpgt)",
             quoted(head.s.substr(base.size())));
      }
    }

    const unsigned want = operand_count(f);
    const auto have = static_cast<unsigned>(ops.size());
    const bool count_ok = f == form::setvl ? (have == 1 || have == 2) : have == want;
    if (!count_ok) {
      const std::string use = std::string(info->name) +
                              (f == form::pw ? ".b|.h|.w" : "") + (*usage(f) ? " " : "") + usage(f);
      const std::string exp = f == form::setvl ? "1 or 2 operands (" + use + ")"
                              : want == 0      ? "no operands (" + use + ")"
                              : std::to_string(want) + (want == 1 ? " operand (" : " operands (") +
                                    use + ")";
      const unsigned col = have > (f == form::setvl ? 2 : want) ? ops[f == form::setvl ? 2 : want].col
                                                                 : head.col;
      fail(col, exp, std::to_string(have));
    }

    define_labels(labels);
    switch (f) {
      case form::li:
        in.rd = sreg(ops[0]);
        address_expr(ops[1], in.imm, "an integer or a data label");
        break;
      case form::mov:
        in.rd = sreg(ops[0]);
        in.ra = sreg(ops[1]);
        break;
      case form::alu:
        in.rd = sreg(ops[0]);
        in.ra = sreg(ops[1]);
        source2(ops[2], in, false, true, true);
        break;
      case form::falu:
      case form::pw:
      case form::p:
        in.rd = sreg(ops[0]);
        in.ra = sreg(ops[1]);
        in.rb = sreg(ops[2]);
        in.kind = src2::reg;
        break;
      case form::ld:
        in.rd = sreg(ops[0]);
        memory(ops[1], in, true);
        if (in.post_inc && in.rd == in.ra)
          fail(ops[0].col, "a destination register other than the post-incremented base r" +
                               std::to_string(in.ra),
               ops[0].found());
        break;
      case form::st:
        memory(ops[0], in, true);
        in.rb = sreg(ops[1]);
        break;
      case form::br1:
        in.ra = sreg(ops[0]);
        target(ops[1]);
        break;
      case form::br:
        target(ops[0]);
        break;
      case form::none:
        break;
      case form::setvl:
        if (ops.size() == 2) {
          in.has_rd = true;
          in.rd = sreg(ops[0]);
          in.ra = sreg(ops[1]);
          in.kind = src2::reg;
          break;
        }
        [[fallthrough]];
      case form::setvs: {
        std::uint8_t n = 0;
        if (ops[0].toks.size() == 1 && register_number(ops[0].toks[0].s, 'r', 16, n)) {
          in.kind = src2::reg;
          in.ra = n;
        } else {
          in.kind = src2::imm;
          in.imm = integer(ops[0], "a scalar register r0..r15 or an integer");
        }
        break;
      }
      case form::vmpop:
        in.rd = sreg(ops[0]);
        break;
      case form::vld:
        in.rd = vreg(ops[0]);
        memory(ops[1], in, false);
        break;
      case form::vst:
        memory(ops[0], in, false);
        in.rb = vreg(ops[1]);
        break;
      case form::vldx:
        in.rd = vreg(ops[0]);
        memory(ops[1], in, false);
        in.rb = vreg(ops[2]);
        break;
      case form::vstx:
        memory(ops[0], in, false);
        in.rd = vreg(ops[1]);
        in.rb = vreg(ops[2]);
        break;
      case form::varith:
        in.rd = vreg(ops[0]);
        in.ra = vreg(ops[1]);
        source2(ops[2], in, true, true, true);
        break;
      case form::vfarith:
        in.rd = vreg(ops[0]);
        in.ra = vreg(ops[1]);
        source2(ops[2], in, true, true, false);
        break;
      case form::vcmp:
        in.ra = vreg(ops[0]);
        source2(ops[1], in, true, true, true);
        break;
    }
    prog_.code.push_back(std::move(in));
  }

  // ---- directives and data ----------------------------------------------------------

  void directive(const token& head, const std::vector<token>& labels,
                 const std::vector<operand>& ops, unsigned eol_col) {
    const std::string name = lower(head.s);
    if (name == ".text") {
      if (!ops.empty()) fail(ops[0].col, "end of line (.text takes no operand)", ops[0].found());
      in_data_ = false;
      define_labels(labels);
      return;
    }
    if (name == ".data") {
      if (ops.size() > 1) fail(ops[1].col, "end of line (.data [ORIGIN])", ops[1].found());
      if (ops.size() == 1) {
        const std::string exp = "a data origin (a byte address that is a multiple of 8)";
        const std::int64_t origin = integer(ops[0], exp);
        if (origin < 0 || origin % 8 != 0) fail(ops[0].col, exp, ops[0].found());
        cursor_ = static_cast<std::uint64_t>(origin);
      }
      in_data_ = true;
      define_labels(labels);
      return;
    }
    if (name != ".word" && name != ".double" && name != ".space") {
      const std::string hint =
          did_you_mean(name, {".text", ".data", ".word", ".double", ".space"});
      fail(head.col,
           "a directive (.text, .data, .word, .double, .space)" + (hint.empty() ? "" : " (" + hint + ")"),
           quoted(head.s));
    }
    if (!in_data_)
      fail(head.col, "an instruction (data directives belong in a .data section)", quoted(head.s));
    define_labels(labels);

    std::vector<std::uint64_t> words;
    if (name == ".space") {
      const std::string exp = "a word count 0..16777216";
      if (ops.size() != 1)
        fail(ops.empty() ? eol_col : ops[1].col, exp, ops.empty() ? "end of line" : ops[1].found());
      const std::int64_t n = integer(ops[0], exp);
      if (n < 0 || n > (1 << 24)) fail(ops[0].col, exp, ops[0].found());
      words.assign(static_cast<std::size_t>(n), 0);
    } else if (name == ".word") {
      const std::string exp = "a 64-bit integer (decimal or 0x hex)";
      if (ops.empty()) fail(eol_col, exp, "end of line");
      for (const auto& o : ops) words.push_back(static_cast<std::uint64_t>(integer(o, exp)));
    } else {
      const std::string exp = "a floating-point number";
      if (ops.empty()) fail(eol_col, exp, "end of line");
      for (const auto& o : ops) {
        double d = 0;
        const char* first = o.text.data();
        const char* last = first + o.text.size();
        const auto r = std::from_chars(first, last, d);
        if (o.text.empty() || r.ec != std::errc() || r.ptr != last) fail(o.col, exp, o.found());
        words.push_back(double_to_bits(d));
      }
    }
    emit(words, head);
  }

  void emit(const std::vector<std::uint64_t>& words, const token& head) {
    if (words.empty()) return;
    // A program's data is bounded as a whole (each .space is, and so is their sum).
    if (words.size() > max_data_words - data_words_)
      fail(head.col, "at most 2^24 data words in a program (128 MiB)",
           std::to_string(data_words_ + words.size()) + " words");
    data_words_ += words.size();
    const std::uint64_t bytes = 8 * static_cast<std::uint64_t>(words.size());
    if (bytes - 1 > ~std::uint64_t{0} - cursor_)
      fail(head.col, "data inside the 64-bit address space", quoted(head.s) + " at " + hex(cursor_));
    const std::uint64_t lo = cursor_, hi = cursor_ + bytes;  // [lo, hi)
    data_block* extend = nullptr;
    for (auto& b : prog_.data) {
      const std::uint64_t b_lo = b.address, b_hi = b.address + 8 * b.words.size();
      if (lo < b_hi && b_lo < hi)
        fail(head.col,
             "data that does not overlap the data at " + hex(b_lo) + ".." + hex(b_hi - 1),
             quoted(head.s) + " at " + hex(lo) + ".." + hex(hi - 1));
      if (b_hi == lo && !extend) extend = &b;
    }
    if (extend) {
      extend->words.insert(extend->words.end(), words.begin(), words.end());
    } else {
      data_block b;
      b.address = lo;
      b.words = words;
      prog_.data.push_back(std::move(b));
    }
    cursor_ = hi;
  }

  // ---- labels -----------------------------------------------------------------------

  void resolve() {
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

  program prog_;
  bool in_data_ = false;
  std::uint64_t cursor_ = 0;  // next data address
  static constexpr std::uint64_t max_data_words = std::uint64_t(1) << 24;
  std::uint64_t data_words_ = 0;  // data words so far
  std::vector<fixup> fixups_;
};

}  // namespace

program assemble(const std::string& text, const std::string& file) {
  return assembler(file).run(text);
}

program assemble_file(const std::string& path) {
  return assemble(read_source(path, "a program file (vector assembly)"), path);
}

}  // namespace flynn::vec

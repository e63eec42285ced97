// The line lexer shared by the assemblers (vector machine, SIMT kernels): identifiers,
// numbers (decimal, 0x hex, decimal floating point with exponent), punctuation, with
// 1-based columns for error messages.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "flynn/platform/errors.h"

namespace flynn::asm_lexer {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

struct token {
  enum kind_t { ident, number, punct } kind = punct;
  std::string s;
  unsigned col = 0;  // 1-based column of the first character
  unsigned end = 0;  // column just after the last character
};

struct operand;

// The characters of an identifier: a letter, '_', '.', '$' or one of `extra` first, then
// letters, digits, '_', '.' or '$'.
bool ident_start(char c, const std::string& extra = "");
bool ident_char(char c);

// Where the number that starts with the digit s[i] ends: it runs on over letters, digits, '_'
// and '.', and with `exponent_sign` over the '+' or '-' after the 'e' of a decimal exponent.
std::size_t number_end(const std::string& s, std::size_t i, bool exponent_sign = true);

// Splits one line (comments already removed). Identifiers start with a letter, '_', '.',
// '$' or one of `extra_ident_start`, and continue with letters, digits, '_', '.', '$'.
std::vector<token> tokenize(const std::string& s, const std::string& extra_ident_start = "");

// One comma-separated operand.
struct operand {
  std::vector<token> toks;
  unsigned col = 0;   // column of the first token (of the comma / line end when empty)
  std::string text;   // source text of the operand
  bool last = false;  // the line's last operand

  std::string found() const;  // for error messages: the text, "','" or "end of line"
};

// The operands of toks[from..] split at commas; eol_col is the column after the line.
std::vector<operand> split_operands(const std::vector<token>& toks, std::size_t from, const std::string& line,
                                    unsigned eol_col);

// Removes a trailing '\r', a ';' or '//' comment and trailing blanks.
std::string strip_comment(std::string line);

std::string lower(std::string s);
std::string quoted(const std::string& s);
// A letter or '_', then letters, digits or '_'.
bool valid_label_name(const std::string& s);
// "<prefix><n>" with n < limit, no leading zero (e.g. r12, v3).
bool register_number(const std::string& s, char prefix, unsigned limit, std::uint8_t& n);
// A decimal or 0x-hex unsigned 64-bit number.
bool parse_magnitude(const std::string& s, std::uint64_t& v);
// Token i of t exists and is the punctuation s.
bool is_punct(const std::vector<token>& t, std::size_t i, const char* s);

// What an operand that may be a number turned out to be.
enum class num { ok, not_number, bad };

// A label used by instruction `index` at line:col, looked up once every line is read.
struct label_ref {
  std::size_t index = 0;
  std::string label;
  unsigned line = 0, col = 0;
};

// What the line-oriented assemblers share: the line loop, errors "FILE:LINE:COL: expected
// X, found Y", the labels that start a line, and the label table. V is what a label stands
// for (an instruction index, a data address).
template <class V>
class line_assembler {
 protected:
  explicit line_assembler(std::string file) : file_(std::move(file)) {}

  // One line as the assemblers read it: the text without its comment, the column after it,
  // its tokens, the labels that start it, and k at the first token after them.
  struct line_tokens {
    std::string text;
    unsigned eol_col = 0;
    std::vector<token> toks;
    std::vector<token> labels;
    std::size_t k = 0;
  };

  // do_line(text) for every line of `text`, with line_ its number (from 1), the lines of a
  // ".rept N" ... ".endr" block N times over (blocks nest); then `code` must hold at least
  // one instruction.
  template <class F, class Code>
  void each_line(const std::string& text, F&& do_line, const Code& code) {
    std::vector<std::string> lines;
    for (std::size_t pos = 0; pos <= text.size();) {
      std::size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      lines.push_back(text.substr(pos, nl - pos));
      pos = nl + 1;
    }
    // Each .rept line's count and the line of its .endr, found once.
    std::vector<rept_block> blocks(lines.size());
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const int d = repeat_directive(lines[i], static_cast<unsigned>(i + 1), blocks[i].count);
      if (d > 0) open.push_back(i);
      if (d >= 0) continue;
      if (open.empty())
        fail(static_cast<unsigned>(i + 1), 1, "an instruction or a directive (this .endr closes no .rept)", "'.endr'");
      blocks[open.back()].end = i;
      open.pop_back();
    }
    if (!open.empty())
      fail(static_cast<unsigned>(lines.size()), 1, "a .endr closing the .rept of line " + std::to_string(open.back() + 1),
           "end of file");
    lines_run_ = 0;
    run_lines(lines, blocks, 0, lines.size(), do_line);
    if (code.empty()) fail(1, 1, "at least one instruction", "none");
  }

  // The most lines a file may make with its .rept blocks repeated.
  static constexpr std::uint64_t max_lines_run = 1000000;

  // Splits `line` (identifiers may also start with one of extra_ident_start) and takes the
  // labels that start it (see leading_labels).
  template <class IsRegister>
  line_tokens split_line(std::string line, const std::string& extra_ident_start, IsRegister is_register,
                         const std::string& not_register) const {
    line_tokens l;
    l.text = strip_comment(std::move(line));
    l.eol_col = static_cast<unsigned>(l.text.size() + 1);
    l.toks = tokenize(l.text, extra_ident_start);
    l.labels = leading_labels(l.toks, l.k, is_register, not_register);
    return l;
  }

  [[noreturn]] void fail(unsigned line, unsigned col, const std::string& expected, const std::string& found) const {
    throw input_error(file_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": expected " + expected +
                      ", found " + found);
  }
  [[noreturn]] void fail(unsigned col, const std::string& expected, const std::string& found) const {
    fail(line_, col, expected, found);
  }
  // An error whose expectation ends with a suggestion " (did you mean ...)" when there is one.
  [[noreturn]] void fail_hint(unsigned col, const std::string& expected, const std::string& hint,
                              const std::string& found) const {
    fail(col, expected + (hint.empty() ? "" : " (" + hint + ")"), found);
  }

  // The operand count must be min..max; the error shows `use` (the mnemonic and its
  // operands) and stands at the first operand too many, else at the mnemonic (head_col).
  void check_count(const std::vector<operand>& ops, unsigned min, unsigned max, const std::string& use,
                   unsigned head_col) const {
    const auto have = static_cast<unsigned>(ops.size());
    if (have >= min && have <= max) return;
    const std::string count = min != max ? std::to_string(min) + " or " + std::to_string(max) + " operands"
                              : max == 0 ? std::string("no operands")
                              : std::to_string(max) + (max == 1 ? " operand" : " operands");
    const std::string exp = count + " (" + use + ")";
    fail(have > max ? ops[max].col : head_col, exp, std::to_string(have));
  }

  // The "+imm]" or "-imm]" that ends a memory operand "[rN+imm]", from t[i] on: false when t
  // does not end so; an offset over neg_max (below zero) or pos_max is an error naming `range`.
  bool memory_offset(const std::vector<token>& t, std::size_t i, std::uint64_t neg_max, std::uint64_t pos_max,
                     const std::string& range, std::int64_t& v) const {
    if (!((is_punct(t, i, "+") || is_punct(t, i, "-")) && t.size() == i + 3 && is_punct(t, i + 2, "]")))
      return false;
    const token& n = t[i + 1];
    if (n.kind != token::number) fail(n.col, "an integer offset", quoted(n.s));
    const bool neg = t[i].s == "-";
    std::uint64_t m = 0;
    if (!parse_magnitude(n.s, m) || m > (neg ? neg_max : pos_max)) fail(n.col, range, quoted(n.s));
    v = static_cast<std::int64_t>(neg ? ~m + 1 : m);
    return true;
  }

  // A branch target: one label name that is not a register name (is_register), used by
  // instruction `index`; anything else is an error expecting `expected`.
  template <class IsRegister>
  label_ref target_ref(const operand& o, std::size_t index, IsRegister is_register,
                       const std::string& expected) const {
    if (o.toks.size() != 1 || o.toks[0].kind != token::ident || !valid_label_name(o.toks[0].s) ||
        is_register(o.toks[0].s))
      fail(o.col, expected, o.found());
    return label_ref{index, o.toks[0].s, line_, o.col};
  }

  // The "name:" labels that start a line, from toks[k] on (k moves past them). A label is a
  // valid name and not a register name (is_register); `not_register` says what it must be.
  template <class IsRegister>
  std::vector<token> leading_labels(const std::vector<token>& toks, std::size_t& k, IsRegister is_register,
                                    const std::string& not_register) const {
    std::vector<token> labels;
    while (k + 1 < toks.size() && toks[k].kind == token::ident && toks[k + 1].s == ":") {
      const token& l = toks[k];
      if (!valid_label_name(l.s))
        fail(l.col, "a label name (a letter or '_', then letters, digits or '_')", quoted(l.s));
      if (is_register(l.s)) fail(l.col, not_register, quoted(l.s));
      labels.push_back(l);
      k += 2;
    }
    return labels;
  }

  // Defines label l at the current line; a name defined before is an error naming its line.
  void define_label(const token& l, V value) {
    auto it = labels_.find(l.s);
    if (it != labels_.end())
      fail(l.col, "a new label name ('" + l.s + "' is already defined at line " + std::to_string(it->second.second) + ")",
           quoted(l.s));
    labels_.emplace(l.s, std::make_pair(std::move(value), line_));
  }

  // The label `name` used at line:col; an unknown name is an error with the nearest one.
  const V& label(const std::string& name, unsigned line, unsigned col) const {
    auto it = labels_.find(name);
    if (it == labels_.end()) {
      std::vector<std::string> names;
      for (const auto& l : labels_) names.push_back(l.first);
      const std::string hint = did_you_mean(name, names);
      fail(line, col, "a defined label" + (hint.empty() ? "" : " (" + hint + ")"), quoted(name));
    }
    return it->second.first;
  }

  std::string file_;
  unsigned line_ = 0;

 private:
  std::map<std::string, std::pair<V, unsigned>> labels_;  // -> (value, line)
  std::uint64_t lines_run_ = 0;

  struct rept_block {
    std::uint64_t count = 0;
    std::size_t end = 0;  // a .rept line's .endr (0: not a .rept line)
  };

  // Lines [from, to) of `lines` (line i has number i + 1) through do_line, a .rept block's
  // body as many times as it says.
  template <class F>
  void run_lines(const std::vector<std::string>& lines, const std::vector<rept_block>& blocks, std::size_t from,
                 std::size_t to, F& do_line) {
    for (std::size_t i = from; i < to; ++i) {
      if (const rept_block& b = blocks[i]; b.end) {
        for (std::uint64_t k = 0; k < b.count; ++k) run_lines(lines, blocks, i + 1, b.end, do_line);
        i = b.end;
        continue;
      }
      const auto at = static_cast<unsigned>(i + 1);
      if (++lines_run_ > max_lines_run)
        fail(at, 1, "at most " + std::to_string(max_lines_run) + " lines with the .rept blocks repeated", "more");
      line_ = at;
      do_line(lines[i]);
    }
  }

  // 1 for a ".rept N" line (count: N), -1 for ".endr", 0 for any other line.
  int repeat_directive(const std::string& line, unsigned at, std::uint64_t& count) const {
    const std::string low = lower(line);
    if (low.find(".rept") == std::string::npos && low.find(".endr") == std::string::npos) return 0;
    const std::vector<token> t = tokenize(strip_comment(line));
    std::size_t k = 0;  // (past the labels that start the line)
    while (k + 1 < t.size() && t[k].kind == token::ident && t[k + 1].s == ":") k += 2;
    if (k == t.size() || t[k].kind != token::ident) return 0;
    const std::string head = lower(t[k].s);
    if (head != ".endr" && head != ".rept") return 0;
    if (k > 0)
      fail(at, t[0].col, head + " on a line of its own (a label goes on the line before)", quoted(t[0].s + ":"));
    const unsigned eol = t.back().end;
    if (head == ".endr") {
      if (t.size() > 1) fail(at, t[1].col, "end of line (.endr)", quoted(t[1].s));
      return -1;
    }
    const std::string range = "a repeat count 0 to " + std::to_string(max_lines_run) + " (.rept N)";
    if (t.size() == 1) fail(at, eol, range, "end of line");
    if (t[1].kind != token::number || !parse_magnitude(t[1].s, count) || count > max_lines_run)
      fail(at, t[1].col, range, quoted(t[1].s));
    if (t.size() > 2) fail(at, t[2].col, "end of line (.rept N)", quoted(t[2].s));
    return 1;
  }
};

}  // namespace flynn::asm_lexer

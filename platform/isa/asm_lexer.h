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

  // do_line(text) for every line of `text`, with line_ its number (from 1); then `code` must
  // hold at least one instruction.
  template <class F, class Code>
  void each_line(const std::string& text, F&& do_line, const Code& code) {
    std::size_t pos = 0;
    unsigned lineno = 0;
    while (pos <= text.size()) {
      std::size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      line_ = ++lineno;
      do_line(text.substr(pos, nl - pos));
      pos = nl + 1;
    }
    if (code.empty()) fail(1, 1, "at least one instruction", "none");
  }

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
};

}  // namespace flynn::asm_lexer

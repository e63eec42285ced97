// The line lexer shared by the assemblers (vector machine, SIMT kernels): identifiers,
// numbers (decimal, 0x hex, decimal floating point with exponent), punctuation, with
// 1-based columns for error messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flynn::asm_lexer {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

struct token {
  enum kind_t { ident, number, punct } kind = punct;
  std::string s;
  unsigned col = 0;  // 1-based column of the first character
  unsigned end = 0;  // column just after the last character
};

struct operand;

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

}  // namespace flynn::asm_lexer

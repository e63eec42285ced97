// The line lexer shared by the assemblers (vector machine, SIMT kernels): identifiers,
// numbers (decimal, 0x hex, decimal floating point with exponent), punctuation, with
// 1-based columns for error messages.
#pragma once

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

// Splits one line (comments already removed). Identifiers start with a letter, '_', '.',
// '$' or one of `extra_ident_start`, and continue with letters, digits, '_', '.', '$'.
std::vector<token> tokenize(const std::string& s, const std::string& extra_ident_start = "");

}  // namespace flynn::asm_lexer

// The PTX reader's lexer: a whole PTX text into tokens (identifiers, numbers, quoted strings,
// punctuation) with their lines and columns, and the messages about them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "asm_lexer.h"

namespace flynn::ptx {

struct token {
  enum kind_t { ident, number, string, punct, end } kind = end;
  std::string s;
  std::uint32_t line = 0, col = 0;
};

// A text's tokens, the last of kind end, and its lines (for instruction texts and messages).
struct source {
  std::vector<token> toks;
  std::vector<std::string> lines;
};

// The tokens of `text`: '//' and '/* */' comments are skipped; identifiers may start with '%'
// and hold '::' (state-space qualifiers: .shared::cta, mbarrier::complete_tx::bytes). An
// unclosed comment or string is an input_error naming `file`.
source lex(const std::string& text, const std::string& file);

// The input_error "FILE:LINE:COL: expected X, found Y".
[[noreturn]] void fail_at(const std::string& file, std::uint32_t line, std::uint32_t col, const std::string& expected,
                          const std::string& what);

// What a message says was found: the token quoted, a string, or the end of the file.
std::string found(const token& t);

using asm_lexer::quoted;

// Decimal, 0x hex or 0 octal (PTX integer literals), with an optional U suffix.
bool parse_integer(std::string s, std::uint64_t& v);

}  // namespace flynn::ptx

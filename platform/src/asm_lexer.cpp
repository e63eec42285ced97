#include "asm_lexer.h"

#include <cctype>

namespace flynn::asm_lexer {

std::vector<token> tokenize(const std::string& s, const std::string& extra_ident_start) {
  std::vector<token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    token t;
    t.col = static_cast<unsigned>(i + 1);
    const auto uc = static_cast<unsigned char>(c);
    if (std::isalpha(uc) || c == '_' || c == '.' || c == '$' || extra_ident_start.find(c) != std::string::npos) {
      t.kind = token::ident;
      std::size_t j = i + 1;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '.' || s[j] == '$'))
        ++j;
      t.s = s.substr(i, j - i);
      i = j;
    } else if (std::isdigit(uc)) {
      t.kind = token::number;
      const bool hex_literal = i + 1 < s.size() && c == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
      std::size_t j = i;
      while (j < s.size()) {
        const char d = s[j];
        if (std::isalnum(static_cast<unsigned char>(d)) || d == '_' || d == '.') {
          ++j;
        } else if ((d == '+' || d == '-') && !hex_literal && j > i && (s[j - 1] == 'e' || s[j - 1] == 'E')) {
          ++j;  // exponent sign of a floating-point literal
        } else {
          break;
        }
      }
      t.s = s.substr(i, j - i);
      i = j;
    } else {
      t.kind = token::punct;
      t.s = std::string(1, c);
      ++i;
    }
    t.end = static_cast<unsigned>(i + 1);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace flynn::asm_lexer

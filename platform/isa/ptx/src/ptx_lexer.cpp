#include "ptx_lexer.h"

#include <cctype>

#include "flynn/common/format.h"
#include "flynn/platform/errors.h"

namespace flynn::ptx {

namespace {

// The end of the identifier that starts at s[i], '::' qualifiers included.
std::size_t ident_end(const std::string& s, std::size_t i) {
  std::size_t j = i + 1;
  while (j < s.size() && (asm_lexer::ident_char(s[j]) ||
                          (s[j] == ':' && j + 2 < s.size() && s[j + 1] == ':' && asm_lexer::ident_char(s[j + 2]))))
    j += s[j] == ':' ? 2 : 1;
  return j;
}

// The text's lines, without their '\n'.
std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> lines;
  std::size_t p = 0;
  while (p <= s.size()) {
    std::size_t nl = s.find('\n', p);
    if (nl == std::string::npos) nl = s.size();
    lines.push_back(s.substr(p, nl - p));
    p = nl + 1;
  }
  return lines;
}

}  // namespace

source lex(const std::string& s, const std::string& file) {
  source out;
  std::uint32_t line = 1;
  std::size_t line_start = 0, i = 0;
  const auto col = [&](std::size_t at) { return static_cast<std::uint32_t>(at - line_start + 1); };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      line_start = ++i;
      continue;
    }
    if (asm_lexer::is_space(c)) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::uint32_t l0 = line, c0 = col(i);
      i += 2;
      while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/')) {
        if (s[i] == '\n') {
          ++line;
          line_start = i + 1;
        }
        ++i;
      }
      if (i + 1 >= s.size()) fail_at(file, l0, c0, "the end of the comment ('*/')", "the end of the file");
      i += 2;
      continue;
    }
    token t;
    t.line = line;
    t.col = col(i);
    std::size_t j = i + 1;
    if (c == '"') {
      while (j < s.size() && s[j] != '"' && s[j] != '\n') ++j;
      if (j >= s.size() || s[j] != '"') fail_at(file, t.line, t.col, "a closing '\"'", "the end of the line");
      t.kind = token::string;
      t.s = s.substr(i + 1, j - i - 1);
      ++j;
    } else if (asm_lexer::ident_start(c, "%")) {
      j = ident_end(s, i);
      t.kind = token::ident;
      t.s = s.substr(i, j - i);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      j = asm_lexer::number_end(s, i, false);  // (no exponents: PTX writes floats as 0f hex bits)
      t.kind = token::number;
      t.s = s.substr(i, j - i);
    } else {
      t.kind = token::punct;
      t.s = std::string(1, c);
    }
    i = j;
    out.toks.push_back(std::move(t));
  }
  token e;
  e.kind = token::end;
  e.line = line;
  e.col = col(i);
  out.toks.push_back(e);
  out.lines = lines_of(s);
  return out;
}

void fail_at(const std::string& file, std::uint32_t line, std::uint32_t col, const std::string& expected,
             const std::string& what) {
  throw input_error(file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": expected " + expected +
                    ", found " + what);
}

std::string found(const token& t) {
  switch (t.kind) {
    case token::end: return "the end of the file";
    case token::string: return "the string " + excerpt(t.s);
    default: return quoted(t.s);
  }
}

bool parse_integer(std::string s, std::uint64_t& v) {
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.pop_back();
  if (s.empty()) return false;
  int base = 10;
  std::size_t i = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    i = 2;
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    i = 1;
  }
  v = 0;
  for (; i < s.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : 99;
    if (d >= base) return false;
    if (v > (~std::uint64_t(0) - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base)) return false;
    v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  return true;
}

}  // namespace flynn::ptx

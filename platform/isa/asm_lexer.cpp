#include "asm_lexer.h"

#include <cctype>
#include <charconv>

#include "flynn/platform/errors.h"

namespace flynn::asm_lexer {

bool ident_start(char c, const std::string& extra) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
         extra.find(c) != std::string::npos;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

std::size_t number_end(const std::string& s, std::size_t i, bool exponent_sign) {
  const bool hex_literal = i + 1 < s.size() && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
  std::size_t j = i;
  while (j < s.size()) {
    const char d = s[j];
    if (std::isalnum(static_cast<unsigned char>(d)) || d == '_' || d == '.') {
      ++j;
    } else if (exponent_sign && (d == '+' || d == '-') && !hex_literal && j > i && (s[j - 1] == 'e' || s[j - 1] == 'E')) {
      ++j;  // exponent sign of a floating-point literal
    } else {
      break;
    }
  }
  return j;
}

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
    if (ident_start(c, extra_ident_start)) {
      t.kind = token::ident;
      std::size_t j = i + 1;
      while (j < s.size() && ident_char(s[j])) ++j;
      t.s = s.substr(i, j - i);
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      t.kind = token::number;
      const std::size_t j = number_end(s, i);
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

std::string operand::found() const {
  if (!toks.empty()) return quoted(text);
  return last ? "end of line" : "','";
}

std::vector<operand> split_operands(const std::vector<token>& toks, std::size_t from, const std::string& line,
                                    unsigned eol_col) {
  std::vector<operand> ops;
  if (from >= toks.size()) return ops;
  auto finish = [&line](operand& o, unsigned empty_col) {
    if (o.toks.empty()) {
      o.col = empty_col;
      return;
    }
    o.col = o.toks.front().col;
    o.text = line.substr(o.col - 1, o.toks.back().end - o.col);
  };
  operand cur;
  for (std::size_t i = from; i < toks.size(); ++i) {
    const token& t = toks[i];
    if (t.kind == token::punct && t.s == ",") {
      finish(cur, t.col);
      ops.push_back(std::move(cur));
      cur = operand();
    } else {
      cur.toks.push_back(t);
    }
  }
  finish(cur, eol_col);
  cur.last = true;
  ops.push_back(std::move(cur));
  return ops;
}

std::string strip_comment(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::size_t cut = std::min(line.find(';'), line.find("//"));
  if (cut != std::string::npos) line.resize(cut);
  while (!line.empty() && is_space(line.back())) line.pop_back();
  return line;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string quoted(const std::string& s) { return excerpt(s); }

bool valid_label_name(const std::string& s) {
  if (s.empty()) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

bool register_number(const std::string& s, char prefix, unsigned limit, std::uint8_t& n) {
  if (s.size() < 2 || s.size() > 4) return false;
  if (std::tolower(static_cast<unsigned char>(s[0])) != prefix) return false;
  if (s.size() > 2 && s[1] == '0') return false;
  unsigned v = 0;
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
  }
  if (v >= limit) return false;
  n = static_cast<std::uint8_t>(v);
  return true;
}

bool parse_magnitude(const std::string& s, std::uint64_t& v) {
  const char* first = s.data();
  const char* last = s.data() + s.size();
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    first += 2;
    base = 16;
  }
  if (first == last) return false;
  const auto r = std::from_chars(first, last, v, base);
  return r.ec == std::errc() && r.ptr == last;
}

bool is_punct(const std::vector<token>& t, std::size_t i, const char* s) {
  return i < t.size() && t[i].kind == token::punct && t[i].s == s;
}

}  // namespace flynn::asm_lexer

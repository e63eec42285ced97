// The PTX reader's kernel bodies: scopes, register declarations, labels and the statements
// that are instructions (their operands split at commas, then decoded: ptx_decode.h).
#include "flynn/common/format.h"
#include "flynn/platform/errors.h"
#include "ptx_decode.h"
#include "ptx_reader.h"

namespace flynn::ptx {

void reader::body(const token& open) {
  for (;;) {
    const token& t = peek();
    if (t.kind == token::end) fail(open, "a '}' closing this '{'", "the end of the file");
    if (t.s == "}" && t.kind == token::punct) {
      next();
      return;
    }
    if (t.s == "{" && t.kind == token::punct) {
      if (scopes_.size() > 64) fail(t, "at most 64 nested scopes", "a 65th '{'");
      next();
      scopes_.emplace_back();
      labels_.emplace_back();
      pending_.emplace_back();
      body(t);
      resolve_labels(false);
      close_scope();
      continue;
    }
    if (t.kind == token::ident && t.s == ".reg") {
      next();
      reg_declaration();
      continue;
    }
    if (t.kind == token::ident && t.s == ".shared") {
      next();
      shared_declaration(false, shared_);
      continue;
    }
    if (t.kind == token::ident && t.s == ".loc") {
      next();
      loc_file_ = static_cast<std::uint32_t>(unsigned_number("a file number"));
      loc_line_ = static_cast<std::uint32_t>(unsigned_number("a line number"));
      skip_line(t.line);
      continue;
    }
    if (t.kind == token::ident && t.s == ".pragma") {
      next();
      while (peek().kind != token::end && peek().s != ";") next();
      expect(";");
      continue;
    }
    if (t.kind == token::ident && (t.s == ".local" || t.s == ".param" || t.s == ".const" || t.s == ".global"))
      fail(t, "a supported declaration (.reg, .shared)", quoted(t.s) + " (not supported)");
    if (t.kind == token::ident && peek(1).s == ":" && peek(1).kind == token::punct) {
      define_label(t);
      next();
      next();
      continue;
    }
    instruction_statement();
  }
}

void reader::close_scope() {
  const auto closed = std::move(scopes_.back());
  scopes_.pop_back();
  // A name of an outer scope that the closed one hid is visible again (the innermost that
  // declares it).
  for (const auto& [name, id] : closed) {
    (void)id;
    regs_by_name_.erase(name);
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
      if (const auto it = s->find(name); it != s->end()) {
        regs_by_name_[name] = it->second;
        break;
      }
  }
}

void reader::define_label(const token& t) {
  if (labels_.back().count(t.s)) fail(t, "a new label name (" + quoted(t.s) + " is defined already)", quoted(t.s));
  labels_.back()[t.s] = static_cast<std::uint32_t>(k_->code.size());
}

void reader::reg_declaration() {
  const token& tt = identifier("a register type (.pred, .b32, .f32, .b64, ...)");
  const dtype ty = tt.s.size() > 1 ? type_named(tt.s.substr(1)) : dtype::none;
  if (ty == dtype::none) fail(tt, "a register type (.pred, .b16, .b32, .f32, .b64, .f64, ...)");
  do {
    const token& n = identifier("a register name");
    if (accept("<")) {
      const std::uint64_t count = unsigned_number("a register count");
      expect(">");
      if (count > 65536) fail(n, "at most 65536 registers", std::to_string(count));
      if (k_->regs.size() + count > (1u << 20))
        fail(n, "at most 2^20 registers declared in a kernel", std::to_string(k_->regs.size() + count));
      // Every kernel of a file is read: the file as a whole is bounded too.
      if (declared_ + count > (1u << 20))
        fail(n, "at most 2^20 registers declared in a file (all its kernels)", std::to_string(declared_ + count));
      declared_ += count;
      for (std::uint64_t i = 0; i < count; ++i) declare(n, n.s + std::to_string(i), ty);
    } else {
      declare(n, n.s, ty);
    }
  } while (accept(","));
  expect(";", "',' or ';'");
}

void reader::declare(const token& at, const std::string& name, dtype ty) {
  if (scopes_.back().count(name))
    fail(at, "a new register name (" + quoted(name) + " is declared already in this scope)", quoted(name));
  const auto id = static_cast<std::uint32_t>(k_->regs.size());
  k_->regs.push_back({name, ty});
  scopes_.back()[name] = id;
  regs_by_name_[name] = id;
}

void reader::instruction_statement() {
  instruction in;
  const token& first = peek();
  in.line = first.line;
  in.col = first.col;
  in.loc_file = loc_file_;
  in.loc_line = loc_line_;
  if (accept("@")) {
    const bool neg = accept("!");
    const token& p = peek();
    if (p.kind != token::ident) fail(p, "a guard predicate register");
    next();
    in.guard = static_cast<std::int32_t>(reg_of(p, dtype::pred));
    in.guard_neg = neg;
  }
  const token& opt = peek();
  if (opt.kind != token::ident || opt.s[0] == '.' || opt.s[0] == '%')
    fail(opt, "an instruction");
  next();
  const std::vector<raw_operand> ops = operands();
  const token& semi = peek();
  if (semi.s != ";") fail(semi, "';' after the instruction");
  next();
  in.text = statement_text(first.line);
  decode(*this, opt, ops, in);
  k_->code.push_back(std::move(in));
}

std::vector<raw_operand> reader::operands() {
  std::vector<raw_operand> ops;
  if (peek().s == ";") return ops;
  for (;;) {
    raw_operand o;
    o.line = peek().line;
    o.col = peek().col;
    int depth = 0;
    while (peek().kind != token::end && !(depth == 0 && (peek().s == "," || peek().s == ";"))) {
      if (peek().s == "[" || peek().s == "{") ++depth;
      if (peek().s == "]" || peek().s == "}") --depth;
      // Two names or numbers in a row: a missing ',' or ';' (an instruction may span lines)
      const auto word = [](const token& t) { return t.kind == token::ident || t.kind == token::number; };
      if (!o.toks.empty() && word(o.toks.back()) && word(peek()))
        fail(peek(), depth ? "an operator or ']'" : "',' or ';' after the instruction");
      o.toks.push_back(next());
    }
    if (o.toks.empty()) fail(peek(), "an operand");
    for (const auto& t : o.toks) o.text += t.s;
    ops.push_back(std::move(o));
    if (!accept(",")) return ops;
  }
}

std::string reader::statement_text(std::uint32_t line) const {
  std::string text = line - 1 < lines_.size() ? lines_[line - 1] : "";
  text = text.substr(0, text.find("//"));  // (a comment after it is not the instruction)
  const auto b = text.find_first_not_of(" \t");
  const auto e = text.find_last_not_of(" \t\r");
  text = b == std::string::npos ? "" : text.substr(b, e - b + 1);
  if (!text.empty() && text.back() == ';') text.pop_back();
  // Blanks and tabs as one space, for messages and traces.
  std::string t;
  for (const char c : text) {
    const bool blank = c == ' ' || c == '\t';
    if (!blank) t += c;
    else if (!t.empty() && t.back() != ' ') t += ' ';
  }
  // At most 120 characters, control characters escaped: it goes into messages.
  return input_error::printable(t.size() > 120 ? t.substr(0, 117) + "..." : t);
}

void reader::resolve_labels(bool kernel_end) {
  std::vector<std::pair<std::size_t, token>> left;
  for (const auto& [idx, lab] : pending_.back()) {
    const auto it = labels_.back().find(lab.s);
    if (it != labels_.back().end()) k_->code[idx].target = it->second;
    else if (kernel_end) fail(lab, "a label defined in the kernel", quoted(lab.s));
    else left.push_back({idx, lab});
  }
  labels_.pop_back();
  pending_.pop_back();
  if (!kernel_end)
    for (auto& x : left) pending_.back().push_back(std::move(x));
}

}  // namespace flynn::ptx

// The PTX reader: tokens, directives, declarations and instructions of the supported subset
// (docs/isa/ptx.md), checked as they are read.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>

#include "flynn/common/format.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/ptx.h"

namespace flynn::ptx {

unsigned size_of(dtype t) {
  switch (t) {
    case dtype::b8: case dtype::u8: case dtype::s8: return 1;
    case dtype::b16: case dtype::u16: case dtype::s16: case dtype::f16: case dtype::bf16: return 2;
    case dtype::b32: case dtype::u32: case dtype::s32: case dtype::f32: return 4;
    case dtype::b64: case dtype::u64: case dtype::s64: case dtype::f64: return 8;
    case dtype::none: case dtype::pred: break;
  }
  return 0;
}
bool is_signed(dtype t) { return t == dtype::s8 || t == dtype::s16 || t == dtype::s32 || t == dtype::s64; }
bool is_float(dtype t) { return t == dtype::f16 || t == dtype::bf16 || t == dtype::f32 || t == dtype::f64; }

namespace {
const std::pair<const char*, dtype> type_names[] = {
    {"pred", dtype::pred}, {"b8", dtype::b8},   {"u8", dtype::u8},   {"s8", dtype::s8},   {"b16", dtype::b16},
    {"u16", dtype::u16},   {"s16", dtype::s16}, {"f16", dtype::f16}, {"b32", dtype::b32}, {"u32", dtype::u32},
    {"s32", dtype::s32},   {"f32", dtype::f32}, {"b64", dtype::b64}, {"u64", dtype::u64}, {"s64", dtype::s64},
    {"f64", dtype::f64},   {"bf16", dtype::bf16}};

dtype type_named(const std::string& s) {
  for (const auto& [n, t] : type_names)
    if (s == n) return t;
  return dtype::none;
}

const std::pair<const char*, sreg> sreg_names[] = {
    {"%tid.x", sreg::tid_x},       {"%tid.y", sreg::tid_y},       {"%tid.z", sreg::tid_z},
    {"%ntid.x", sreg::ntid_x},     {"%ntid.y", sreg::ntid_y},     {"%ntid.z", sreg::ntid_z},
    {"%ctaid.x", sreg::ctaid_x},   {"%ctaid.y", sreg::ctaid_y},   {"%ctaid.z", sreg::ctaid_z},
    {"%nctaid.x", sreg::nctaid_x}, {"%nctaid.y", sreg::nctaid_y}, {"%nctaid.z", sreg::nctaid_z},
    {"%laneid", sreg::laneid},     {"%warpid", sreg::warpid}};

struct token {
  enum kind_t { ident, number, string, punct, end } kind = end;
  std::string s;
  std::uint32_t line = 0, col = 0;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }

std::string quoted(const std::string& s) { return excerpt(s); }

class reader {
 public:
  reader(const std::string& text, std::string file) : file_(std::move(file)) {
    m_.file = file_;
    tokenize(text);
  }

  module run() {
    while (peek().kind != token::end) top_level();
    if (m_.kernels.empty()) fail(peek(), "a .entry kernel", "none in the file");
    return std::move(m_);
  }

 private:
  // ------------------------------------------------------------------ tokens
  void tokenize(const std::string& s) {
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
      if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
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
        if (i + 1 >= s.size()) fail(l0, c0, "the end of the comment ('*/')", "the end of the file");
        i += 2;
        continue;
      }
      token t;
      t.line = line;
      t.col = col(i);
      if (c == '"') {
        std::size_t j = i + 1;
        while (j < s.size() && s[j] != '"' && s[j] != '\n') ++j;
        if (j >= s.size() || s[j] != '"') fail(t.line, t.col, "a closing '\"'", "the end of the line");
        t.kind = token::string;
        t.s = s.substr(i + 1, j - i - 1);
        i = j + 1;
      } else if (ident_start(c)) {
        std::size_t j = i + 1;
        // (state-space qualifiers are part of an opcode: .shared::cta, mbarrier::complete_tx::bytes)
        while (j < s.size() && (ident_char(s[j]) || (s[j] == ':' && j + 2 < s.size() && s[j + 1] == ':' && ident_char(s[j + 2]))))
          j += s[j] == ':' ? 2 : 1;
        t.kind = token::ident;
        t.s = s.substr(i, j - i);
        i = j;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        std::size_t j = i + 1;
        while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' || s[j] == '_')) ++j;
        t.kind = token::number;
        t.s = s.substr(i, j - i);
        i = j;
      } else {
        t.kind = token::punct;
        t.s = std::string(1, c);
        ++i;
      }
      toks_.push_back(std::move(t));
    }
    token e;
    e.kind = token::end;
    e.line = line;
    e.col = col(i);
    toks_.push_back(e);
    // Each token's line text, for instruction texts and messages.
    std::size_t p = 0;
    while (p <= s.size()) {
      std::size_t nl = s.find('\n', p);
      if (nl == std::string::npos) nl = s.size();
      lines_.push_back(s.substr(p, nl - p));
      p = nl + 1;
    }
  }

  const token& peek(std::size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  const token& next() {
    const token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  static std::string found(const token& t) {
    switch (t.kind) {
      case token::end: return "the end of the file";
      case token::string: return "the string " + excerpt(t.s);
      default: return quoted(t.s);
    }
  }
  [[noreturn]] void fail(std::uint32_t line, std::uint32_t col, const std::string& expected, const std::string& found) const {
    throw input_error(file_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": expected " + expected +
                      ", found " + found);
  }
  [[noreturn]] void fail(const token& t, const std::string& expected, const std::string& f) const {
    fail(t.line, t.col, expected, f);
  }
  [[noreturn]] void fail(const token& t, const std::string& expected) const { fail(t, expected, found(t)); }
  const token& expect(const std::string& s, const std::string& what = "") {
    if (peek().s != s || peek().kind == token::string || peek().kind == token::end)
      fail(peek(), what.empty() ? quoted(s) : what);
    return next();
  }
  bool accept(const std::string& s) {
    if (peek().kind != token::string && peek().kind != token::end && peek().s == s) {
      next();
      return true;
    }
    return false;
  }
  const token& identifier(const std::string& what) {
    if (peek().kind != token::ident) fail(peek(), what);
    return next();
  }
  std::uint64_t unsigned_number(const std::string& what) {
    const token& t = peek();
    std::uint64_t v = 0;
    if (t.kind != token::number || !parse_integer(t.s, v)) fail(t, what);
    next();
    return v;
  }
  // Decimal, 0x hex or 0 octal (PTX integer literals), with an optional U suffix.
  static bool parse_integer(std::string s, std::uint64_t& v) {
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
  // The tokens to the end of the current line (directives without ';': .version, .loc, ...).
  void skip_line(std::uint32_t line) {
    while (peek().kind != token::end && peek().line == line) next();
  }

  // ------------------------------------------------------------------ module level
  void top_level() {
    const token& t = peek();
    if (t.kind != token::ident) fail(t, "a directive (.version, .target, .address_size, .visible, .entry, .file)");
    if (t.s == ".version") {
      next();
      m_.version = peek().s;
      skip_line(t.line);
    } else if (t.s == ".target") {
      next();
      m_.target = peek().s;
      skip_line(t.line);
    } else if (t.s == ".address_size") {
      next();
      const token& n = peek();
      if (n.s != "64") fail(n, "64 (the only address size supported)");
      skip_line(t.line);
    } else if (t.s == ".file") {
      file_directive();
    } else if (t.s == ".visible" || t.s == ".weak") {
      next();
      if (peek().s == ".func") fail(peek(), ".entry (device functions, .func, are not supported: inline them)");
      entry();
    } else if (t.s == ".entry") {
      entry();
    } else if (t.s == ".extern") {
      next();
      if (peek().s == ".func") fail(peek(), ".shared (device functions, .func, are not supported: inline them)");
      if (peek().s != ".shared") fail(peek(), ".shared (the only extern declaration supported)");
      next();
      shared_declaration(true, module_shared_);
    } else if (t.s == ".shared") {
      next();
      shared_declaration(false, module_shared_);
    } else if (t.s == ".func") {
      fail(t, "a supported directive (device functions, .func, are not supported: inline them)");
    } else {
      fail(t, "a supported directive (.version, .target, .address_size, .visible .entry, .extern .shared, .shared, .file)");
    }
  }

  void file_directive() {
    const token& d = next();
    const std::uint64_t n = unsigned_number("a file number");
    if (peek().kind != token::string) fail(peek(), "a file name in quotes");
    m_.files[static_cast<std::uint32_t>(n)] = next().s;
    skip_line(d.line);  // (optional timestamp and size)
  }

  // .shared [.align N] .TYPE name[N]; (or name[] when extern)
  void shared_declaration(bool is_extern, std::vector<shared_var>& into) {
    shared_var v;
    v.is_extern = is_extern;
    v.align = 1;
    if (accept(".align")) {
      const std::uint64_t a = unsigned_number("an alignment (a power of 2)");
      if (a == 0 || (a & (a - 1)) || a > 4096) fail(toks_[pos_ - 1], "an alignment (a power of 2 up to 4096)");
      v.align = static_cast<unsigned>(a);
    }
    const token& tt = identifier("a type (.b8, .u32, .f32, ...)");
    const dtype ty = tt.s.size() > 1 ? type_named(tt.s.substr(1)) : dtype::none;
    if (ty == dtype::none || ty == dtype::pred) fail(tt, "a type (.b8, .u32, .f32, ...)");
    v.align = std::max(v.align, size_of(ty));
    const token& name = identifier("a variable name");
    v.name = name.s;
    std::uint64_t count = 1;
    if (accept("[")) {
      if (is_extern && peek().s == "]") {
        count = 0;
      } else {
        count = unsigned_number("an element count");
      }
      expect("]");
    } else if (is_extern) {
      fail(peek(), "'[]' (an extern shared array)");
    }
    if (is_extern && count != 0) fail(name, "an extern shared array of unknown size ('name[]')", quoted(name.s));
    if (count > (std::uint64_t(1) << 30)) fail(name, "a shared array of at most 2^30 elements", std::to_string(count));
    expect(";");
    v.bytes = count * size_of(ty);
    for (const auto& o : into)
      if (o.name == v.name) fail(name, "a new variable name (" + quoted(v.name) + " is declared already)", quoted(v.name));
    into.push_back(v);
  }

  // ------------------------------------------------------------------ kernels
  void entry() {
    const token& e = expect(".entry");
    kernel k;
    k.file = file_;
    k.line = e.line;
    k.name = identifier("the kernel's name").s;
    for (const auto& o : m_.kernels)
      if (o.name == k.name) fail(toks_[pos_ - 1], "a new kernel name (" + quoted(k.name) + " is defined already)", quoted(k.name));
    if (accept("(")) {
      if (!accept(")")) {
        do params(k);
        while (accept(","));
        expect(")", "',' or ')'");
      }
    }
    k.param_bytes = 0;
    for (const auto& p : k.params) k.param_bytes = std::max(k.param_bytes, p.offset + p.bytes);
    // Performance directives (ignored: the launch decides).
    while (peek().kind == token::ident && (peek().s == ".maxntid" || peek().s == ".reqntid" || peek().s == ".minnctapersm" ||
                                            peek().s == ".maxnreg" || peek().s == ".maxclusterrank" ||
                                            peek().s == ".reqnctapercluster" || peek().s == ".explicitcluster")) {
      next();
      while (peek().kind == token::number || peek().s == ",") next();
    }
    k_ = &k;
    scopes_.assign(1, {});
    regs_by_name_.clear();
    labels_.assign(1, {});
    pending_.assign(1, {});
    loc_file_ = loc_line_ = 0;
    shared_ = module_shared_;
    const token& open = expect("{", "'{' (the kernel's body)");
    body(open);
    // Labels.
    resolve_labels(true);
    // Shared memory: the static variables in order, aligned; extern ones after them.
    std::uint64_t at = 0;
    unsigned extern_align = 1;
    for (auto& v : shared_) {
      if (v.is_extern) {
        extern_align = std::max(extern_align, v.align);
        continue;
      }
      at = (at + v.align - 1) / v.align * v.align;
      v.offset = at;
      at += v.bytes;
    }
    at = (at + extern_align - 1) / extern_align * extern_align;
    for (auto& v : shared_)
      if (v.is_extern) v.offset = at;
    k.static_shared = at;
    k.shared = shared_;
    compact_registers(k);
    m_.kernels.push_back(std::move(k));
    k_ = nullptr;
  }

  // Keeps only the registers the instructions name (nvcc declares %r<N> ranges whose first
  // register, at least, is never used), renumbered in order of declaration.
  static void compact_registers(kernel& k) {
    std::vector<std::int64_t> to(k.regs.size(), -1);
    const auto mark = [&](std::uint32_t r) { to[r] = 0; };
    for (const auto& in : k.code) {
      for (const auto r : in.group) mark(r);
      if (in.guard >= 0) mark(static_cast<std::uint32_t>(in.guard));
      for (unsigned i = 0; i < in.nops; ++i)
        if (in.ops[i].k == operand::kind::reg || (in.ops[i].k == operand::kind::address && in.ops[i].base_reg))
          mark(in.ops[i].reg);
    }
    std::vector<reg_info> kept;
    for (std::size_t r = 0; r < k.regs.size(); ++r)
      if (to[r] == 0) {
        to[r] = static_cast<std::int64_t>(kept.size());
        kept.push_back(std::move(k.regs[r]));
      }
    for (auto& in : k.code) {
      for (auto& r : in.group) r = static_cast<std::uint32_t>(to[r]);
      if (in.guard >= 0) in.guard = static_cast<std::int32_t>(to[static_cast<std::size_t>(in.guard)]);
      for (unsigned i = 0; i < in.nops; ++i)
        if (in.ops[i].k == operand::kind::reg || (in.ops[i].k == operand::kind::address && in.ops[i].base_reg))
          in.ops[i].reg = static_cast<std::uint32_t>(to[in.ops[i].reg]);
    }
    k.regs = std::move(kept);
  }

  void params(kernel& k) {
    expect(".param", "'.param'");
    param p;
    unsigned align = 0;
    if (accept(".align")) align = static_cast<unsigned>(unsigned_number("an alignment"));
    const token& tt = identifier("a parameter type (.u32, .u64, .f32, .b8, ...)");
    p.type = tt.s.size() > 1 ? type_named(tt.s.substr(1)) : dtype::none;
    if (p.type == dtype::none || p.type == dtype::pred || p.type == dtype::f16)
      fail(tt, "a parameter type (.u32, .s32, .u64, .s64, .f32, .f64, .b8, ...)");
    if (accept(".align")) align = static_cast<unsigned>(unsigned_number("an alignment"));
    // .ptr .global .align N (pointer attributes) are allowed and ignored.
    while (peek().s == ".ptr" || peek().s == ".global" || peek().s == ".shared" || peek().s == ".const" || peek().s == ".local") {
      next();
      if (accept(".align")) unsigned_number("an alignment");
    }
    const token& n = identifier("a parameter name");
    p.name = n.s;
    p.line = n.line;
    std::uint64_t count = 1;
    if (accept("[")) {
      const token& c = peek();
      count = unsigned_number("an element count");
      expect("]");
      // CUDA passes at most 32764 bytes of kernel parameters (CUDA 12.1 and later).
      if (count > 32764 / size_of(p.type))
        fail(c, "a parameter array of at most 32764 bytes", std::to_string(count) + " elements of " +
                                                                std::to_string(size_of(p.type)) + " B");
    }
    p.bytes = static_cast<unsigned>(count * size_of(p.type));
    p.align = std::max(align, size_of(p.type));
    unsigned at = 0;
    for (const auto& o : k.params) {
      if (o.name == p.name) fail(n, "a new parameter name", quoted(p.name));
      at = std::max(at, o.offset + o.bytes);
    }
    p.offset = (at + p.align - 1) / p.align * p.align;
    k.params.push_back(p);
  }

  // The statements of a { } scope, up to its closing brace.
  void body(const token& open) {
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
        const auto closed = std::move(scopes_.back());
        scopes_.pop_back();
        // The scope's names go; a name of an outer scope it hid is visible again (the
        // innermost that declares it).
        for (const auto& [name, id] : closed) {
          (void)id;
          regs_by_name_.erase(name);
          for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
            if (const auto it = s->find(name); it != s->end()) {
              regs_by_name_[name] = it->second;
              break;
            }
        }
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

  void define_label(const token& t) {
    if (labels_.back().count(t.s)) fail(t, "a new label name (" + quoted(t.s) + " is defined already)", quoted(t.s));
    labels_.back()[t.s] = static_cast<std::uint32_t>(k_->code.size());
  }

  // .reg .TYPE %name<N>; or .reg .TYPE %a, %b;
  void reg_declaration() {
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

  void declare(const token& at, const std::string& name, dtype ty) {
    if (scopes_.back().count(name))
      fail(at, "a new register name (" + quoted(name) + " is declared already in this scope)", quoted(name));
    const auto id = static_cast<std::uint32_t>(k_->regs.size());
    k_->regs.push_back({name, ty});
    scopes_.back()[name] = id;
    regs_by_name_[name] = id;
  }

  // ------------------------------------------------------------------ instructions
  struct raw_operand {
    std::vector<token> toks;
    std::uint32_t line = 0, col = 0;
    std::string text;
  };

  void instruction_statement() {
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
    // Operands up to ';'.
    std::vector<raw_operand> ops;
    if (peek().s != ";") {
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
        if (accept(",")) continue;
        break;
      }
    }
    const token& semi = peek();
    if (semi.s != ";") fail(semi, "';' after the instruction");
    next();
    // The instruction's text: its source line, trimmed.
    std::string text = first.line - 1 < lines_.size() ? lines_[first.line - 1] : "";
    text = text.substr(0, text.find("//"));  // (a comment after it is not the instruction)
    const auto b = text.find_first_not_of(" \t");
    const auto e = text.find_last_not_of(" \t\r");
    in.text = b == std::string::npos ? "" : text.substr(b, e - b + 1);
    if (!in.text.empty() && in.text.back() == ';') in.text.pop_back();
    {  // (blanks and tabs as one space, for messages and traces)
      std::string t;
      for (const char c : in.text) {
        const bool blank = c == ' ' || c == '\t';
        if (!blank) t += c;
        else if (!t.empty() && t.back() != ' ') t += ' ';
      }
      // At most 120 characters, control characters escaped: it goes into messages.
      in.text = input_error::printable(t.size() > 120 ? t.substr(0, 117) + "..." : t);
    }
    decode(opt, ops, in);
    k_->code.push_back(std::move(in));
  }

  std::uint32_t reg_of(const token& t, dtype want_class) {
    const auto it = regs_by_name_.find(t.s);
    if (it == regs_by_name_.end()) {
      if (t.s[0] != '%') fail(t, "a register", quoted(t.s));
      std::vector<std::string> names;
      for (const auto& [n, id] : regs_by_name_) names.push_back(n);
      const std::string hint = did_you_mean(t.s, names);
      fail(t, "a declared register" + (hint.empty() ? "" : " (" + hint + ")"), quoted(t.s) + " (undeclared)");
    }
    const dtype rt = k_->regs[it->second].type;
    if (want_class == dtype::pred && rt != dtype::pred)
      fail(t, "a predicate register", quoted(t.s) + " (." + std::string(name_of(rt)) + ")");
    return it->second;
  }

  [[noreturn]] void unsupported(const token& op, const std::string& why = "") {
    fail(op, "a supported instruction (docs/isa/ptx.md)" + (why.empty() ? "" : "; " + why), quoted(op.s));
  }

  // The operand's register of the given size in bytes (0: predicate), or an immediate when allowed.
  enum accept_t : unsigned { reg_only = 0, allow_imm = 1, allow_sreg = 2, allow_symbol = 4, allow_neg = 8 };
  operand value(const raw_operand& o, const token& op, dtype ty, unsigned allow, unsigned min_reg_bytes = 0) {
    operand r;
    const token& t0 = o.toks[0];
    std::size_t k = 0;
    bool neg = false;
    if ((allow & allow_neg) && t0.s == "!" && o.toks.size() == 2) {
      neg = true;
      k = 1;
    }
    const token& t = o.toks[k];
    if (o.toks.size() == k + 1 && t.kind == token::ident && (t.s[0] == '%' || regs_by_name_.count(t.s))) {
      for (const auto& [n, s] : sreg_names)
        if (t.s == n) {
          if (!(allow & allow_sreg)) fail(t, "a register or immediate, not a special register", quoted(t.s));
          if (size_of(ty) != 4) fail(t, "a 32-bit instruction type for a special register", quoted(op.s));
          r.k = operand::kind::sreg;
          r.special = s;
          return r;
        }
      if (t.s.rfind("%tid", 0) == 0 || t.s.rfind("%ntid", 0) == 0 || t.s.rfind("%ctaid", 0) == 0 ||
          t.s.rfind("%nctaid", 0) == 0 || t.s.rfind("%clock", 0) == 0 || t.s.rfind("%smid", 0) == 0 ||
          t.s.rfind("%lanemask", 0) == 0 || t.s.rfind("%globaltimer", 0) == 0 || t.s.rfind("%nwarpid", 0) == 0)
        fail(t, "a supported special register (%tid, %ntid, %ctaid, %nctaid .x/.y/.z, %laneid, %warpid)", quoted(t.s));
      r.k = operand::kind::reg;
      r.reg = reg_of(t, ty == dtype::pred ? dtype::pred : dtype::none);
      r.neg = neg;
      const dtype rt = k_->regs[r.reg].type;
      if (ty == dtype::pred) return r;
      if (rt == dtype::pred) fail(t, "a ." + std::string(name_of(ty)) + " register", quoted(t.s) + " (.pred)");
      const unsigned want = size_of(ty), have = size_of(rt);
      const bool ok = min_reg_bytes ? (have >= min_reg_bytes && have >= want) || have == want : have == want;
      if (!ok || (is_float(rt) && !is_float(ty) && want != have))
        fail(t, "a " + std::to_string(8 * want) + "-bit register for ." + name_of(ty) + " (type mismatch)",
             quoted(t.s) + " (." + std::string(name_of(rt)) + ")");
      return r;
    }
    if (neg) fail(t0, "a predicate register after '!'", quoted(o.text));
    if (o.toks.size() == 1 && t.kind == token::ident && !(t.s[0] == '%')) {
      if (!(allow & allow_symbol)) fail(t, "a register or immediate", quoted(t.s));
      const std::int32_t s = shared_index(t.s);
      r.k = operand::kind::symbol;
      if (s < 0 && param_index(t.s) >= 0) {  // a parameter's address (a CUtensorMap passed by value)
        if (size_of(ty) != 8) fail(t, "a 64-bit move for a parameter's address", quoted(op.s));
        r.symbol = param_index(t.s);
        r.param = true;
        return r;
      }
      if (s < 0) fail(t, "a shared variable's name", quoted(t.s) + " (not declared)");
      r.symbol = s;
      return r;
    }
    if (!(allow & allow_imm)) fail(t0, "a register", quoted(o.text));
    r.k = operand::kind::imm;
    r.imm = immediate(o, ty);
    return r;
  }

  // An immediate for type ty: an integer (decimal, hex, octal, optionally negative) or, for
  // a float type, 0fXXXXXXXX (binary32 bits) or 0dXXXXXXXXXXXXXXXX.
  std::uint64_t immediate(const raw_operand& o, dtype ty) {
    std::size_t k = 0;
    bool neg = false;
    if (o.toks.size() == 2 && o.toks[0].s == "-") {
      neg = true;
      k = 1;
    }
    if (o.toks.size() != k + 1 || o.toks[k].kind != token::number) fail(o.toks[0], "an immediate number", quoted(o.text));
    const std::string& s = o.toks[k].s;
    if (s.size() == 10 && (s[1] == 'f' || s[1] == 'F') && s[0] == '0') {
      if (ty != dtype::f32 && ty != dtype::b32) fail(o.toks[k], "an immediate for ." + std::string(name_of(ty)), quoted(s));
      std::uint64_t v = 0;
      if (!parse_integer("0x" + s.substr(2), v)) fail(o.toks[k], "a binary32 literal (0f and 8 hex digits)", quoted(s));
      return neg ? v ^ 0x80000000u : v;
    }
    if (s.size() == 18 && (s[1] == 'd' || s[1] == 'D') && s[0] == '0')
      fail(o.toks[k], "a supported immediate (binary64 operations are not supported)", quoted(s));
    if (is_float(ty)) fail(o.toks[k], "a float literal (0f and 8 hex digits) for ." + std::string(name_of(ty)), quoted(s));
    std::uint64_t v = 0;
    if (!parse_integer(s, v)) fail(o.toks[k], "an integer", quoted(s));
    if (neg) v = ~v + 1;
    const unsigned bits = 8 * std::max(1u, size_of(ty));
    if (bits < 64) {
      const std::uint64_t m = (std::uint64_t(1) << bits) - 1;
      const bool fits = neg ? (~v + 1) <= (std::uint64_t(1) << (bits - 1)) : v <= m;
      if (!fits) fail(o.toks[k], "an immediate that fits ." + std::string(name_of(ty)), quoted(o.text));
      v &= m;
    }
    return v;
  }

  std::int32_t shared_index(const std::string& n) const {
    for (std::size_t i = 0; i < shared_.size(); ++i)
      if (shared_[i].name == n) return static_cast<std::int32_t>(i);
    return -1;
  }
  std::int32_t param_index(const std::string& n) const {
    for (std::size_t i = 0; i < k_->params.size(); ++i)
      if (k_->params[i].name == n) return static_cast<std::int32_t>(i);
    return -1;
  }

  // [reg], [reg+off], [reg+-off], [symbol], [symbol+off], [off]
  operand address(const raw_operand& o, space sp) {
    operand r;
    r.k = operand::kind::address;
    const auto& ts = o.toks;
    if (ts.size() < 3 || ts.front().s != "[" || ts.back().s != "]") fail(ts[0], "an address in brackets", quoted(o.text));
    std::size_t k = 1;
    const token& b = ts[k];
    if (b.kind == token::ident && b.s[0] == '%') {
      r.base_reg = true;
      r.reg = reg_of(b, dtype::none);
      const unsigned bytes = size_of(k_->regs[r.reg].type);
      if (bytes != 4 && bytes != 8)
        fail(b, "a 32- or 64-bit address register", quoted(b.s) + " (." + std::string(name_of(k_->regs[r.reg].type)) + ")");
      if (sp == space::param) fail(b, "a parameter name (a parameter is read by name)", quoted(b.s));
      ++k;
    } else if (b.kind == token::ident) {
      if (sp == space::param) {
        r.symbol = param_index(b.s);
        if (r.symbol < 0) {
          std::vector<std::string> names;
          for (const auto& p : k_->params) names.push_back(p.name);
          const std::string hint = did_you_mean(b.s, names);
          fail(b, "a parameter of the kernel" + (hint.empty() ? "" : " (" + hint + ")"), quoted(b.s));
        }
      } else {
        r.symbol = shared_index(b.s);
        if (r.symbol < 0) fail(b, "a register or a shared variable's name", quoted(b.s));
        if (sp != space::shared) fail(b, "a register (a shared variable's address is in the .shared space)", quoted(b.s));
      }
      ++k;
    } else if (b.kind != token::number) {
      fail(b, "a register, variable or offset", quoted(b.s));
    } else if (sp == space::param) {
      fail(b, "a parameter name (a parameter is read by name)", quoted(b.s));
    }
    std::int64_t off = 0;
    if (k < ts.size() - 1) {
      bool neg = false;
      if (k != 1) {
        if (ts[k].s != "+") fail(ts[k], "'+' or ']'");
        ++k;
        if (ts[k].s == "-") {
          neg = true;
          ++k;
        }
      }
      std::uint64_t v = 0;
      if (k != ts.size() - 2 || ts[k].kind != token::number || !parse_integer(ts[k].s, v) || v > (1ull << 31))
        fail(ts[k], "an offset (an integer)", quoted(ts[k].s));
      off = neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    }
    r.imm = static_cast<std::uint64_t>(off);
    return r;
  }

  // {%a, %b, ...}: `count` registers of the type's size, kept in in.group.
  operand group(const raw_operand& o, const token& op, dtype ty, unsigned count, instruction& in) {
    const auto& ts = o.toks;
    if (ts.size() < 3 || ts.front().s != "{" || ts.back().s != "}")
      fail(ts[0], "a vector of " + std::to_string(count) + " registers {%a, %b, ...}", quoted(o.text));
    in.group.clear();
    for (std::size_t i = 1; i + 1 < ts.size(); ++i) {
      if (ts[i].s == ",") continue;
      raw_operand one;
      one.toks = {ts[i]};
      one.text = ts[i].s;
      in.group.push_back(value(one, op, ty, reg_only).reg);
      if (i + 2 < ts.size() && ts[i + 1].s != ",") fail(ts[i + 1], "',' or '}'");
    }
    if (in.group.size() != count)
      fail(ts[0], "a vector of " + std::to_string(count) + " registers", std::to_string(in.group.size()));
    for (std::size_t i = 0; i < in.group.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (in.group[i] == in.group[j]) fail(ts[0], "distinct registers in the vector", quoted(o.text));
    operand r;
    r.k = operand::kind::group;
    return r;
  }

  void need(const token& op, const std::vector<raw_operand>& ops, unsigned n) {
    if (ops.size() != n)
      fail(op, std::to_string(n) + " operands for " + quoted(op.s), std::to_string(ops.size()));
  }

  void decode(const token& op, const std::vector<raw_operand>& ops, instruction& in) {
    // Split "ld.global.f32" into the head and its modifiers.
    std::vector<std::string> mods;
    std::string head;
    {
      std::size_t p = 0;
      while (p <= op.s.size()) {
        std::size_t d = op.s.find('.', p);
        if (d == std::string::npos) d = op.s.size();
        (head.empty() && p == 0 ? head : mods.emplace_back()) = op.s.substr(p, d - p);
        p = d + 1;
      }
    }
    // The last modifier that names a type (the instruction type), and the set of the others.
    auto take = [&](const std::string& m) {
      const auto it = std::find(mods.begin(), mods.end(), m);
      if (it == mods.end()) return false;
      mods.erase(it);
      return true;
    };
    auto take_type = [&]() {
      if (mods.empty()) return dtype::none;
      const dtype t = type_named(mods.back());
      if (t != dtype::none) mods.pop_back();
      return t;
    };
    auto no_more = [&]() {
      if (!mods.empty()) unsupported(op, "modifier ." + mods.front() + " is not supported");
    };
    auto one_of = [&](dtype t, std::initializer_list<dtype> ok) {
      if (std::find(ok.begin(), ok.end(), t) == ok.end()) unsupported(op);
    };
    auto set = [&](unsigned i, operand o) {
      in.ops[i] = o;
      in.nops = std::max(in.nops, i + 1);
    };
    auto dest = [&](unsigned i, dtype ty, unsigned min_bytes = 0) { set(i, value(ops[i], op, ty, reg_only, min_bytes)); };
    auto src = [&](unsigned i, dtype ty, unsigned allow = allow_imm) { set(i, value(ops[i], op, ty, allow)); };
    auto space_of = [&](std::initializer_list<std::pair<const char*, space>> ok) {
      for (const auto& [n, s] : ok)
        if (take(n)) return s;
      unsupported(op, "a state space is needed");
    };
    if (head == "mov") {
      in.op = opcode::mov;
      in.type = take_type();
      no_more();
      one_of(in.type, {dtype::b32, dtype::u32, dtype::s32, dtype::f32, dtype::b64, dtype::u64, dtype::s64, dtype::pred});
      need(op, ops, 2);
      dest(0, in.type);
      src(1, in.type, allow_imm | allow_sreg | allow_symbol);
      if (in.type == dtype::pred && in.ops[1].k != operand::kind::reg) unsupported(op, "mov.pred copies a predicate");
    } else if (head == "ld" || head == "st") {
      in.op = head == "ld" ? opcode::ld : opcode::st;
      in.type = take_type();
      in.sp = head == "ld" ? space_of({{"param", space::param}, {"global", space::global}, {"shared", space::shared}})
                           : space_of({{"global", space::global}, {"shared", space::shared}});
      for (const char* c : {"nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "weak"})
        if (take(c) && std::string(c) == "cg" && head == "ld" && in.sp == space::global) in.cache_global = true;
      const unsigned vec = take("v2") ? 2 : take("v4") ? 4 : 1;
      no_more();
      if (in.type == dtype::none || in.type == dtype::pred || in.type == dtype::f16 || in.type == dtype::f64)
        unsupported(op);
      need(op, ops, 2);
      const unsigned data = head == "ld" ? 0 : 1;
      set(head == "ld" ? 1 : 0, address(ops[head == "ld" ? 1 : 0], in.sp));
      if (vec > 1) {  // {%a, %b[, %c, %d]}: elements of 4 bytes (v2, v4) or 8 (v2)
        if (in.sp == space::param) unsupported(op, "vector parameter reads are not supported");
        if (size_of(in.type) < 4 || vec * size_of(in.type) > 16)
          unsupported(op, "vector accesses of 4-byte elements (.v2, .v4) or 8-byte ones (.v2)");
        set(data, group(ops[data], op, in.type, vec, in));
        return;
      }
      // A narrow value may sit in a wider register (ld.u8 into a .b16 or .b32 register).
      if (head == "ld") dest(data, in.type, size_of(in.type) < 4 ? size_of(in.type) : 0);
      else set(data, value(ops[data], op, in.type, reg_only, size_of(in.type) < 4 ? size_of(in.type) : 0));
      if (size_of(in.type) < 4 && size_of(k_->regs[in.ops[data].reg].type) > 4)
        fail(ops[data].toks[0], "a register of at most 32 bits for a ." + std::string(name_of(in.type)) + " access",
             quoted(ops[data].text));
      if (in.sp == space::param) {
        const param& p = k_->params[static_cast<std::size_t>(in.ops[1].symbol)];
        const std::int64_t off = static_cast<std::int64_t>(in.ops[1].imm);
        if (off < 0 || off + size_of(in.type) > p.bytes)
          fail(ops[1].toks[0], "an access inside parameter " + quoted(p.name) + " (" + std::to_string(p.bytes) + " bytes)",
               quoted(ops[1].text));
      }
    } else if (head == "cvta") {
      in.op = opcode::cvta;
      // cvta.to.global: generic to global (the same addresses here); cvta.param: a parameter's
      // address to a generic one (a CUtensorMap parameter's, for cp.async.bulk.tensor)
      const bool to = take("to");
      in.sp = space_of({{"global", space::global}, {"param", space::param}});
      if (to != (in.sp == space::global)) unsupported(op, "cvta.to.global.u64 and cvta.param.u64");
      in.type = take_type();
      no_more();
      one_of(in.type, {dtype::u64});
      need(op, ops, 2);
      dest(0, in.type);
      src(1, in.type, reg_only);
    } else if (head == "add" || head == "sub" || head == "min" || head == "max") {
      in.op = head == "add" ? opcode::add : head == "sub" ? opcode::sub : head == "min" ? opcode::min : opcode::max;
      take("rn");
      in.type = take_type();
      no_more();
      if (in.op == opcode::add) one_of(in.type, {dtype::s32, dtype::u32, dtype::s64, dtype::u64, dtype::f32});
      else if (in.op == opcode::sub) one_of(in.type, {dtype::s32, dtype::u32, dtype::f32});
      else one_of(in.type, {dtype::s32, dtype::f32});
      need(op, ops, 3);
      dest(0, in.type);
      src(1, in.type, reg_only);
      src(2, in.type);
    } else if (head == "mul") {
      in.op = opcode::mul;
      in.mode = take("lo") ? mul_mode::lo : take("hi") ? mul_mode::hi : take("wide") ? mul_mode::wide : mul_mode::none;
      take("rn");
      in.type = take_type();
      no_more();
      if (in.mode == mul_mode::none) one_of(in.type, {dtype::f32});
      else if (in.mode == mul_mode::lo) one_of(in.type, {dtype::s32, dtype::u32});
      else if (in.mode == mul_mode::hi) one_of(in.type, {dtype::s32});
      else one_of(in.type, {dtype::s32, dtype::u32, dtype::s16, dtype::u16});
      need(op, ops, 3);
      if (in.mode == mul_mode::wide) dest(0, size_of(in.type) == 4 ? dtype::b64 : dtype::b32);
      else dest(0, in.type);
      src(1, in.type, reg_only);
      src(2, in.type);
    } else if (head == "mad" || head == "fma") {
      in.op = head == "mad" ? opcode::mad : opcode::fma;
      if (in.op == opcode::mad && !take("lo")) unsupported(op, "mad needs .lo");
      if (in.op == opcode::fma && !take("rn")) unsupported(op, "fma needs .rn");
      in.type = take_type();
      no_more();
      if (in.op == opcode::mad) one_of(in.type, {dtype::s32, dtype::u32});
      else one_of(in.type, {dtype::f32});
      need(op, ops, 4);
      dest(0, in.type);
      src(1, in.type, reg_only);
      src(2, in.type);
      src(3, in.type, reg_only);
    } else if (head == "div" || head == "rem") {
      in.op = head == "div" ? opcode::div : opcode::rem;
      const bool rn = take("rn");
      in.type = take_type();
      no_more();
      if (in.op == opcode::div && rn) one_of(in.type, {dtype::f32});
      else one_of(in.type, {dtype::s32});
      need(op, ops, 3);
      dest(0, in.type);
      src(1, in.type, reg_only);
      src(2, in.type, in.type == dtype::f32 ? reg_only : allow_imm);
    } else if (head == "and" || head == "or" || head == "xor" || head == "not") {
      in.op = head == "and" ? opcode::and_ : head == "or" ? opcode::or_ : head == "xor" ? opcode::xor_ : opcode::not_;
      in.type = take_type();
      no_more();
      one_of(in.type, {dtype::b32, dtype::b64, dtype::pred});
      const bool un = in.op == opcode::not_;
      need(op, ops, un ? 2 : 3);
      dest(0, in.type);
      src(1, in.type, reg_only);
      if (!un) src(2, in.type, in.type == dtype::pred ? reg_only : allow_imm);
    } else if (head == "shl" || head == "shr") {
      in.op = head == "shl" ? opcode::shl : opcode::shr;
      in.type = take_type();
      no_more();
      if (in.op == opcode::shl) one_of(in.type, {dtype::b32});
      else one_of(in.type, {dtype::b32, dtype::u32, dtype::s32});
      need(op, ops, 3);
      dest(0, in.type);
      src(1, in.type, reg_only);
      src(2, dtype::u32);
    } else if (head == "setp") {
      in.op = opcode::setp;
      in.type = take_type();
      static const std::pair<const char*, cmp> cmps[] = {{"eq", cmp::eq}, {"ne", cmp::ne}, {"lt", cmp::lt},
                                                         {"le", cmp::le}, {"gt", cmp::gt}, {"ge", cmp::ge}};
      static const std::pair<const char*, cmp> ucmps[] = {{"lo", cmp::lt}, {"ls", cmp::le}, {"hi", cmp::gt}, {"hs", cmp::ge}};
      bool found_cmp = false;
      for (const auto& [n, c] : cmps)
        if (!found_cmp && take(n)) {
          in.cond = c;
          found_cmp = true;
        }
      for (const auto& [n, c] : ucmps)
        if (!found_cmp && take(n)) {
          in.cond = c;
          found_cmp = true;
          if (in.type != dtype::u32 && in.type != dtype::b32) unsupported(op, "lo/ls/hi/hs compare unsigned types");
        }
      if (!found_cmp) unsupported(op, "comparison eq, ne, lt, le, gt, ge (or lo, ls, hi, hs)");
      no_more();
      one_of(in.type, {dtype::s32, dtype::u32, dtype::b32, dtype::f32});
      if (in.type == dtype::b32 && in.cond != cmp::eq && in.cond != cmp::ne) in.type = dtype::u32;
      need(op, ops, 3);
      if (ops[0].text.find('|') != std::string::npos) unsupported(op, "setp with two destinations (p|q)");
      dest(0, dtype::pred);
      src(1, in.type, reg_only);
      src(2, in.type);
    } else if (head == "selp") {
      in.op = opcode::selp;
      in.type = take_type();
      no_more();
      one_of(in.type, {dtype::b32, dtype::s32, dtype::u32, dtype::f32});
      need(op, ops, 4);
      dest(0, in.type);
      src(1, in.type);
      src(2, in.type);
      set(3, value(ops[3], op, dtype::pred, reg_only));
    } else if (head == "cvt") {
      in.op = opcode::cvt;
      for (const char* r : {"rn", "rzi"}) take(r);
      const dtype from = take_type();
      const dtype to = take_type();
      no_more();
      in.type = to;
      in.type2 = from;
      const bool ext = (to == dtype::s64 || to == dtype::u64) && (from == dtype::s32 || from == dtype::u32);
      const bool trunc = (to == dtype::s32 || to == dtype::u32) && (from == dtype::s64 || from == dtype::u64);
      const bool i2f = to == dtype::f32 && from == dtype::s32 && op.s.find(".rn.") != std::string::npos;
      const bool f2i = to == dtype::s32 && from == dtype::f32 && op.s.find(".rzi.") != std::string::npos;
      if (!ext && !trunc && !i2f && !f2i)
        unsupported(op, "cvt between s32/u32 and s64/u64, cvt.rn.f32.s32 and cvt.rzi.s32.f32");
      need(op, ops, 2);
      dest(0, to);
      src(1, from, reg_only);
    } else if (head == "bra") {
      in.op = opcode::bra;
      take("uni");
      no_more();
      need(op, ops, 1);
      const token& l = ops[0].toks[0];
      if (ops[0].toks.size() != 1 || l.kind != token::ident) fail(l, "a label", quoted(ops[0].text));
      pending_.back().emplace_back(k_->code.size(), l);
    } else if (head == "bar" || head == "barrier") {
      in.op = opcode::bar;
      if (!take("sync")) unsupported(op, "bar.sync");
      take("aligned");
      no_more();
      need(op, ops, 1);
      const operand id = value(ops[0], op, dtype::u32, allow_imm);
      if (id.k != operand::kind::imm || id.imm != 0)
        unsupported(op, "barrier 0 only (named barriers are not supported)");
      set(0, id);
    } else if (head == "shfl") {
      in.op = opcode::shfl;
      if (!take("sync")) unsupported(op, "shfl.sync (the form without .sync is gone since sm_70)");
      static const std::pair<const char*, shfl_mode> modes[] = {
          {"up", shfl_mode::up}, {"down", shfl_mode::down}, {"bfly", shfl_mode::bfly}, {"idx", shfl_mode::idx}};
      bool found = false;
      for (const auto& [n, m] : modes)
        if (!found && take(n)) {
          in.shfl = m;
          found = true;
        }
      if (!found) unsupported(op, "a mode .up, .down, .bfly or .idx");
      in.type = take_type();
      no_more();
      one_of(in.type, {dtype::b32});
      need(op, ops, 5);
      // d or d|p
      const raw_operand& d = ops[0];
      std::size_t bar = 0;
      while (bar < d.toks.size() && d.toks[bar].s != "|") ++bar;
      if (bar < d.toks.size()) {
        raw_operand dr = d, pr = d;
        dr.toks.assign(d.toks.begin(), d.toks.begin() + static_cast<std::ptrdiff_t>(bar));
        pr.toks.assign(d.toks.begin() + static_cast<std::ptrdiff_t>(bar) + 1, d.toks.end());
        if (dr.toks.empty() || pr.toks.empty()) fail(d.toks[bar], "d|p (a register and a predicate)", quoted(d.text));
        for (auto* x : {&dr, &pr}) {
          x->text.clear();
          for (const auto& t : x->toks) x->text += t.s;
        }
        set(0, value(dr, op, dtype::b32, reg_only));
        set(5, value(pr, op, dtype::pred, reg_only));
      } else {
        dest(0, dtype::b32);
      }
      src(1, dtype::b32, reg_only);
      src(2, dtype::b32);
      src(3, dtype::b32);
      src(4, dtype::b32);
    } else if (head == "atom") {
      in.op = opcode::atom;
      take("relaxed");
      for (const char* sc : {"gpu", "cta", "sys"}) take(sc);
      for (const char* sem : {"acquire", "release", "acq_rel"})
        if (take(sem)) unsupported(op, "memory-ordering semantics other than .relaxed are not modelled");
      in.sp = space_of({{"global", space::global}, {"shared", space::shared}});
      static const std::pair<const char*, atom_op> aops[] = {
          {"add", atom_op::add}, {"min", atom_op::min}, {"max", atom_op::max}, {"exch", atom_op::exch}};
      bool found = false;
      for (const auto& [n, a] : aops)
        if (!found && take(n)) {
          in.atom = a;
          found = true;
        }
      if (!found) unsupported(op, "an atomic operation .add, .min, .max or .exch");
      in.type = take_type();
      no_more();
      if (in.atom == atom_op::add) one_of(in.type, {dtype::u32, dtype::s32, dtype::f32});
      else if (in.atom == atom_op::exch) one_of(in.type, {dtype::b32, dtype::u32, dtype::s32});
      else one_of(in.type, {dtype::u32, dtype::s32});
      need(op, ops, 3);
      dest(0, in.type);
      set(1, address(ops[1], in.sp));
      src(2, in.type);
    } else if (head == "mbarrier") {
      // mbarrier.init / arrive / arrive.expect_tx / try_wait.parity, .shared::cta (or .shared), .b64
      const bool init = take("init"), arrive = take("arrive"), expect = take("expect_tx"), try_wait = take("try_wait");
      const bool parity = take("parity");
      if (!take("shared::cta")) take("shared");
      take("release");
      take("acquire");
      take("cta");
      in.type = take_type();
      no_more();
      one_of(in.type, {dtype::b64});
      in.sp = space::shared;
      if (init && !arrive && !try_wait) {
        in.op = opcode::mbar_init;
        need(op, ops, 2);
        set(0, address(ops[0], space::shared));
        src(1, dtype::u32);
      } else if (arrive && !init && !try_wait) {
        in.op = expect ? opcode::mbar_arrive_tx : opcode::mbar_arrive;
        need(op, ops, expect ? 3 : 2);
        if (!(ops[0].toks.size() == 1 && ops[0].toks[0].s == "_")) dest(0, dtype::b64);  // the state (or the sink _)
        set(1, address(ops[1], space::shared));
        if (expect) src(2, dtype::u32);
      } else if (try_wait && parity && !init && !arrive) {
        in.op = opcode::mbar_try_wait;
        need(op, ops, 3);
        dest(0, dtype::pred);
        set(1, address(ops[1], space::shared));
        src(2, dtype::u32);
      } else {
        unsupported(op, "mbarrier.init, mbarrier.arrive[.expect_tx] and mbarrier.try_wait.parity");
      }
    } else if (head == "cp") {
      // cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [map, {c0, ..}], [bar]
      in.op = opcode::tma_load;
      const bool ok = take("async") && take("bulk") && take("tensor") && take("global") &&
                      take("mbarrier::complete_tx::bytes") && (take("shared::cluster") || take("shared::cta"));
      for (unsigned d = 1; d <= 5; ++d)
        if (take(std::to_string(d) + "d")) in.rank = d;
      take("tile");
      if (!ok || in.rank == 0) unsupported(op, "cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes");
      no_more();
      need(op, ops, 3);
      set(0, address(ops[0], space::shared));
      // [map, {c0, ..}]: the tensor map's generic address, then the coordinates
      const raw_operand& mo = ops[1];
      if (mo.toks.size() < 6 || mo.toks.front().s != "[" || mo.toks.back().s != "]" || mo.toks[2].s != ",")
        fail(mo.toks[0], "[tensor map, {coordinates}]", quoted(mo.text));
      raw_operand map;
      map.toks = {mo.toks[1]};
      map.text = mo.toks[1].s;
      set(1, value(map, op, dtype::b64, reg_only));
      raw_operand coords;
      coords.toks.assign(mo.toks.begin() + 3, mo.toks.end() - 1);
      for (const auto& t : coords.toks) coords.text += t.s;
      group(coords, op, dtype::b32, in.rank, in);
      set(2, address(ops[2], space::shared));
    } else if (head == "wgmma") {
      take("sync");
      take("aligned");
      if (take("fence")) {
        in.op = opcode::wgmma_fence;
        no_more();
        need(op, ops, 0);
      } else if (take("commit_group")) {
        in.op = opcode::wgmma_commit;
        no_more();
        need(op, ops, 0);
      } else if (take("wait_group")) {
        in.op = opcode::wgmma_wait;
        no_more();
        need(op, ops, 1);
        const operand n = value(ops[0], op, dtype::u32, allow_imm);
        if (n.k != operand::kind::imm || n.imm > 7) fail(ops[0].toks[0], "a group count 0 .. 7", quoted(ops[0].text));
        set(0, n);
      } else if (take("mma_async")) {
        // wgmma.mma_async.sync.aligned.m64nNkK.f32.ATYPE.BTYPE {d..}, desc-a, desc-b, scale-d, imm-scale-a,
        // imm-scale-b, tnsp-a, tnsp-b (K = 16: bf16 or f16; 8: tf32; 32: e4m3 or e5m2)
        in.op = opcode::wgmma_mma;
        std::string shape;
        for (const auto& m : mods)
          if (m.size() > 5 && m.compare(0, 4, "m64n") == 0) shape = m;
        take(shape);
        unsigned n = 0, kk = 0;
        if (const std::size_t kp = shape.find('k'); !shape.empty() && kp != std::string::npos && kp > 4) {
          n = static_cast<unsigned>(std::strtoul(shape.substr(4, kp - 4).c_str(), nullptr, 10));
          kk = static_cast<unsigned>(std::strtoul(shape.substr(kp + 1).c_str(), nullptr, 10));
        }
        if (n < 8 || n > 256 || n % 8 || (kk != 16 && kk != 8 && kk != 32))
          unsupported(op, "the shape m64nNkK (N = 8 .. 256 in steps of 8; K = 16, 8 or 32)");
        in.rank = n;
        const auto mma_type = [&](element_type& e) {
          if (mods.empty()) return false;
          static const std::pair<const char*, element_type> names[] = {
              {"bf16", element_type::bf16}, {"f16", element_type::f16}, {"tf32", element_type::tf32},
              {"e4m3", element_type::e4m3}, {"e5m2", element_type::e5m2}};
          for (const auto& [name, t] : names)
            if (mods.back() == name) {
              e = t;
              mods.pop_back();
              return true;
            }
          return false;
        };
        element_type ta = element_type::f16, tb = element_type::f16;
        const bool types = mma_type(tb) && mma_type(ta);
        const dtype d = take_type();
        no_more();
        const bool sixteen = ta == element_type::bf16 || ta == element_type::f16;
        if (!types || d != dtype::f32 || 32 / element_bytes(ta) != kk || element_bytes(tb) != element_bytes(ta) ||
            (sixteen && ta != tb))
          unsupported(op, ".f32 accumulators from .bf16 or .f16 (K = 16), .tf32 (K = 8) or .e4m3/.e5m2 (K = 32) inputs");
        in.mma_a = ta;
        in.mma_b = tb;
        in.type = ta == element_type::bf16 ? dtype::bf16 : dtype::f16;
        need(op, ops, 8);
        const unsigned count = n / 2;
        group(ops[0], op, dtype::f32, count, in);
        set(0, [] { operand g; g.k = operand::kind::group; return g; }());
        src(1, dtype::b64, reg_only);
        src(2, dtype::b64, reg_only);
        set(3, value(ops[3], op, dtype::pred, allow_imm));
        for (unsigned i = 4; i < 8; ++i) set(i, value(ops[i], op, dtype::s32, allow_imm));
      } else {
        unsupported(op, "wgmma.fence, wgmma.mma_async, wgmma.commit_group and wgmma.wait_group");
      }
    } else if (head == "fence") {
      in.op = opcode::fence;  // (ordering between the memory proxies: every access here is in order)
      mods.clear();
      need(op, ops, 0);
    } else if (head == "setmaxnreg") {
      in.op = opcode::setmaxnreg;
      in.increase = take("inc");
      if (!in.increase && !take("dec")) unsupported(op, "setmaxnreg.inc or setmaxnreg.dec");
      take("sync");
      take("aligned");
      in.type = take_type();
      no_more();
      one_of(in.type, {dtype::u32});
      need(op, ops, 1);
      const operand n = value(ops[0], op, dtype::u32, allow_imm);
      if (n.k != operand::kind::imm || n.imm < 24 || n.imm > 256 || n.imm % 8)
        fail(ops[0].toks[0], "a register count 24 .. 256, a multiple of 8", quoted(ops[0].text));
      set(0, n);
    } else if (head == "elect") {
      in.op = opcode::elect;
      if (!take("sync")) unsupported(op, "elect.sync");
      no_more();
      need(op, ops, 2);
      // d|p, membermask: d the elected lane's index (or the sink _), p whether this thread is it
      // (ops: d, membermask, p)
      const raw_operand& d = ops[0];
      if (d.toks.size() != 3 || d.toks[1].s != "|") fail(d.toks[0], "d|p (a register or _, and a predicate)", quoted(d.text));
      raw_operand dr, pr;
      dr.toks = {d.toks[0]};
      dr.text = d.toks[0].s;
      pr.toks = {d.toks[2]};
      pr.text = d.toks[2].s;
      if (dr.text != "_") set(0, value(dr, op, dtype::b32, reg_only));
      src(1, dtype::b32);  // the membermask
      set(2, value(pr, op, dtype::pred, reg_only));
    } else if (head == "ret" || head == "exit") {
      in.op = head == "ret" ? opcode::ret : opcode::exit;
      no_more();
      need(op, ops, 0);
    } else {
      unsupported(op);
    }
  }

  std::string file_;
  module m_;
  std::vector<token> toks_;
  std::vector<std::string> lines_;
  std::size_t pos_ = 0;
  kernel* k_ = nullptr;
  std::vector<std::map<std::string, std::uint32_t>> scopes_;
  std::map<std::string, std::uint32_t> regs_by_name_;
  std::uint64_t declared_ = 0;  // registers declared in the whole file
  // Labels are local to the { } scope that defines them (nvcc's inline assembly repeats its
  // labels, each copy in a scope of its own): per open scope, its labels and the branches
  // made in it not resolved yet.
  std::vector<std::map<std::string, std::uint32_t>> labels_;
  std::vector<std::vector<std::pair<std::size_t, token>>> pending_;
  // At the end of a scope: its branches to its labels are resolved, the others go to the
  // enclosing scope (at the end of the kernel: every branch must be resolved).
  void resolve_labels(bool kernel_end) {
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
  std::vector<shared_var> module_shared_, shared_;
  std::uint32_t loc_file_ = 0, loc_line_ = 0;
};
}  // namespace

const char* name_of(dtype t) {
  for (const auto& [n, ty] : type_names)
    if (ty == t) return n;
  return "none";
}

module read(const std::string& text, const std::string& file) { return reader(text, file).run(); }

module read_file(const std::string& path) { return read(read_source(path, "a PTX file"), path); }

const kernel& find_kernel(const module& m, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& k : m.kernels) {
    if (k.name == name) return k;
    names.push_back(k.name);
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  const std::string hint = did_you_mean(name, names);
  throw input_error(m.file + ": expected a kernel entry of the file (" + list + ")" + (hint.empty() ? "" : "; " + hint) +
                    ", found '" + name + "'");
}

std::string where(const module& m, const kernel& k, const instruction& in) {
  std::string s = k.file + ":" + std::to_string(in.line) + " (" + in.text + ")";
  if (in.loc_file) {
    const auto it = m.files.find(in.loc_file);
    if (it != m.files.end()) s += ", " + it->second + ":" + std::to_string(in.loc_line);
  }
  return s;
}

}  // namespace flynn::ptx

// The PTX reader: tokens, directives, declarations and instructions of the supported subset
// (docs/isa/ptx.md), checked as they are read. This file: the types, the module's directives
// and the kernel entries; kernel bodies are in ptx_body.cpp, operands in ptx_operands.cpp and
// the instructions' decoders in ptx_decode*.cpp.
#include <algorithm>

#include "flynn/common/format.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/ptx.h"
#include "ptx_reader.h"

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
}  // namespace

dtype type_named(const std::string& s) {
  for (const auto& [n, t] : type_names)
    if (s == n) return t;
  return dtype::none;
}

const char* name_of(dtype t) {
  for (const auto& [n, ty] : type_names)
    if (ty == t) return n;
  return "none";
}

reader::reader(const std::string& text, std::string file) : file_(std::move(file)) {
  m_.file = file_;
  source src = lex(text, file_);
  toks_ = std::move(src.toks);
  lines_ = std::move(src.lines);
}

module reader::run() {
  while (peek().kind != token::end) top_level();
  if (m_.kernels.empty()) fail(peek(), "a .entry kernel", "none in the file");
  return std::move(m_);
}

const token& reader::expect(const std::string& s, const std::string& what) {
  if (peek().s != s || peek().kind == token::string || peek().kind == token::end)
    fail(peek(), what.empty() ? quoted(s) : what);
  return next();
}

bool reader::accept(const std::string& s) {
  if (peek().kind != token::string && peek().kind != token::end && peek().s == s) {
    next();
    return true;
  }
  return false;
}

const token& reader::identifier(const std::string& what) {
  if (peek().kind != token::ident) fail(peek(), what);
  return next();
}

std::uint64_t reader::unsigned_number(const std::string& what) {
  const token& t = peek();
  std::uint64_t v = 0;
  if (t.kind != token::number || !parse_integer(t.s, v)) fail(t, what);
  next();
  return v;
}

void reader::top_level() {
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

void reader::file_directive() {
  const token& d = next();
  const std::uint64_t n = unsigned_number("a file number");
  if (peek().kind != token::string) fail(peek(), "a file name in quotes");
  m_.files[static_cast<std::uint32_t>(n)] = next().s;
  skip_line(d.line);  // (optional timestamp and size)
}

void reader::shared_declaration(bool is_extern, std::vector<shared_var>& into) {
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

void reader::entry() {
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
  resolve_labels(true);
  place_shared(k);
  compact_registers(k);
  m_.kernels.push_back(std::move(k));
  k_ = nullptr;
}

void reader::place_shared(kernel& k) {
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
}

void reader::compact_registers(kernel& k) {
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

void reader::params(kernel& k) {
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

// The PTX reader's operands: registers (declared, of the instruction's type), special
// registers, immediates, addresses and register vectors, checked against the kernel.
#include <algorithm>

#include "flynn/common/format.h"
#include "flynn/platform/errors.h"
#include "ptx_reader.h"

namespace flynn::ptx {

namespace {
const std::pair<const char*, sreg> sreg_names[] = {
    {"%tid.x", sreg::tid_x},       {"%tid.y", sreg::tid_y},       {"%tid.z", sreg::tid_z},
    {"%ntid.x", sreg::ntid_x},     {"%ntid.y", sreg::ntid_y},     {"%ntid.z", sreg::ntid_z},
    {"%ctaid.x", sreg::ctaid_x},   {"%ctaid.y", sreg::ctaid_y},   {"%ctaid.z", sreg::ctaid_z},
    {"%nctaid.x", sreg::nctaid_x}, {"%nctaid.y", sreg::nctaid_y}, {"%nctaid.z", sreg::nctaid_z},
    {"%laneid", sreg::laneid},     {"%warpid", sreg::warpid}};
}  // namespace

std::uint32_t reader::reg_of(const token& t, dtype want_class) {
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

void reader::unsupported(const token& op, const std::string& why) {
  fail(op, "a supported instruction (docs/isa/ptx.md)" + (why.empty() ? "" : "; " + why), quoted(op.s));
}

operand reader::value(const raw_operand& o, const token& op, dtype ty, unsigned allow, unsigned min_reg_bytes) {
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

std::uint64_t reader::immediate(const raw_operand& o, dtype ty) {
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

std::int32_t reader::shared_index(const std::string& n) const {
  for (std::size_t i = 0; i < shared_.size(); ++i)
    if (shared_[i].name == n) return static_cast<std::int32_t>(i);
  return -1;
}

std::int32_t reader::param_index(const std::string& n) const {
  for (std::size_t i = 0; i < k_->params.size(); ++i)
    if (k_->params[i].name == n) return static_cast<std::int32_t>(i);
  return -1;
}

operand reader::address(const raw_operand& o, space sp) {
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

operand reader::group(const raw_operand& o, const token& op, dtype ty, unsigned count, instruction& in) {
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

void reader::need(const token& op, const std::vector<raw_operand>& ops, unsigned n) {
  if (ops.size() != n)
    fail(op, std::to_string(n) + " operands for " + quoted(op.s), std::to_string(ops.size()));
}

}  // namespace flynn::ptx

// The SIMT decoders' table by mnemonic base, and the suffix and operand-count checks they
// share.
#include "simt_asm_decode.h"

#include "flynn/platform/errors.h"

namespace flynn::simt::assembly {

namespace {

struct family {
  const char* name;  // the mnemonic's base (before the first '.')
  op code;           // the opcode before the suffixes are read
  family_decoder* decode;
};

// The decoder of each mnemonic base, in the order unknown-mnemonic hints consider them.
const family families[] = {
    {"mov", op::mov, decode_mov},        {"ldparam", op::ldparam, decode_ldparam},
    {"add", op::add, decode_alu},        {"sub", op::sub, decode_alu},
    {"mul", op::mul, decode_mul},        {"mulhi", op::mulhi, decode_alu},
    {"mad", op::mad, decode_r4},         {"div", op::div, decode_alu},
    {"rem", op::rem, decode_alu},        {"and", op::and_, decode_alu},
    {"or", op::or_, decode_alu},         {"xor", op::xor_, decode_alu},
    {"not", op::not_, decode_unary},     {"shl", op::shl, decode_alu},
    {"shr", op::shr, decode_alu},        {"sra", op::sra, decode_alu},
    {"min", op::min, decode_alu},        {"max", op::max, decode_alu},
    {"fadd", op::fadd, decode_falu},     {"fsub", op::fsub, decode_falu},
    {"fmul", op::fmul, decode_falu},     {"ffma", op::ffma, decode_r4},
    {"fmin", op::fmin, decode_falu},     {"fmax", op::fmax, decode_falu},
    {"fdiv", op::fdiv, decode_falu},     {"fsqrt", op::fsqrt, decode_unary},
    {"cvt", op::cvt_f_s, decode_cvt},    {"setp", op::setp, decode_setp},
    {"selp", op::selp, decode_selp},     {"ld", op::ld, decode_ld},
    {"st", op::st, decode_st},           {"bra", op::bra, decode_bra},
    {"bar", op::bar, decode_bar},        {"exit", op::exit, decode_plain},
    {"nop", op::nop, decode_plain},
    {"mbarrier", op::mbar_init, decode_mbarrier}, {"tma", op::tma_load, decode_tma},
    {"wgmma", op::wgmma, decode_wgmma},
    {"mov64", op::mov64, decode_mov64},  {"add64", op::add64, decode_add64},
    {"cvt64", op::cvt64, decode_cvt64},  {"plogic", op::plogic, decode_plogic},
    {"atom", op::atom, decode_atom},     {"shfl", op::shfl, decode_shfl},
    {"logic64", op::logic64, decode_logic64}, {"elect", op::elect, decode_elect},
    {"mma", op::mma_sync, decode_mma},
};

const family* find_family(const std::string& base) {
  for (const auto& f : families)
    if (base == f.name) return &f;
  return nullptr;
}

// Suggestion for an unknown mnemonic: the nearest full form (cvt.f.s, bar.sync, ...), else
// the nearest base name.
std::string mnemonic_hint(const std::string& name, const std::string& base) {
  std::vector<std::string> full, bases;
  for (const auto& f : families) {
    bases.emplace_back(f.name);
    if (f.code == op::cvt_f_s) {
      full.emplace_back("cvt.f.s");
      full.emplace_back("cvt.s.f");
    } else {
      full.emplace_back(mnemonic(f.code));
    }
  }
  std::string hint = did_you_mean(name, full);
  if (hint.empty()) hint = did_you_mean(base, bases);
  return hint;
}

std::vector<part> suffix_parts(const token& head, std::size_t base_len) {
  std::vector<part> parts;
  std::size_t i = base_len;
  while (i < head.s.size()) {  // head.s[i] == '.'
    std::size_t j = head.s.find('.', i + 1);
    if (j == std::string::npos) j = head.s.size();
    part p;
    p.orig = head.s.substr(i, j - i);
    p.s = lower(p.orig.substr(1));
    p.col = head.col + static_cast<unsigned>(i);
    parts.push_back(std::move(p));
    i = j;
  }
  return parts;
}

}  // namespace

void decode(assembler& a, const token& head, const std::vector<token>& labels, const std::vector<operand>& ops,
            instr& in) {
  decoder d{a, head, labels, ops, in, lower(head.s), {}, {}, {}, {}};
  d.base = d.name.substr(0, d.name.find('.'));
  const family* f = find_family(d.base);
  if (!f) a.fail_hint(head.col, "an instruction mnemonic", mnemonic_hint(d.name, d.base), quoted(head.s));
  in.code = f->code;
  d.parts = suffix_parts(head, d.base.size());
  d.rest = head.s.substr(d.base.size());
  d.display = f->name;
  f->decode(d);
}

void decoder::bad_suffix(const std::string& expected) const {
  a.fail(parts.empty() ? head.col : parts[0].col, expected, quoted(parts.empty() ? head.s : rest));
}

void decoder::bad_part(std::size_t i, const std::string& expected) const {
  a.fail(parts.size() <= i ? head.col : parts[i].col, expected, quoted(parts.size() <= i ? head.s : parts[i].orig));
}

void decoder::no_suffix() const {
  if (!parts.empty())
    a.fail(parts[0].col,
           "no suffix (only setp, ld, st, cvt, cvt64, mul.wide, plogic, logic64, elect, ldparam and bar take suffixes)",
           quoted(rest));
}

void decoder::operands(unsigned want, const std::string& use) const {
  a.check_count(ops, want, want, display + (use.empty() ? "" : " ") + use, head.col);
  a.define_labels(labels);
}

void decoder::registers(unsigned n, const std::string& use) {
  operands(n, use);
  std::uint8_t* const regs[] = {&in.rd, &in.ra, &in.rb, &in.rc};
  for (unsigned i = 0; i < n; ++i) *regs[i] = reg(i);
}

}  // namespace flynn::simt::assembly

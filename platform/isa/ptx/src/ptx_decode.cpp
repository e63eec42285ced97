// The PTX decoders' table by opcode head, and the modifiers and operands they share.
#include "ptx_decode.h"

#include <algorithm>
#include <unordered_map>

namespace flynn::ptx {

namespace {

// The decoder of each opcode head.
const std::unordered_map<std::string, decode_fn>& families() {
  static const std::unordered_map<std::string, decode_fn> table = {
      {"add", decode_add}, {"sub", decode_add}, {"min", decode_add}, {"max", decode_add},
      {"mul", decode_mul}, {"mad", decode_mad}, {"fma", decode_mad}, {"div", decode_div}, {"rem", decode_div},
      {"and", decode_logic}, {"or", decode_logic}, {"xor", decode_logic}, {"not", decode_logic},
      {"shl", decode_shift}, {"shr", decode_shift}, {"setp", decode_setp}, {"selp", decode_selp},
      {"mov", decode_mov}, {"cvt", decode_cvt}, {"cvta", decode_cvta},
      {"ld", decode_ld_st}, {"st", decode_ld_st}, {"atom", decode_atom}, {"fence", decode_fence},
      {"bra", decode_bra}, {"bar", decode_bar}, {"barrier", decode_bar}, {"shfl", decode_shfl},
      {"elect", decode_elect}, {"setmaxnreg", decode_setmaxnreg}, {"ret", decode_exit}, {"exit", decode_exit},
      {"mbarrier", decode_mbarrier}, {"cp", decode_cp}, {"wgmma", decode_wgmma}};
  return table;
}

}  // namespace

void decode(reader& r, const token& op, const std::vector<raw_operand>& ops, instruction& in) {
  decoder d{r, op, ops, in, {}, {}};
  // Split "ld.global.f32" into the head and its modifiers.
  std::size_t p = 0;
  while (p <= op.s.size()) {
    std::size_t dot = op.s.find('.', p);
    if (dot == std::string::npos) dot = op.s.size();
    (d.head.empty() && p == 0 ? d.head : d.mods.emplace_back()) = op.s.substr(p, dot - p);
    p = dot + 1;
  }
  const auto it = families().find(d.head);
  if (it == families().end()) d.unsupported();
  it->second(d);
}

bool decoder::take(const std::string& m) {
  const auto it = std::find(mods.begin(), mods.end(), m);
  if (it == mods.end()) return false;
  mods.erase(it);
  return true;
}

dtype decoder::take_type() {
  if (mods.empty()) return dtype::none;
  const dtype t = type_named(mods.back());
  if (t != dtype::none) mods.pop_back();
  return t;
}

void decoder::no_more() {
  if (!mods.empty()) unsupported("modifier ." + mods.front() + " is not supported");
}

void decoder::one_of(dtype t, std::initializer_list<dtype> ok) {
  if (std::find(ok.begin(), ok.end(), t) == ok.end()) unsupported();
}

void decoder::set(unsigned i, operand o) {
  in.ops[i] = o;
  in.nops = std::max(in.nops, i + 1);
}

void decoder::dest(unsigned i, dtype ty, unsigned min_bytes) { set(i, value(ops[i], ty, reg_only, min_bytes)); }

void decoder::src(unsigned i, dtype ty, unsigned allow) { set(i, value(ops[i], ty, allow)); }

space decoder::space_of(std::initializer_list<std::pair<const char*, space>> ok) {
  for (const auto& [n, s] : ok)
    if (take(n)) return s;
  unsupported("a state space is needed");
}

}  // namespace flynn::ptx

// Liveness of a PTX kernel's virtual registers over its control-flow graph, and the live
// interval each register holds in the instruction order.
#include <algorithm>
#include <cstddef>

#include "flynn/platform/errors.h"
#include "ptx_lower_parts.h"

namespace flynn::ptx {

namespace {

usage usage_of(const instruction& in) {
  usage u;
  if (in.guard >= 0) u.uses.push_back(static_cast<std::uint32_t>(in.guard));
  const bool has_dest = in.op != opcode::st && in.op != opcode::bra && in.op != opcode::bar && in.op != opcode::ret &&
                        in.op != opcode::exit && in.op != opcode::mbar_init && in.op != opcode::tma_load &&
                        in.op != opcode::wgmma_wait && in.op != opcode::setmaxnreg;
  for (unsigned i = 0; i < in.nops; ++i) {
    const operand& o = in.ops[i];
    const bool def = (i == 0 && has_dest) || (in.op == opcode::shfl && i == 5) ||  // (shfl's d|p)
                     (in.op == opcode::elect && i == 2);                             // (elect's p)
    if (o.k == operand::kind::reg) (def ? u.defs : u.uses).push_back(o.reg);
    if (o.k == operand::kind::address && o.base_reg) u.uses.push_back(o.reg);
    if (o.k == operand::kind::group)
      for (const auto r : in.group) {
        (def ? u.defs : u.uses).push_back(r);
        if (in.op == opcode::wgmma_mma) u.uses.push_back(r);  // (the accumulators: read and written)
      }
  }
  if (in.op == opcode::tma_load)  // the coordinates
    for (const auto r : in.group) u.uses.push_back(r);
  return u;
}

constexpr std::uint64_t max_liveness_bits = std::uint64_t(1) << 28;  // 32 MiB of live sets

struct bitset {
  std::vector<std::uint64_t> w;
  explicit bitset(std::size_t n = 0) : w((n + 63) / 64, 0) {}
  void set(std::size_t i) { w[i / 64] |= 1ull << (i % 64); }
  void reset(std::size_t i) { w[i / 64] &= ~(1ull << (i % 64)); }
  bool test(std::size_t i) const { return (w[i / 64] >> (i % 64)) & 1u; }
  bool operator!=(const bitset& o) const { return w != o.w; }
};

// The instructions control may pass to after instruction i (into s): its branch target, and
// the next instruction unless it ends the path unguarded.
unsigned successors(const kernel& k, std::size_t i, std::size_t* s) {
  const instruction& in = k.code[i];
  unsigned c = 0;
  const bool unguarded = in.guard < 0;
  if (in.op == opcode::bra) s[c++] = in.target;
  const bool ends = (in.op == opcode::bra || in.op == opcode::ret || in.op == opcode::exit) && unguarded;
  if (!ends && i + 1 < k.code.size()) s[c++] = i + 1;
  return c;
}

// The registers live into each instruction, to a fixed point (a guarded write does not end a
// live range: the threads whose guard fails keep the old value).
std::vector<bitset> live_in_sets(const kernel& k, const std::vector<usage>& use) {
  const std::size_t n = k.code.size(), nregs = k.regs.size();
  std::vector<bitset> live_in(n, bitset(nregs));
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t j = n; j-- > 0;) {
      bitset out_set(nregs);
      std::size_t s[2];
      const unsigned c = successors(k, j, s);
      for (unsigned x = 0; x < c; ++x)
        if (s[x] < n)
          for (std::size_t q = 0; q < out_set.w.size(); ++q) out_set.w[q] |= live_in[s[x]].w[q];
      if (k.code[j].guard < 0)
        for (auto d : use[j].defs) out_set.reset(d);
      for (auto u : use[j].uses) out_set.set(u);
      if (out_set != live_in[j]) {
        live_in[j] = std::move(out_set);
        changed = true;
      }
    }
  }
  return live_in;
}

}  // namespace

live_intervals liveness(const kernel& k) {
  const std::size_t n = k.code.size(), nregs = k.regs.size();
  // Liveness keeps a register set per instruction: bounded before it is allocated (time
  // and memory grow with instructions x registers used).
  if (n && std::uint64_t(n) * nregs > max_liveness_bits)
    throw input_error(k.file + ":" + std::to_string(k.code.front().line) + ": expected a kernel of at most 2^28 " +
                      "instructions x registers used (for register allocation), found " + std::to_string(n) +
                      " instructions x " + std::to_string(nregs) + " registers (kernel " + k.name + ")");
  live_intervals live;
  live.use.resize(n);
  for (std::size_t i = 0; i < n; ++i) live.use[i] = usage_of(k.code[i]);
  const std::vector<bitset> live_in = live_in_sets(k, live.use);
  // Live intervals [first, last] over the instruction order (conservative: a register is
  // held from its first to its last point of life).
  live.first.assign(nregs, -1);
  live.last.assign(nregs, -1);
  auto touch = [&](std::size_t r, std::size_t i) {
    if (live.first[r] < 0) live.first[r] = static_cast<std::int64_t>(i);
    live.last[r] = std::max(live.last[r], static_cast<std::int64_t>(i));
  };
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t r = 0; r < nregs; ++r)
      if (live_in[i].test(r)) touch(r, i);
    for (auto d : live.use[i].defs) touch(d, i);
    for (auto u : live.use[i].uses) touch(u, i);
  }
  return live;
}

}  // namespace flynn::ptx

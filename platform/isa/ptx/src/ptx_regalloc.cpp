// Register allocation of a PTX kernel: vector operands' registers grouped into consecutive
// registers, and a linear scan over the live intervals onto the core's registers r0..r255
// (64-bit values in aligned pairs) and predicates p0..p7.
#include <algorithm>
#include <cstddef>

#include "flynn/platform/errors.h"
#include "ptx_lower_parts.h"

namespace flynn::ptx {

namespace {

// The registers of a vector operand ({%a, %b, %c, %d}), which sit in consecutive registers
// in their order, and the group each register is in (-1: none).
struct register_groups {
  std::vector<std::vector<std::uint32_t>> groups;
  std::vector<std::int32_t> group_of;
};

// An allocation unit: a register, or a group allocated as one unit over the union of its
// members' ranges.
struct unit {
  std::int64_t first = 0, last = 0;
  std::int32_t reg = -1, grp = -1;
};

[[noreturn]] void too_many(const kernel& k, const instruction& in, const std::string& what) {
  throw input_error(k.file + ":" + std::to_string(in.line) + ": expected a kernel the core's registers can hold, found " +
                    what + " live at once at '" + in.text + "' (kernel " + k.name + ")");
}

// k's register groups; a register in two groups with other members is refused.
register_groups groups_of(const kernel& k) {
  register_groups rg;
  rg.group_of.assign(k.regs.size(), -1);
  for (const instruction& in : k.code) {
    if (in.group.empty() || in.op == opcode::tma_load) continue;  // (coordinates are listed one by one)
    std::int32_t g = rg.group_of[in.group[0]];
    if (g < 0 || rg.groups[static_cast<std::size_t>(g)] != in.group) {
      for (const auto r : in.group)
        if (rg.group_of[r] >= 0)
          throw input_error(k.file + ":" + std::to_string(in.line) +
                            ": expected vector operands that group a register with the same others each time, found '" +
                            in.text + "' (" + k.regs[r].name + " is in another group)");
      g = static_cast<std::int32_t>(rg.groups.size());
      rg.groups.push_back(in.group);
      for (const auto r : in.group) rg.group_of[r] = g;
    }
  }
  return rg;
}

// The allocation units in order of first use.
std::vector<unit> units_of(const live_intervals& live, const register_groups& rg) {
  std::vector<unit> units;
  for (std::uint32_t r = 0; r < rg.group_of.size(); ++r)
    if (live.first[r] >= 0 && rg.group_of[r] < 0)
      units.push_back({live.first[r], live.last[r], static_cast<std::int32_t>(r), -1});
  for (std::size_t g = 0; g < rg.groups.size(); ++g) {
    unit u{INT64_MAX, -1, -1, static_cast<std::int32_t>(g)};
    for (const auto r : rg.groups[g]) {
      u.first = std::min(u.first, live.first[r]);
      u.last = std::max(u.last, live.last[r]);
    }
    units.push_back(u);
  }
  std::stable_sort(units.begin(), units.end(), [](const unit& a, const unit& b) { return a.first < b.first; });
  return units;
}

// The 32-bit registers register r takes.
unsigned slots(const kernel& k, std::uint32_t r) { return size_of(k.regs[r].type) == 8 ? 2u : 1u; }

// Places unit u, a predicate, in the lowest predicate free over its interval.
void place_predicate(const kernel& k, const unit& u, std::vector<std::int64_t>& pred_free_after, lowered& out) {
  const std::int64_t s = u.first;
  unsigned p = 0;
  while (p < 8 && pred_free_after[p] >= s) ++p;
  if (p == 8) too_many(k, k.code[static_cast<std::size_t>(s)], "more than 8 predicates");
  pred_free_after[p] = u.last;
  out.placement[static_cast<std::size_t>(u.reg)] = static_cast<std::int32_t>(p);
  out.predicates = std::max(out.predicates, p + 1);
}

// Places unit u in the lowest free run of registers over its interval (aligned pair, group).
void place_registers(const kernel& k, const register_groups& rg, const unit& u,
                     std::vector<std::int64_t>& gen_free_after, lowered& out) {
  const std::int64_t s = u.first;
  unsigned width = 0;
  if (u.reg >= 0) width = slots(k, static_cast<std::uint32_t>(u.reg));
  else
    for (const auto r : rg.groups[static_cast<std::size_t>(u.grp)]) width += slots(k, r);
  const unsigned align = width >= 4 ? 4 : width >= 2 ? 2 : 1;  // (pairs even, 128-bit groups at multiples of 4)
  unsigned g = 0;
  const auto free_at = [&](unsigned b) {
    for (unsigned x = 0; x < width; ++x)
      if (gen_free_after[b + x] >= s) return false;
    return true;
  };
  while (g + width <= simt::num_registers && !free_at(g)) g += align;
  if (g + width > simt::num_registers) too_many(k, k.code[static_cast<std::size_t>(s)], "more than 256 32-bit registers");
  for (unsigned x = 0; x < width; ++x) gen_free_after[g + x] = u.last;
  if (u.reg >= 0) {
    out.placement[static_cast<std::size_t>(u.reg)] = static_cast<std::int32_t>(g);
  } else {
    unsigned at_slot = g;
    for (const auto r : rg.groups[static_cast<std::size_t>(u.grp)]) {
      out.placement[r] = static_cast<std::int32_t>(at_slot);
      at_slot += slots(k, r);
    }
  }
  out.registers = std::max(out.registers, g + width);
}

}  // namespace

void allocate(const kernel& k, const live_intervals& live, lowered& out) {
  const register_groups rg = groups_of(k);
  // Linear scan: the lowest free register (aligned pair, group) or predicate.
  out.placement.assign(k.regs.size(), -1);
  std::vector<std::int64_t> gen_free_after(simt::num_registers, -1), pred_free_after(8, -1);  // busy through that index
  for (const unit& u : units_of(live, rg)) {
    if (u.reg >= 0 && k.regs[static_cast<std::size_t>(u.reg)].type == dtype::pred) place_predicate(k, u, pred_free_after, out);
    else place_registers(k, rg, u, gen_free_after, out);
  }
}

}  // namespace flynn::ptx

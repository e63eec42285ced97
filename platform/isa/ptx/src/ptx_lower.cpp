// Lowering of PTX kernels to the SIMT ISA: live ranges, register allocation, and one SIMT
// instruction per PTX instruction.
#include "flynn/platform/ptx_lower.h"

#include <algorithm>
#include <numeric>

#include "flynn/platform/errors.h"

namespace flynn::ptx {

namespace {

// The virtual registers an instruction reads and writes.
struct usage {
  std::vector<std::uint32_t> uses, defs;
};

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

[[noreturn]] void too_many(const kernel& k, const instruction& in, const std::string& what) {
  throw input_error(k.file + ":" + std::to_string(in.line) + ": expected a kernel the core's registers can hold, found " +
                    what + " live at once at '" + in.text + "' (kernel " + k.name + ")");
}

}  // namespace

[[noreturn]] void refuse(const kernel& k, const instruction& in, const std::string& expected) {
  throw input_error(k.file + ":" + std::to_string(in.line) + ": expected " + expected + ", found '" + in.text + "'");
}

// The parameter whose address register `reg` holds where instruction `at` reads it: its one
// definition is mov.b64 %rd, PARAM, or cvta.param.u64 of such a register.
unsigned tensor_map_param(const kernel& k, const std::vector<usage>& use, const instruction& at, std::uint32_t reg,
                          unsigned depth = 0) {
  const instruction* def = nullptr;
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    const auto& defs = use[i].defs;
    if (std::find(defs.begin(), defs.end(), reg) == defs.end()) continue;
    if (def || k.code[i].guard >= 0) {  // more than one definition, or a guarded one: none known
      def = nullptr;
      break;
    }
    def = &k.code[i];
  }
  if (def && def->op == opcode::mov && def->ops[1].k == operand::kind::symbol && def->ops[1].param)
    return static_cast<unsigned>(def->ops[1].symbol);
  if (def && depth < 4 && def->op == opcode::cvta && def->sp == space::param)
    return tensor_map_param(k, use, at, def->ops[1].reg, depth + 1);
  refuse(k, at, "a tensor map operand that holds a parameter's address (one mov.b64 %rd, PARAM, or cvta.param.u64 of it)");
}

lowered lower(const module& m, const kernel& k) {
  const std::size_t n = k.code.size(), nregs = k.regs.size();
  // Liveness keeps a register set per instruction: bounded before it is allocated (time
  // and memory grow with instructions x registers used).
  if (n && std::uint64_t(n) * nregs > max_liveness_bits)
    throw input_error(k.file + ":" + std::to_string(k.code.front().line) + ": expected a kernel of at most 2^28 " +
                      "instructions x registers used (for register allocation), found " + std::to_string(n) +
                      " instructions x " + std::to_string(nregs) + " registers (kernel " + k.name + ")");
  lowered out;
  out.code.name = k.name;
  out.code.file = k.file;
  // Liveness over the control-flow graph (a guarded write does not end a live range: the
  // threads whose guard fails keep the old value).
  std::vector<usage> use(n);
  for (std::size_t i = 0; i < n; ++i) use[i] = usage_of(k.code[i]);
  auto successors = [&](std::size_t i, std::size_t* s) {
    const instruction& in = k.code[i];
    unsigned c = 0;
    const bool unguarded = in.guard < 0;
    if (in.op == opcode::bra) s[c++] = in.target;
    const bool ends = (in.op == opcode::bra || in.op == opcode::ret || in.op == opcode::exit) && unguarded;
    if (!ends && i + 1 < n) s[c++] = i + 1;
    return c;
  };
  std::vector<bitset> live_in(n, bitset(nregs));
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t j = n; j-- > 0;) {
      bitset out_set(nregs);
      std::size_t s[2];
      const unsigned c = successors(j, s);
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
  // Live intervals [first, last] over the instruction order (conservative: a register is
  // held from its first to its last point of life).
  std::vector<std::int64_t> first(nregs, -1), last(nregs, -1);
  auto touch = [&](std::size_t r, std::size_t i) {
    if (first[r] < 0) first[r] = static_cast<std::int64_t>(i);
    last[r] = std::max(last[r], static_cast<std::int64_t>(i));
  };
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t r = 0; r < nregs; ++r)
      if (live_in[i].test(r)) touch(r, i);
    for (auto d : use[i].defs) touch(d, i);
    for (auto u : use[i].uses) touch(u, i);
  }
  // Register groups: the registers of a vector operand ({%a, %b, %c, %d}) sit in
  // consecutive registers in their order, so a group is allocated as one unit over the
  // union of its members' ranges. A register in two groups with other members is refused.
  std::vector<std::vector<std::uint32_t>> groups;
  std::vector<std::int32_t> group_of(nregs, -1);
  for (const instruction& in : k.code) {
    if (in.group.empty() || in.op == opcode::tma_load) continue;  // (coordinates are listed one by one)
    std::int32_t g = group_of[in.group[0]];
    if (g < 0 || groups[static_cast<std::size_t>(g)] != in.group) {
      for (const auto r : in.group)
        if (group_of[r] >= 0)
          throw input_error(k.file + ":" + std::to_string(in.line) +
                            ": expected vector operands that group a register with the same others each time, found '" +
                            in.text + "' (" + k.regs[r].name + " is in another group)");
      g = static_cast<std::int32_t>(groups.size());
      groups.push_back(in.group);
      for (const auto r : in.group) group_of[r] = g;
    }
  }
  // Allocation units in order of first use: a register, or a group.
  struct unit {
    std::int64_t first = 0, last = 0;
    std::int32_t reg = -1, grp = -1;
  };
  std::vector<unit> units;
  for (std::uint32_t r = 0; r < nregs; ++r)
    if (first[r] >= 0 && group_of[r] < 0) units.push_back({first[r], last[r], static_cast<std::int32_t>(r), -1});
  for (std::size_t g = 0; g < groups.size(); ++g) {
    unit u{INT64_MAX, -1, -1, static_cast<std::int32_t>(g)};
    for (const auto r : groups[g]) {
      u.first = std::min(u.first, first[r]);
      u.last = std::max(u.last, last[r]);
    }
    units.push_back(u);
  }
  std::stable_sort(units.begin(), units.end(), [](const unit& a, const unit& b) { return a.first < b.first; });
  // Linear scan: the lowest free register (aligned pair, group) or predicate.
  out.placement.assign(nregs, -1);
  std::vector<std::int64_t> gen_free_after(simt::num_registers, -1), pred_free_after(8, -1);  // busy through that index
  const auto slots = [&](std::uint32_t r) { return size_of(k.regs[r].type) == 8 ? 2u : 1u; };
  for (const unit& u : units) {
    const std::int64_t s = u.first;
    const instruction& at = k.code[static_cast<std::size_t>(s)];
    if (u.reg >= 0 && k.regs[static_cast<std::size_t>(u.reg)].type == dtype::pred) {
      unsigned p = 0;
      while (p < 8 && pred_free_after[p] >= s) ++p;
      if (p == 8) too_many(k, at, "more than 8 predicates");
      pred_free_after[p] = u.last;
      out.placement[static_cast<std::size_t>(u.reg)] = static_cast<std::int32_t>(p);
      out.predicates = std::max(out.predicates, p + 1);
      continue;
    }
    unsigned width = 0;
    if (u.reg >= 0) width = slots(static_cast<std::uint32_t>(u.reg));
    else
      for (const auto r : groups[static_cast<std::size_t>(u.grp)]) width += slots(r);
    const unsigned align = width >= 4 ? 4 : width >= 2 ? 2 : 1;  // (pairs even, 128-bit groups at multiples of 4)
    unsigned g = 0;
    const auto free_at = [&](unsigned b) {
      for (unsigned x = 0; x < width; ++x)
        if (gen_free_after[b + x] >= s) return false;
      return true;
    };
    while (g + width <= simt::num_registers && !free_at(g)) g += align;
    if (g + width > simt::num_registers) too_many(k, at, "more than 256 32-bit registers");
    for (unsigned x = 0; x < width; ++x) gen_free_after[g + x] = u.last;
    if (u.reg >= 0) {
      out.placement[static_cast<std::size_t>(u.reg)] = static_cast<std::int32_t>(g);
    } else {
      unsigned at_slot = g;
      for (const auto r : groups[static_cast<std::size_t>(u.grp)]) {
        out.placement[r] = static_cast<std::int32_t>(at_slot);
        at_slot += slots(r);
      }
    }
    out.registers = std::max(out.registers, g + width);
  }

  auto phys = [&](const operand& o) { return static_cast<std::uint8_t>(out.placement[o.reg]); };
  for (const instruction& in : k.code) {
    simt::instr s;
    s.line = in.line;
    s.text = in.text;
    if (in.loc_file) {  // the CUDA line nvcc -lineinfo names, for fault reports and traces
      const auto f = m.files.find(in.loc_file);
      if (f != m.files.end()) s.text += " // " + f->second + ":" + std::to_string(in.loc_line);
    }
    if (in.guard >= 0) {
      s.guard = static_cast<std::uint8_t>(out.placement[static_cast<std::size_t>(in.guard)]);
      s.guard_neg = in.guard_neg;
    }
    const operand* o = in.ops.data();
    auto b_operand = [&](const operand& b) {  // second source: register or immediate
      if (b.k == operand::kind::imm) {
        s.b_imm = true;
        s.imm = static_cast<std::int64_t>(b.imm);
      } else {
        s.rb = phys(b);
      }
    };
    // A memory operand: [reg + offset] (a 32- or 64-bit register), or an absolute address.
    auto memory_address = [&](const operand& a) {
      std::int64_t offset = static_cast<std::int64_t>(a.imm);
      if (a.base_reg) {
        s.ra = phys(a);
        s.addr64 = size_of(k.regs[a.reg].type) == 8;
      } else {
        s.abs_addr = true;
        if (a.symbol >= 0) offset += static_cast<std::int64_t>(k.shared[static_cast<std::size_t>(a.symbol)].offset);
      }
      s.imm = offset;
    };
    const bool wide = size_of(in.type) == 8;
    const bool f32 = in.type == dtype::f32;
    switch (in.op) {
      case opcode::mov:
        if (in.type == dtype::pred) {  // p <- a, as a | a
          s.code = simt::op::plogic;
          s.rd = phys(o[0]);
          s.ra = s.rb = phys(o[1]);
          s.imm = 1;
          break;
        }
        s.code = wide ? simt::op::mov64 : simt::op::mov;
        s.rd = phys(o[0]);
        if (o[1].k == operand::kind::reg) {
          s.ra = phys(o[1]);
        } else if (o[1].k == operand::kind::imm) {
          s.b_imm = true;
          s.imm = static_cast<std::int64_t>(o[1].imm);
        } else if (o[1].k == operand::kind::symbol) {  // a shared variable's address, or a parameter's (its offset)
          s.b_imm = true;
          s.imm = static_cast<std::int64_t>(o[1].param ? k.params[static_cast<std::size_t>(o[1].symbol)].offset
                                                        : k.shared[static_cast<std::size_t>(o[1].symbol)].offset);
        } else {
          static const simt::special map[] = {
              simt::special::tid,    simt::special::tid_y,    simt::special::tid_z,    simt::special::ntid,
              simt::special::ntid_y, simt::special::ntid_z,   simt::special::ctaid,    simt::special::ctaid_y,
              simt::special::ctaid_z, simt::special::nctaid,  simt::special::nctaid_y, simt::special::nctaid_z,
              simt::special::laneid, simt::special::warpid};
          s.sreg = map[static_cast<unsigned>(o[1].special)];
        }
        break;
      case opcode::ld:
      case opcode::st: {
        const operand& data = in.op == opcode::ld ? o[0] : o[1];
        const operand& a = in.op == opcode::ld ? o[1] : o[0];
        if (in.sp == space::param) {
          const param& p = k.params[static_cast<std::size_t>(a.symbol)];
          const std::uint64_t byte = p.offset + a.imm;
          if (byte % 4 || (size_of(in.type) != 4 && size_of(in.type) != 8))
            throw input_error(k.file + ":" + std::to_string(in.line) +
                              ": expected a 32- or 64-bit parameter read at a multiple of 4 bytes, found '" + in.text + "'");
          s.code = simt::op::ldparam;
          s.rd = phys(data);
          s.imm = static_cast<std::int64_t>(byte / 4);
          s.width = static_cast<std::uint8_t>(size_of(in.type));
          break;
        }
        s.code = in.op == opcode::ld ? simt::op::ld : simt::op::st;
        s.sp = in.sp == space::shared ? simt::space::shared : simt::space::global;
        const std::size_t elements = in.group.empty() ? 1 : in.group.size();
        s.width = static_cast<std::uint8_t>(size_of(in.type) * elements);
        s.sign = is_signed(in.type) && size_of(in.type) < 4;
        s.cg = in.cache_global;
        (in.op == opcode::ld ? s.rd : s.rb) =
            in.group.empty() ? phys(data) : static_cast<std::uint8_t>(out.placement[in.group[0]]);
        memory_address(a);
        break;
      }
      case opcode::cvta:  // Flynn's generic addresses are the global memory's
        s.code = simt::op::mov64;
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        break;
      case opcode::add:
        s.code = f32 ? simt::op::fadd : wide ? simt::op::add64 : simt::op::add;
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        b_operand(o[2]);
        break;
      case opcode::sub:
        s.code = f32 ? simt::op::fsub : simt::op::sub;
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        b_operand(o[2]);
        break;
      case opcode::min:
      case opcode::max:
        s.code = in.op == opcode::min ? (f32 ? simt::op::fmin : simt::op::min) : (f32 ? simt::op::fmax : simt::op::max);
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        b_operand(o[2]);
        break;
      case opcode::mul:
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        b_operand(o[2]);
        switch (in.mode) {
          case mul_mode::none: s.code = simt::op::fmul; break;
          case mul_mode::lo: s.code = simt::op::mul; break;
          case mul_mode::hi: s.code = simt::op::mulhi; break;
          case mul_mode::wide:
            s.code = simt::op::mul_wide;
            s.ty = in.type == dtype::s32   ? simt::type::s32
                   : in.type == dtype::u32 ? simt::type::u32
                   : in.type == dtype::s16 ? simt::type::s16
                                           : simt::type::u16;
            break;
        }
        break;
      case opcode::mad:
      case opcode::fma:
        s.code = in.op == opcode::mad ? simt::op::mad : simt::op::ffma;
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        b_operand(o[2]);
        s.rc = phys(o[3]);
        break;
      case opcode::div:
      case opcode::rem:
        s.code = in.op == opcode::rem ? simt::op::rem : f32 ? simt::op::fdiv : simt::op::div;
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        b_operand(o[2]);
        break;
      case opcode::and_:
      case opcode::or_:
      case opcode::xor_:
      case opcode::not_:
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        if (in.type == dtype::pred) {
          s.code = simt::op::plogic;
          s.imm = in.op == opcode::and_ ? 0 : in.op == opcode::or_ ? 1 : in.op == opcode::xor_ ? 2 : 3;
          if (in.op != opcode::not_) s.rb = phys(o[2]);
        } else if (wide) {  // 64-bit: on register pairs (not: xor with all ones)
          s.code = simt::op::logic64;
          s.sub = in.op == opcode::and_ ? 0 : in.op == opcode::or_ ? 1 : 2;
          if (in.op == opcode::not_) {
            s.b_imm = true;
            s.imm = -1;
          } else {
            b_operand(o[2]);
          }
        } else {
          s.code = in.op == opcode::and_  ? simt::op::and_
                   : in.op == opcode::or_ ? simt::op::or_
                   : in.op == opcode::xor_ ? simt::op::xor_
                                           : simt::op::not_;
          if (in.op != opcode::not_) b_operand(o[2]);
        }
        break;
      case opcode::shl:
      case opcode::shr:
        s.code = in.op == opcode::shl ? simt::op::shl : in.type == dtype::s32 ? simt::op::sra : simt::op::shr;
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        b_operand(o[2]);
        break;
      case opcode::setp:
        s.code = simt::op::setp;
        s.cond = static_cast<simt::cmp>(in.cond);
        s.ty = in.type == dtype::f32 ? simt::type::f32 : in.type == dtype::s32 ? simt::type::s32 : simt::type::u32;
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        b_operand(o[2]);
        break;
      case opcode::selp:
        s.code = simt::op::selp;
        s.rd = phys(o[0]);
        if (o[1].k == operand::kind::imm) {
          s.a_imm = true;
          s.imm_b = static_cast<std::uint32_t>(o[1].imm);
        } else {
          s.ra = phys(o[1]);
        }
        b_operand(o[2]);
        s.rc = phys(o[3]);
        break;
      case opcode::cvt:
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        if (size_of(in.type) == 8) {
          s.code = simt::op::cvt64;
          s.ty = is_signed(in.type2) ? simt::type::s32 : simt::type::u32;
        } else if (size_of(in.type2) == 8) {
          s.code = simt::op::mov;  // the low word
        } else if (in.type == dtype::f32) {
          s.code = simt::op::cvt_f_s;
        } else {
          s.code = simt::op::cvt_s_f;
        }
        break;
      case opcode::bra:
        s.code = simt::op::bra;
        s.target = in.target;
        break;
      case opcode::bar: s.code = simt::op::bar; break;
      case opcode::ret:
      case opcode::exit: s.code = simt::op::exit; break;
      case opcode::mbar_init:
      case opcode::mbar_arrive:
      case opcode::mbar_arrive_tx:
      case opcode::mbar_try_wait: {
        const bool init = in.op == opcode::mbar_init;
        const operand& a = init ? o[0] : o[1];
        if (in.op == opcode::mbar_arrive || in.op == opcode::mbar_arrive_tx)
          if (o[0].k == operand::kind::reg) refuse(k, in, "the sink _ as mbarrier.arrive's state (the state is not modelled)");
        s.code = init ? simt::op::mbar_init
                 : in.op == opcode::mbar_arrive ? simt::op::mbar_arrive
                 : in.op == opcode::mbar_arrive_tx ? simt::op::mbar_arrive_tx
                                                   : simt::op::mbar_wait;
        if (!a.base_reg) refuse(k, in, "an mbarrier address [register] or [register+offset]");
        s.ra = phys(a);
        s.imm = static_cast<std::int64_t>(a.imm);
        if (in.op != opcode::mbar_arrive) {
          const operand& b = init ? o[1] : o[2];
          if (b.k == operand::kind::imm) {
            s.b_imm = true;
            s.imm_b = static_cast<std::uint32_t>(b.imm);
          } else {
            s.rb = phys(b);
          }
        }
        if (in.op == opcode::mbar_try_wait) s.pd = phys(o[0]);
        break;
      }
      case opcode::tma_load: {
        s.code = simt::op::tma_load;
        if (!o[0].base_reg || o[0].imm != 0 || !o[2].base_reg || o[2].imm != 0)
          refuse(k, in, "cp.async.bulk.tensor with [register] shared and mbarrier addresses");
        s.ra = phys(o[0]);
        s.rb = phys(o[2]);
        const unsigned param = tensor_map_param(k, use, in, o[1].reg);
        auto it = std::find(out.tensor_map_params.begin(), out.tensor_map_params.end(), param);
        if (it == out.tensor_map_params.end()) it = out.tensor_map_params.insert(it, param);
        s.rd = static_cast<std::uint8_t>(it - out.tensor_map_params.begin());
        s.coords_listed = true;
        for (std::size_t c = 0; c < in.group.size() && c < s.coords.size(); ++c)
          s.coords[c] = static_cast<std::uint8_t>(out.placement[in.group[c]]);
        break;
      }
      case opcode::wgmma_mma: {
        s.code = simt::op::wgmma;
        s.mma_n = static_cast<std::uint16_t>(in.rank);
        s.mma_type = in.mma_a;
        s.mma_b_type = in.mma_b;
        s.rd = static_cast<std::uint8_t>(out.placement[in.group[0]]);
        s.ra = phys(o[1]);
        s.rb = phys(o[2]);
        if (o[3].k == operand::kind::imm) {
          s.imm = o[3].imm != 0;
        } else {
          if (o[3].neg) refuse(k, in, "scale-d as a predicate or 0/1 (not a negated predicate)");
          s.mma_scale_pred = true;
          s.rc = phys(o[3]);
        }
        for (unsigned i = 4; i < 8; ++i)
          if (o[i].k != operand::kind::imm || o[i].imm != (i < 6 ? 1u : 0u))
            refuse(k, in, "wgmma with imm-scale-a, imm-scale-b 1 and tnsp-a, tnsp-b 0 (K-major operands, not negated)");
        break;
      }
      case opcode::wgmma_commit: s.code = simt::op::wgmma_commit; break;
      case opcode::wgmma_wait:
        s.code = simt::op::wgmma_wait;
        s.imm = static_cast<std::int64_t>(o[0].imm);
        break;
      case opcode::elect:
        s.code = simt::op::elect;
        if (o[0].k == operand::kind::reg) {
          s.sub = 1;
          s.rd = phys(o[0]);
        }
        if (o[1].k == operand::kind::imm) {
          s.e_imm = true;
          s.imm_e = static_cast<std::uint32_t>(o[1].imm);
        } else {
          s.re = phys(o[1]);
        }
        s.pd = phys(o[2]);
        break;
      case opcode::wgmma_fence:
      case opcode::fence:
      case opcode::setmaxnreg: s.code = simt::op::nop; break;
      case opcode::shfl: {
        s.code = simt::op::shfl;
        s.sub = static_cast<std::uint8_t>(in.shfl);
        s.rd = phys(o[0]);
        s.ra = phys(o[1]);
        b_operand(o[2]);
        if (o[3].k == operand::kind::imm) {
          s.c_imm = true;
          s.imm_b = static_cast<std::uint32_t>(o[3].imm);
        } else {
          s.rc = phys(o[3]);
        }
        if (o[4].k == operand::kind::imm) {
          s.e_imm = true;
          s.imm_e = static_cast<std::uint32_t>(o[4].imm);
        } else {
          s.re = phys(o[4]);
        }
        if (in.nops > 5 && o[5].k == operand::kind::reg) s.pd = phys(o[5]);
        break;
      }
      case opcode::atom: {
        s.code = simt::op::atom;
        s.sub = static_cast<std::uint8_t>(in.atom);
        s.sp = in.sp == space::shared ? simt::space::shared : simt::space::global;
        s.ty = in.type == dtype::f32 ? simt::type::f32 : in.type == dtype::s32 ? simt::type::s32 : simt::type::u32;
        s.rd = phys(o[0]);
        memory_address(o[1]);
        if (o[2].k == operand::kind::imm) {
          s.b_imm = true;
          s.imm_b = static_cast<std::uint32_t>(o[2].imm);
        } else {
          s.rb = phys(o[2]);
        }
        break;
      }
    }
    out.code.code.push_back(std::move(s));
  }
  return out;
}

}  // namespace flynn::ptx

// The PTX selectors of Hopper's asynchronous instructions: mbarrier, cp.async.bulk.tensor
// (TMA loads) and wgmma.
#include <algorithm>

#include "ptx_lower_parts.h"

namespace flynn::ptx {

namespace {

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

}  // namespace

void select_mbarrier(selector& c) {
  const instruction& in = c.in;
  simt::instr& s = c.s;
  const bool init = in.op == opcode::mbar_init;
  const operand& a = init ? c.o[0] : c.o[1];
  if (in.op == opcode::mbar_arrive || in.op == opcode::mbar_arrive_tx)
    if (c.o[0].k == operand::kind::reg) refuse(c.k, in, "the sink _ as mbarrier.arrive's state (the state is not modelled)");
  s.code = init                                ? simt::op::mbar_init
           : in.op == opcode::mbar_arrive      ? simt::op::mbar_arrive
           : in.op == opcode::mbar_arrive_tx   ? simt::op::mbar_arrive_tx
                                               : simt::op::mbar_wait;
  if (!a.base_reg) refuse(c.k, in, "an mbarrier address [register] or [register+offset]");
  s.ra = c.phys(a);
  s.imm = static_cast<std::int64_t>(a.imm);
  if (in.op != opcode::mbar_arrive) c.imm_or_reg(init ? c.o[1] : c.o[2], s.b_imm, s.imm_b, s.rb);
  if (in.op == opcode::mbar_try_wait) s.pd = c.phys(c.o[0]);
}

void select_tma_load(selector& c) {
  const operand* o = c.o;
  simt::instr& s = c.s;
  s.code = simt::op::tma_load;
  if (!o[0].base_reg || o[0].imm != 0 || !o[2].base_reg || o[2].imm != 0)
    refuse(c.k, c.in, "cp.async.bulk.tensor with [register] shared and mbarrier addresses");
  s.ra = c.phys(o[0]);
  s.rb = c.phys(o[2]);
  const unsigned param = tensor_map_param(c.k, c.use, c.in, o[1].reg);
  auto& maps = c.out.tensor_map_params;
  auto it = std::find(maps.begin(), maps.end(), param);
  if (it == maps.end()) it = maps.insert(it, param);
  s.rd = static_cast<std::uint8_t>(it - maps.begin());
  s.coords_listed = true;
  for (std::size_t i = 0; i < c.in.group.size() && i < s.coords.size(); ++i)
    s.coords[i] = static_cast<std::uint8_t>(c.out.placement[c.in.group[i]]);
}

void select_wgmma_mma(selector& c) {
  const instruction& in = c.in;
  const operand* o = c.o;
  simt::instr& s = c.s;
  s.code = simt::op::wgmma;
  s.mma_n = static_cast<std::uint16_t>(in.rank);
  s.mma_type = in.mma_a;
  s.mma_b_type = in.mma_b;
  s.rd = c.group_base();
  s.ra = c.phys(o[1]);
  s.rb = c.phys(o[2]);
  if (o[3].k == operand::kind::imm) {
    s.imm = o[3].imm != 0;
  } else {
    if (o[3].neg) refuse(c.k, in, "scale-d as a predicate or 0/1 (not a negated predicate)");
    s.mma_scale_pred = true;
    s.rc = c.phys(o[3]);
  }
  for (unsigned i = 4; i < 8; ++i)
    if (o[i].k != operand::kind::imm || o[i].imm != (i < 6 ? 1u : 0u))
      refuse(c.k, in, "wgmma with imm-scale-a, imm-scale-b 1 and tnsp-a, tnsp-b 0 (K-major operands, not negated)");
}

void select_wgmma_commit(selector& c) { c.s.code = simt::op::wgmma_commit; }

void select_wgmma_wait(selector& c) {
  c.s.code = simt::op::wgmma_wait;
  c.s.imm = static_cast<std::int64_t>(c.o[0].imm);
}

}  // namespace flynn::ptx

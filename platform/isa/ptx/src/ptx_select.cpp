// Instruction selection of the PTX lowering: one SIMT instruction per PTX instruction, with
// its line, text and guard, made by the selector of its opcode's family found in a table.
#include <unordered_map>

#include "ptx_lower_parts.h"

namespace flynn::ptx {

namespace {

// The selector of each opcode.
const std::unordered_map<opcode, select_fn>& families() {
  static const std::unordered_map<opcode, select_fn> table = {
      {opcode::add, select_add}, {opcode::sub, select_sub}, {opcode::min, select_min_max},
      {opcode::max, select_min_max}, {opcode::mul, select_mul}, {opcode::mad, select_mad}, {opcode::fma, select_mad},
      {opcode::div, select_div}, {opcode::rem, select_div}, {opcode::and_, select_logic}, {opcode::or_, select_logic},
      {opcode::xor_, select_logic}, {opcode::not_, select_logic}, {opcode::shl, select_shift},
      {opcode::shr, select_shift}, {opcode::setp, select_setp}, {opcode::selp, select_selp},
      {opcode::mov, select_mov}, {opcode::cvt, select_cvt}, {opcode::cvta, select_cvta},
      {opcode::ld, select_ld_st}, {opcode::st, select_ld_st}, {opcode::atom, select_atom},
      {opcode::bra, select_bra}, {opcode::bar, select_bar}, {opcode::ret, select_exit}, {opcode::exit, select_exit},
      {opcode::shfl, select_shfl}, {opcode::elect, select_elect}, {opcode::wgmma_fence, select_nop},
      {opcode::fence, select_nop}, {opcode::setmaxnreg, select_nop},
      {opcode::mbar_init, select_mbarrier}, {opcode::mbar_arrive, select_mbarrier},
      {opcode::mbar_arrive_tx, select_mbarrier}, {opcode::mbar_try_wait, select_mbarrier},
      {opcode::tma_load, select_tma_load}, {opcode::wgmma_mma, select_wgmma_mma},
      {opcode::wgmma_commit, select_wgmma_commit}, {opcode::wgmma_wait, select_wgmma_wait}};
  return table;
}

}  // namespace

void select(const module& m, const kernel& k, const live_intervals& live, lowered& out) {
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
    selector c{k, live.use, out, in, s, in.ops.data()};
    const auto it = families().find(in.op);
    if (it != families().end()) it->second(c);
    out.code.code.push_back(std::move(s));
  }
}

simt::type type_32(dtype t) {
  return t == dtype::f32 ? simt::type::f32 : t == dtype::s32 ? simt::type::s32 : simt::type::u32;
}

void selector::b_operand(const operand& b) {
  if (b.k == operand::kind::imm) {
    s.b_imm = true;
    s.imm = static_cast<std::int64_t>(b.imm);
  } else {
    s.rb = phys(b);
  }
}

void selector::binary(simt::op code) {
  s.code = code;
  s.rd = phys(o[0]);
  s.ra = phys(o[1]);
  b_operand(o[2]);
}

void selector::memory_address(const operand& a) {
  std::int64_t offset = static_cast<std::int64_t>(a.imm);
  if (a.base_reg) {
    s.ra = phys(a);
    s.addr64 = size_of(k.regs[a.reg].type) == 8;
  } else {
    s.abs_addr = true;
    if (a.symbol >= 0) offset += static_cast<std::int64_t>(k.shared[static_cast<std::size_t>(a.symbol)].offset);
  }
  s.imm = offset;
}

void selector::imm_or_reg(const operand& x, bool& is_imm, std::uint32_t& imm_field, std::uint8_t& reg) {
  if (x.k == operand::kind::imm) {
    is_imm = true;
    imm_field = static_cast<std::uint32_t>(x.imm);
  } else {
    reg = phys(x);
  }
}

}  // namespace flynn::ptx

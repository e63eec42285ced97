// The passes of the PTX lowering, which lower() runs in order: liveness and live intervals
// (ptx_liveness.cpp), register groups and register allocation (ptx_regalloc.cpp), and
// instruction selection, one function per opcode family found by the opcode in a table
// (ptx_select.cpp and its family files).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flynn/platform/ptx.h"
#include "flynn/platform/ptx_lower.h"
#include "flynn/simt/isa.h"

namespace flynn::ptx {

// The virtual registers an instruction reads and writes.
struct usage {
  std::vector<std::uint32_t> uses, defs;
};

// What liveness gives the allocator and the selection: each instruction's register usage,
// and each register's live interval [first, last] over the instruction order (-1: unused).
struct live_intervals {
  std::vector<usage> use;
  std::vector<std::int64_t> first, last;
};

// The live intervals of k's registers (input_error for a kernel too large to analyse).
live_intervals liveness(const kernel& k);

// Places k's registers in the core's registers and predicates (out.placement, registers,
// predicates); input_error when they do not fit or a register is in two vector groups.
void allocate(const kernel& k, const live_intervals& live, lowered& out);

// Appends the SIMT instruction of each of k's instructions to out.code.
void select(const module& m, const kernel& k, const live_intervals& live, lowered& out);

// An input_error "FILE:LINE: expected `expected`, found 'TEXT'" at instruction in.
[[noreturn]] void refuse(const kernel& k, const instruction& in, const std::string& expected);

// The instruction being selected: the PTX instruction, the SIMT instruction it becomes, and
// what the family selectors share to fill it in.
struct selector {
  const kernel& k;
  const std::vector<usage>& use;
  lowered& out;
  const instruction& in;
  simt::instr& s;
  const operand* o;  // in's operands

  // The core register (or predicate) of register operand r.
  std::uint8_t phys(const operand& r) const { return static_cast<std::uint8_t>(out.placement[r.reg]); }
  // The core register the first member of in's group sits in.
  std::uint8_t group_base() const { return static_cast<std::uint8_t>(out.placement[in.group[0]]); }
  // The second source: a register, or an immediate (b_imm).
  void b_operand(const operand& b);
  // rd <- ra `code` b: the destination and the two sources of operands 0, 1 and 2.
  void binary(simt::op code);
  // A memory operand: [reg + offset] (a 32- or 64-bit register), or an absolute address.
  void memory_address(const operand& a);
  // An operand that is an immediate (its value to imm_field, `is_imm` set) or a register.
  void imm_or_reg(const operand& x, bool& is_imm, std::uint32_t& imm_field, std::uint8_t& reg);
};

// The SIMT type of a 32-bit comparison or atomic of type t (f32, s32, else u32).
simt::type type_32(dtype t);

using select_fn = void (*)(selector&);

// Arithmetic, logic and comparisons (ptx_select_arith.cpp).
void select_add(selector& c);
void select_sub(selector& c);
void select_min_max(selector& c);  // min, max
void select_mul(selector& c);
void select_mad(selector& c);  // mad, fma
void select_div(selector& c);  // div, rem
void select_logic(selector& c);  // and, or, xor, not
void select_shift(selector& c);  // shl, shr
void select_setp(selector& c);
void select_selp(selector& c);

// Moves, conversions and memory accesses (ptx_select_move.cpp).
void select_mov(selector& c);
void select_cvt(selector& c);
void select_cvta(selector& c);
void select_ld_st(selector& c);  // ld, st
void select_atom(selector& c);

// Control flow and warp-wide instructions (ptx_select_control.cpp).
void select_bra(selector& c);
void select_bar(selector& c);
void select_exit(selector& c);  // ret, exit
void select_shfl(selector& c);
void select_elect(selector& c);
void select_nop(selector& c);  // wgmma.fence, fence.*, setmaxnreg

// Hopper's asynchronous instructions (ptx_select_async.cpp).
void select_mbarrier(selector& c);  // mbarrier.init, .arrive, .arrive.expect_tx, .try_wait
void select_tma_load(selector& c);
void select_wgmma_mma(selector& c);
void select_wgmma_commit(selector& c);
void select_wgmma_wait(selector& c);

}  // namespace flynn::ptx

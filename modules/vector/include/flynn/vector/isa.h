// The Cray-style vector machine ISA: one instruction stream with scalar, vector and
// packed-SIMD instructions. Assembly syntax and semantics: docs/isa/vector.md.
//
// Registers: r0..r15 (64-bit scalar), v0..v7 (vector, max_vl elements of 64 bits),
// VL (vector length), VS (vector stride, in 8-byte elements), VM (vector mask, 1 bit per
// element). Memory is byte addressed, little endian; scalar and vector elements are 8 bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flynn::vec {

enum class op : std::uint8_t {
  // scalar
  li,      // rd <- imm (an immediate or a label's address)
  mov,     // rd <- ra
  add, sub, mul,            // rd <- ra op (rb | imm), integer, wrap-around
  and_, or_, xor_,          // rd <- ra op (rb | imm)
  shl, shr, sra,            // rd <- ra shift (rb | imm) (amount mod 64); shr logical, sra arithmetic
  fadd, fsub, fmul,         // rd <- ra op rb, IEEE binary64
  slt, seq,                 // rd <- (ra < (rb|imm)) signed / (ra == (rb|imm)) ? 1 : 0
  ld,      // rd <- mem64[ra + imm]; with post-increment: ra += 8 afterwards
  st,      // mem64[ra + imm] <- rb; with post-increment: ra += 8 afterwards
  dbnz,    // ra <- ra - 1; if ra != 0 goto target
  beqz, bnez,  // if ra == 0 / != 0 goto target
  br,      // goto target
  halt,    // stop
  // vector control (executed by the vector unit's control logic)
  setvl,   // VL <- (ra | imm); fault if above max_vl. With rd: VL <- min(ra, max_vl), rd <- VL
  setvs,   // VS <- (ra | imm) (elements)
  vmset,   // VM <- all ones
  vmnot,   // VM <- ~VM
  vmpop,   // rd <- popcount(VM[0..VL))
  // vector memory
  vld,     // vd[i] <- mem64[base + i * VS * 8], base = ra + imm
  vst,     // mem64[base + i * VS * 8] <- vb[i]
  vldx,    // gather: vd[i] <- mem64[base + vi[i] * 8]
  vstx,    // scatter: mem64[base + vi[i] * 8] <- vb[i]
  // vector arithmetic: vd[i] <- va[i] op (vb[i] | rb | imm)
  vadd, vsub, vmul, vdiv,   // integer (vdiv: signed, x / 0 = 0)
  vand, vor, vxor,
  vshl, vshr, vsra,
  vfadd, vfsub, vfmul,      // binary64
  // vector compare: VM[i] <- va[i] cmp (vb[i] | rb | imm) (signed)
  vcmpeq, vcmpne, vcmplt, vcmpgt,
  // packed SIMD on 64-bit scalar registers; width in instr.width (8, 16 or 32 bits)
  padd, psub,        // element-wise, wrap-around
  pcmpeq, pcmpgt,    // element-wise all-ones / all-zeros (pcmpgt signed)
  pand, pandn, por,  // pandn: (~ra) & rb
  pmaddwd,           // 4 x 16-bit: rd.d[j] = ra.h[2j]*rb.h[2j] + ra.h[2j+1]*rb.h[2j+1] (signed)
  count_
};

// Register number meaning "no base register": the address is the immediate alone.
constexpr std::uint8_t no_reg = 0xff;

// Operand kinds of the second source (scalar arithmetic, vector arithmetic, compares).
enum class src2 : std::uint8_t { none, reg, vreg, imm };

// Operand fields by instruction (assembly -> fields):
//   li rd, imm | mov rd, ra | add rd, ra, rb|imm (kind reg|imm) | fadd rd, ra, rb
//   ld rd, [ra+imm]  ld rd, [ra]+  ld rd, LABEL (ra = no_reg)
//   st [ra+imm], rb  st [ra]+, rb  st LABEL, rb
//   dbnz ra, T | beqz ra, T | bnez ra, T | br T | halt
//   setvl ra|imm (kind reg|imm) | setvl rd, ra (has_rd) | setvs ra|imm | vmset | vmnot | vmpop rd
//   vld vd, [ra+imm] | vld vd, LABEL | vst [ra+imm], vb | vst LABEL, vb      (vd in rd, vb in rb)
//   vldx vd, [ra+imm], vi (vi in rb) | vstx [ra+imm], vi, vb (vi in rd, vb in rb)
//   vadd vd, va, vb|rb|imm (kind vreg|reg|imm; va in ra) | vcmplt va, vb|rb|imm
//   padd.b rd, ra, rb (width 8) | pand rd, ra, rb | pmaddwd rd, ra, rb
struct instr {
  op code = op::halt;
  std::uint8_t rd = 0, ra = 0, rb = 0;  // register numbers (scalar or vector by op)
  src2 kind = src2::none;               // what the second source is
  std::int64_t imm = 0;                 // immediate, address offset, or label address
  std::uint32_t target = 0;             // branch target (instruction index)
  bool post_inc = false;                // ld/st [ra]+
  bool masked = false;                  // vector op under VM (".m" suffix)
  bool has_rd = false;                  // setvl rd, ra form
  std::uint8_t width = 0;               // packed SIMD element width in bits
  std::uint32_t line = 0;               // source line (for reports)
  std::string text;                     // source text (for reports)
};

// Is the instruction executed by the vector unit (vector control, memory or arithmetic)?
bool is_vector(op o);
bool is_vector_memory(op o);
bool is_scalar_memory(op o);
bool is_branch(op o);
const char* mnemonic(op o);

// An assembled program: instructions, initial data and symbols.
struct data_block {
  std::uint64_t address = 0;
  std::vector<std::uint64_t> words;  // 8-byte words from `address` on
};

struct program {
  std::vector<instr> code;
  std::vector<data_block> data;
  std::vector<std::pair<std::string, std::uint64_t>> symbols;  // labels of data (byte addresses)
  std::string file;
  bool find_symbol(const std::string& name, std::uint64_t& addr) const;
};

}  // namespace flynn::vec

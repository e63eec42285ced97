// The SIMT kernel ISA: a per-thread scalar instruction set in the spirit of PTX/SASS.
// Assembly syntax and semantics: docs/isa/simt.md.
//
// Per thread: 256 general registers r0..r255 of 32 bits, 8 predicates p0..p7. Special
// registers (read with mov): %tid (thread index in the block), %ntid (threads per block),
// %ctaid (block index), %nctaid (blocks in the grid), %laneid, %warpid (warp index in the
// block). Kernel parameters: ldparam rd, N reads 32-bit parameter N. Memory: global and
// shared address spaces, byte addressed, little endian; accesses of 4, 8 or 16 bytes,
// naturally aligned; 8- and 16-byte accesses use rd, rd+1 (, rd+2, rd+3).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "flynn/tensor/numeric.h"

namespace flynn::simt {

enum class op : std::uint8_t {
  mov,      // rd <- ra | imm | special register
  ldparam,  // rd <- param[imm]
  add, sub, mul, mulhi,   // 32-bit integer, wrap-around; mulhi: high 32 bits of signed product
  mad,      // rd <- ra * rb + rc (32-bit, wrap-around)
  div, rem, // signed; x / 0 = 0, x % 0 = x
  and_, or_, xor_, not_,
  shl, shr, sra,          // shift amount mod 32; shr logical, sra arithmetic
  min, max,               // signed
  fadd, fsub, fmul, ffma, fmin, fmax,  // IEEE binary32 (ffma: fused, one rounding)
  fdiv, fsqrt,            // special-function unit (correctly rounded)
  cvt_f_s, cvt_s_f,       // int32 -> float (round to nearest even), float -> int32 (truncate, saturate, NaN -> 0)
  setp,     // pd <- ra cmp (rb | imm)   (cmp and type in the instruction)
  selp,     // rd <- pa ? (ra | imm_b when a_imm) : (rb | imm)
  ld, st,   // ld.space.width rd, [ra+imm] ; st.space.width [ra+imm], rb
  bra,      // branch to target (per thread: taken by active threads whose guard holds)
  bar,      // bar.sync: block-wide barrier
  mbar_init,       // mbarrier.init [ra+imm], rb|imm          (expected arrival count)
  mbar_arrive,     // mbarrier.arrive [ra+imm]
  mbar_arrive_tx,  // mbarrier.arrive.expect_tx [ra+imm], rb|imm  (bytes)
  mbar_wait,       // mbarrier.wait [ra+imm], rb|imm          (phase parity; blocks)
  tma_load,        // tma.load [ra+imm], MAP, [rb], rc        (coordinates rc, rc+1, ...)
  tma_store,       // tma.store [ra+imm], MAP, rc             (shared box to the tensor)
  tma_wait,        // tma.wait: the warp's tma.store copies have completed
  wgmma,           // wgmma.m64nNk16.f32.TYPE[.rs] rd, ra, rb, imm  (see below)
  wgmma_commit,    // wgmma.commit_group
  wgmma_wait,      // wgmma.wait_group N (imm)
  exit,     // the thread ends
  nop,
  // 64-bit values in register pairs (low word in the lower register) and predicate logic,
  // which the PTX front end lowers to (docs/isa/ptx.md):
  mov64,    // rd:rd+1 <- ra:ra+1 | imm
  add64,    // rd:rd+1 <- ra:ra+1 + (rb:rb+1 | imm)   (wrap-around)
  mul_wide, // ty s32/u32: rd:rd+1 <- ra * (rb | imm), the full 64-bit product;
            // ty s16/u16: rd <- the low halves' full 32-bit product
  cvt64,    // rd:rd+1 <- ra sign-extended (ty s32) or zero-extended (u32)
  plogic,   // predicate rd <- pa (ra) OP pb (rb); imm: 0 and, 1 or, 2 xor, 3 not (pa alone)
  atom,     // atom.SPACE.OP.TYPE rd, [address], rb|imm_b (b_imm): rd <- the element, element <- element OP b
            // (sub: atomic OP; ty u32/s32/f32; the memory applies it: load/store unit class)
  shfl,     // shfl.MODE rd[|pd], ra, b, c, membermask: rd <- ra of the lane MODE names (sub:
            // shuffle_mode); b: rb | imm, c: rc | imm_b (c_imm), membermask: re | imm_e (e_imm)
  logic64,  // rd:rd+1 <- ra:ra+1 OP (rb:rb+1 | imm); sub: 0 and, 1 or, 2 xor
  elect,    // elect.sync [rd|]pd, membermask: the lowest executing lane of the membermask (re |
            // imm_e when e_imm) is the leader: pd <- whether this lane is it; rd (when sub is 1)
            // <- its lane index
  mma_sync, // mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32 rd, ra, rb, rc (TYPE f16 or bf16,
            // mma_type): the warp's 16 x 8 D (rd .. rd+3) <- A (16 x 16, ra .. ra+3) x B (16 x 8,
            // rb, rb+1) + C (rc .. rc+3), all 32 threads together (fragments: flynn/gmma/wgmma.h)
  count_
};

enum class cmp : std::uint8_t { eq, ne, lt, le, gt, ge };
enum class atomic_op : std::uint8_t { add, min, max, exch };
enum class shuffle_mode : std::uint8_t { up, down, bfly, idx };
enum class type : std::uint8_t { s32, u32, f32, s16, u16 };
enum class space : std::uint8_t { global, shared };
// tid, ntid, ctaid and nctaid are the x components (in a one-dimensional launch, the index
// itself); the y and z components follow.
enum class special : std::uint8_t { none, tid, ntid, ctaid, nctaid, laneid, warpid,
                                    tid_y, tid_z, ntid_y, ntid_z, ctaid_y, ctaid_z, nctaid_y, nctaid_z };

constexpr std::uint8_t no_pred = 0xff;
constexpr unsigned num_registers = 256;

// Operand fields (assembly -> fields):
//   [@p | @!p] prefix: guard = p, guard_neg (no prefix: guard = no_pred)
//   mov rd, ra | mov rd, imm | mov rd, %tid (sreg)           ldparam rd, N (imm)
//   add rd, ra, rb|imm (b_imm) ; mad rd, ra, rb, rc ; not rd, ra
//   fadd rd, ra, rb ; ffma rd, ra, rb, rc ; fsqrt rd, ra ; cvt.f.s rd, ra ; cvt.s.f rd, ra
//   setp.CMP.TYPE pd, ra, rb|imm   (pd in rd)
//   selp rd, ra, rb|imm, pa        (pa in rc)
//   ld.SPACE.W rd, [ra+imm] ; st.SPACE.W [ra+imm], rb  (W = 32, 64, 128 -> width 4, 8, 16)
//   bra LABEL (target) ; bar.sync ; exit ; nop
//   mbarrier.init|arrive.expect_tx|wait [ra+imm], rb|imm ; mbarrier.arrive [ra+imm]
//   tma.load [ra+imm], MAP (rd = tensor map index), [rb], rc (first coordinate register)
//   tma.store [ra+imm], MAP (rd), rc ; tma.wait
//   wgmma.m64nNk16.f32.bf16|f16[.rs], wgmma.m64nNk8.f32.tf32, wgmma.m64nNk32.f32.ATYPE.BTYPE
//     (e4m3 or e5m2 each) rd, ra, rb, imm: accumulators rd .. rd+N/2-1; A is the matrix
//     descriptor in ra:ra+1 (A in shared memory) or, with .rs (16-bit types), the A fragment
//     in ra .. ra+3; B is the descriptor in rb:rb+1; imm is scale-d (0: D = A x B, 1: D += A x B)
//   wgmma.commit_group ; wgmma.wait_group N (imm)
//   mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32 rd, ra, rb, rc (TYPE f16 or bf16 in
//     mma_type): D in rd .. rd+3, A in ra .. ra+3, B in rb, rb+1, C in rc .. rc+3
// From the PTX front end (no assembly syntax): mbarrier.wait with pd != no_pred also writes
// true to predicate pd (try_wait.parity blocks until the phase completes); tma.load and
// tma.store with coords_listed take coordinate k from coords[k] (else rc + k); wgmma with
// mma_scale_pred takes scale-d from predicate rc (lane 0's; the warp's lanes must agree).
// Float immediates are written as decimal numbers with a '.' or exponent and stored as the
// binary32 bit pattern in imm.
struct instr {
  op code = op::nop;
  std::uint8_t rd = 0, ra = 0, rb = 0, rc = 0;
  bool b_imm = false;            // second source is the immediate
  std::int64_t imm = 0;
  special sreg = special::none;  // mov from a special register
  std::uint8_t guard = no_pred;  // predicate guard
  bool guard_neg = false;
  cmp cond = cmp::eq;
  type ty = type::s32;
  space sp = space::global;
  std::uint8_t width = 4;        // memory access bytes (1, 2, 4, 8, 16); ldparam: 4 or 8
  bool addr64 = false;           // ld/st: the address is ra:ra+1 (+ imm), 64 bits
  bool abs_addr = false;         // ld/st: the address is imm alone (no register)
  bool sign = false;             // ld of 1 or 2 bytes: sign-extended (else zero-extended)
  bool cg = false;               // ld.global.cg: cached at the global level only (not in an L1)
  std::uint8_t sub = 0;          // atom: atomic_op; shfl: shuffle_mode
  std::uint8_t pd = no_pred;     // shfl: the predicate it also writes (no_pred: none)
  std::uint8_t re = 0;           // shfl: the membermask register ...
  bool c_imm = false, e_imm = false;  // shfl: c is imm_b, the membermask is imm_e
  bool a_imm = false;            // selp: the first source is imm_b
  std::uint32_t imm_e = 0;
  std::uint32_t target = 0;      // branch target (instruction index)
  std::uint32_t imm_b = 0;       // mbarrier: the immediate second operand (imm is the offset)
  std::uint16_t mma_n = 0;       // wgmma: N
  element_type mma_type = element_type::f16;    // wgmma, mma.sync: A's element type
  element_type mma_b_type = element_type::f16;  // wgmma: B's (differs from A's only for fp8)
  bool mma_a_regs = false;       // wgmma: A from registers (.rs)
  bool mma_scale_pred = false;   // wgmma: scale-d is predicate rc (else imm)
  bool coords_listed = false;    // tma.load/store: coordinate k in coords[k] (else rc + k)
  std::array<std::uint8_t, 5> coords{};
  std::uint32_t line = 0;
  std::string text;
};

struct kernel {
  std::vector<instr> code;
  std::string name, file;
};

// The general registers and predicates one instruction reads, or writes: a few runs of
// consecutive registers (a 64-bit access is one run of two, a wgmma accumulator fragment
// one run of N/2) and a set of predicates.
struct reg_set {
  struct run {
    std::uint16_t first = 0, count = 0;
  };
  std::array<run, 7> runs{};  // enough for the most operands of any instruction (7: tma.load with
                              // five listed coordinates)
  unsigned num_runs = 0;
  std::uint8_t preds = 0;     // bit k: predicate pk

  void add(unsigned first, unsigned count = 1);
  void add_pred(unsigned p) { preds = static_cast<std::uint8_t>(preds | (1u << (p & 7))); }
  bool has(unsigned r) const;
  bool has_pred(unsigned p) const { return (preds >> p) & 1u; }
  // Highest general register, or -1. A group running past r255 (a malformed, hand-built
  // instruction: the assembler refuses it) shows here, so that it can be reported ...
  int highest() const;
  // ... while for_each visits only r0..r255.
  template <class F>
  void for_each(F f) const {
    for (unsigned i = 0; i < num_runs; ++i)
      for (unsigned r = runs[i].first; r < unsigned(runs[i].first) + runs[i].count && r < num_registers; ++r) f(r);
  }
};

// The one description of which registers an instruction uses; the timed core's scoreboard
// and register allocation take it from here, and the tests check it against the golden
// interpreter. Operand fields an instruction does not use (they hold 0) are not in it.
//
// reads: sources, address, barrier and coordinate registers, every register of a
// multi-register operand (a 64/128-bit store's data, wgmma descriptors and .rs fragment,
// and the accumulators when scale-d is 1), the guard and selp's predicate. tma.load and
// tma.store read one coordinate register per dimension of their tensor map, which only the
// launch knows: `tma_rank` (the most a tensor map has when not known).
constexpr unsigned max_tma_rank = 5;
reg_set reads(const instr& in, unsigned tma_rank = max_tma_rank);
// writes: the destination (every register of a 64/128-bit load, every wgmma accumulator),
// or setp's predicate.
reg_set writes(const instr& in);

inline bool is_memory(op o) { return o == op::ld || o == op::st || o == op::atom; }
// Registers a memory access's data take: one per 4 bytes, one for a narrower access.
inline unsigned data_registers(const instr& in) { return in.width < 4 ? 1u : in.width / 4u; }
inline bool is_async(op o) { return o >= op::mbar_init && o <= op::wgmma_wait; }  // mbarrier, tma and wgmma
// The register of tma.load / tma.store coordinate k.
inline unsigned coordinate_register(const instr& in, unsigned k) {
  return in.coords_listed ? in.coords[k % 5] : unsigned(in.rc) + k;
}
// Highest general register the instruction reads or writes, or -1.
int highest_register(const instr& in);
bool is_sfu(op o);
const char* mnemonic(op o);
// The instruction as its source wrote it, or its mnemonic when built without source text.
inline std::string source_text(const instr& in) { return in.text.empty() ? std::string(mnemonic(in.code)) : in.text; }

}  // namespace flynn::simt

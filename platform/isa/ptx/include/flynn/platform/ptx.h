// The PTX front end: reads PTX text as nvcc emits it (docs/isa/ptx.md lists the supported
// subset), checks it (declared registers, operand types, labels), and gives each kernel
// entry as decoded instructions that the lowering (ptx_lower.h) and the golden interpreter
// (ptx_interp.h) both take. Anything outside the subset is an input_error
// "FILE:LINE:COL: expected X, found Y" naming the instruction or directive.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "flynn/tensor/numeric.h"

namespace flynn::ptx {

// Instruction and register types.
enum class dtype : std::uint8_t { none, pred, b8, u8, s8, b16, u16, s16, f16, b32, u32, s32, f32, b64, u64, s64, f64, bf16 };
unsigned size_of(dtype t);  // bytes (pred: 0)
bool is_signed(dtype t);
bool is_float(dtype t);
const char* name_of(dtype t);  // "u32", ...

enum class opcode : std::uint8_t {
  mov, ld, st, cvta, add, sub, mul, mad, fma, div, rem, min, max, and_, or_, xor_, not_, shl, shr, setp, selp,
  cvt, bra, bar, ret, exit, shfl, atom,
  // Hopper's asynchronous instructions (lowered as ptx_lower.h says; interpreted by ptx_interp):
  mbar_init,       // mbarrier.init [a], count
  mbar_arrive,     // mbarrier.arrive state|_, [a]
  mbar_arrive_tx,  // mbarrier.arrive.expect_tx state|_, [a], bytes
  mbar_try_wait,   // mbarrier.try_wait.parity p, [a], parity
  tma_load,        // cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [map, {c..}], [bar]
  wgmma_fence, wgmma_mma, wgmma_commit, wgmma_wait,
  fence,           // fence.* (memory-ordering fences)
  setmaxnreg,      // setmaxnreg.inc|dec.sync.aligned.u32 N
  elect            // elect.sync d|p, membermask
};
enum class space : std::uint8_t { none, param, global, shared };
enum class mul_mode : std::uint8_t { none, lo, hi, wide };
enum class cmp : std::uint8_t { eq, ne, lt, le, gt, ge };
enum class shfl_mode : std::uint8_t { up, down, bfly, idx };
enum class atom_op : std::uint8_t { add, min, max, exch };
// Special registers: x, y, z components of tid, ntid, ctaid, nctaid; laneid; warpid.
enum class sreg : std::uint8_t { tid_x, tid_y, tid_z, ntid_x, ntid_y, ntid_z, ctaid_x, ctaid_y, ctaid_z,
                                 nctaid_x, nctaid_y, nctaid_z, laneid, warpid };

struct operand {
  // group: the instruction's `group` of registers ({%f1, %f2, %f3, %f4} of a vector access)
  enum class kind : std::uint8_t { none, reg, imm, sreg, symbol, address, group } k = kind::none;
  std::uint32_t reg = 0;     // reg: the register; address: the base register (when base_reg)
  bool neg = false;          // reg: a negated predicate (!%p)
  bool base_reg = false;     // address: [reg + offset], else [symbol + offset] (or [offset])
  std::int32_t symbol = -1;  // symbol, address: a parameter (space param) or shared variable
  bool param = false;        // symbol: a parameter's address (mov.b64 %rd, NAME), else a shared variable's
  std::uint64_t imm = 0;     // imm: the value's bits (a float as its binary32 bits); address: the offset
  ptx::sreg special = sreg::tid_x;
};

struct instruction {
  opcode op = opcode::mov;
  dtype type = dtype::none;   // the instruction type (.u32, ...); cvt: the destination's
  dtype type2 = dtype::none;  // cvt: the source type
  space sp = space::none;     // ld, st, atom, cvta
  mul_mode mode = mul_mode::none;
  cmp cond = cmp::eq;
  shfl_mode shfl = shfl_mode::down;
  atom_op atom = atom_op::add;
  std::int32_t guard = -1;  // the guard predicate's register, or -1
  bool guard_neg = false;
  std::array<operand, 8> ops{};
  unsigned rank = 0;          // tma_load: dimensions; wgmma_mma: N
  element_type mma_a = element_type::f16, mma_b = element_type::f16;  // wgmma_mma: A's and B's elements
  bool increase = false;      // setmaxnreg: .inc (else .dec)
  bool cache_global = false;  // ld.global.cg
  unsigned nops = 0;
  std::vector<std::uint32_t> group;  // the registers of its group operand, in order
  std::uint32_t target = 0;  // bra: the instruction index of its label
  std::uint32_t line = 0, col = 0;  // where in the PTX file
  std::uint32_t loc_file = 0, loc_line = 0;  // the last .loc before it (0: none)
  std::string text;  // the instruction as written
};

struct reg_info {
  std::string name;
  dtype type = dtype::b32;
};

struct param {
  std::string name;
  dtype type = dtype::u32;
  unsigned offset = 0, bytes = 4, align = 4;
  std::uint32_t line = 0;
};

struct shared_var {
  std::string name;
  std::uint64_t offset = 0, bytes = 0;
  unsigned align = 1;
  bool is_extern = false;  // .extern .shared name[]: the dynamic shared memory, after the static
};

struct kernel {
  std::string name, file;
  std::uint32_t line = 0;
  std::vector<param> params;
  unsigned param_bytes = 0;
  std::vector<reg_info> regs;  // the registers its instructions name, in order of declaration
  std::vector<shared_var> shared;
  std::uint64_t static_shared = 0;  // bytes of the static .shared variables (aligned)
  std::vector<instruction> code;
};

struct module {
  std::string file, version, target;
  std::vector<kernel> kernels;
  std::map<std::uint32_t, std::string> files;  // .file N "name"
};

// Reads `text`; `file` names it in error messages.
module read(const std::string& text, const std::string& file);
// Reads and parses the file at `path` (input_error "PATH: cannot read file").
module read_file(const std::string& path);
// The kernel named `name` (input_error listing the module's kernels when there is none).
const kernel& find_kernel(const module& m, const std::string& name);

// "FILE:LINE (text)" of an instruction, with the CUDA source line from .loc when known.
std::string where(const module& m, const kernel& k, const instruction& in);

}  // namespace flynn::ptx

// The warpgroup MMA instruction wgmma.m64nNkK as the SIMT core, the GMMA state machine
// and the golden interpreter all see it: the core's link to the state machine, and the
// register-fragment and shared-memory layouts (the public PTX ISA layouts for sm_90).
//
// Register fragments of the warpgroup's four warps (warp w holds rows 16w .. 16w+15;
// lane l; g = l / 4, c = 2 * (l % 4)):
//   D (fp32, N/2 registers from rd): register rd + 4j + q holds row 16w + g + 8 * (q / 2),
//     column 8j + c + (q % 2), for j = 0 .. N/8-1, q = 0 .. 3.
//   A (.rs, 16-bit pairs, low half first, 4 registers from ra): ra + i holds row
//     16w + g + 8 * (i % 2), columns k = 8 * (i / 2) + c and that + 1.
// Shared-memory operands are K-major (A: M rows of K elements; B: N rows of K elements,
// i.e. B transposed), described by a matrix descriptor (matrix_descriptor.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <systemc>

#include "flynn/common/debug_flag.h"
#include "flynn/gmma/matrix_descriptor.h"
#include "flynn/regfile/warp_register.h"
#include "flynn/tensor/numeric.h"

namespace flynn {

// The shape of wgmma.m64nNkK: M = 64 rows, 16 per warp of the warpgroup; K = 32 bytes of
// each operand row: 16 elements of f16 or bf16, 8 of tf32, 32 of e4m3 or e5m2. A is 4
// registers per lane with .rs (f16 and bf16 only).
constexpr unsigned wgmma_m = 64;
constexpr unsigned wgmma_warp_rows = 16;
constexpr unsigned wgmma_k = 16;  // (f16, bf16)
constexpr unsigned wgmma_a_registers = 4;
// Shared-memory operands are K-major in core matrices of 8 rows of 16 bytes; an operand row
// (a row of A, a column of B) is two such 16-byte chunks, 32 bytes whatever the element
// type: the unit in which the GMMA unit reads shared memory.
constexpr unsigned core_matrix_rows = 8;
constexpr unsigned wgmma_chunk_bytes = 16;
constexpr unsigned wgmma_row_bytes = 32;
constexpr unsigned wgmma_element_bytes = 2;  // (f16, bf16)
inline unsigned wgmma_k_of(element_type t) { return wgmma_row_bytes / element_bytes(t); }

// Row (within the warp's 16) and column of D held by accumulator register rd + i of `lane`.
inline void wgmma_d_position(unsigned lane, unsigned i, unsigned& row, unsigned& col) {
  const unsigned j = i / 4, q = i % 4;
  row = lane / 4 + 8 * (q / 2);
  col = 8 * j + 2 * (lane % 4) + (q % 2);
}
// Row (within the warp's 16) and first column of the A pair in register ra + i.
inline void wgmma_a_position(unsigned lane, unsigned i, unsigned& row, unsigned& col) {
  row = lane / 4 + 8 * (i % 2);
  col = 8 * (i / 2) + 2 * (lane % 4);
}

// Byte address of byte kb (0 .. 31) of operand row `row` of a K-major operand.
inline std::uint64_t wgmma_operand_address(const matrix_descriptor& d, unsigned row, unsigned kb) {
  const std::uint64_t core_row = row / core_matrix_rows, in_core = row % core_matrix_rows;
  if (d.swizzle == swizzle_mode::none)
    return d.start_address + core_row * d.stride_byte_offset + (kb / wgmma_chunk_bytes) * d.leading_byte_offset +
           in_core * wgmma_chunk_bytes + kb % wgmma_chunk_bytes;
  const std::uint64_t span = swizzle_span(d.swizzle);
  return swizzle_offset(d.start_address + core_row * d.stride_byte_offset + in_core * span + kb, d.swizzle);
}

// One warp's part of a wgmma, as the SIMT core hands it to the GMMA state machine.
struct wgmma_request {
  unsigned n = 64;
  element_type type = element_type::bf16;    // A's elements
  element_type b_type = element_type::bf16;  // B's (differs from A's only for fp8)
  bool a_in_registers = false;
  bool accumulate = true;                   // scale-d = 1
  std::uint64_t a_desc = 0, b_desc = 0;     // descriptors (a_desc: A in shared memory)
  unsigned group = 0;                       // warpgroup (the core's numbering)
  unsigned warp_in_group = 0;               // 0 .. 3: the sub-partition
  std::array<std::uint32_t*, warp_lanes> lanes{};  // each lane's registers (the accumulators) ...
  unsigned register_stride = 1;                     // ... register k of lane l at lanes[l][k * register_stride]
  // .rs: each lane's A fragment at issue.
  std::array<std::array<std::uint32_t, wgmma_a_registers>, warp_lanes> a_frag{};
  unsigned acc_reg = 0, a_reg = 0;
  std::uint64_t smem_base = 0, smem_bytes = 0;  // the block's shared-memory window
  std::string where;                        // "block 0 warp 1 PC 12 (line 30: ...)"
  // The warp's last blocking wait before it issued this (for the tensor cores' idle time by
  // cause): 0 none, 1 mbarrier.wait, 2 wgmma.wait_group, 3 tma.wait, over cycles
  // [wait_from, wait_to).
  std::uint8_t wait_kind = 0;
  std::uint64_t wait_from = 0, wait_to = 0;
};

// One warp's mma.sync.aligned.m16n8k16 (f16 or bf16 in, f32 accumulators), as the SIMT
// core hands it to its sub-partition's register file and tensor core. Fragments (lane l,
// g = l / 4, c = 2 (l % 4)): A register a_reg + i holds row g + 8 (i % 2), columns
// c + 8 (i / 2) and + 1 (wgmma_a_position); B register b_reg + i holds rows (k) c + 8i and + 1
// of column g; C and D register i row g + 8 (i / 2), column c + (i % 2) (wgmma_d_position).
constexpr unsigned mma_sync_m = 16, mma_sync_n = 8, mma_sync_k = 16;
struct mma_sync_request {
  element_type type = element_type::f16;
  unsigned sub_partition = 0;                      // its register file and tensor core
  std::array<std::uint32_t*, warp_lanes> lanes{};  // each lane's registers ...
  unsigned register_stride = 1;                     // ... register k of lane l at lanes[l][k * register_stride]
  unsigned d_reg = 0, a_reg = 0, b_reg = 0, c_reg = 0;
  std::string where;
};

// The GMMA family's debug flag (flynn run --debug GMMA).
inline constexpr debug_flag debug_gmma{"GMMA", "wgmma phases (start barrier, operands, math, write-back) and mma.sync"};

class gmma_if : public virtual sc_core::sc_interface {
 public:
  // A warp arrives with its part at cycle t. Returns "" (and an id) or a fault. When the
  // last warp of the group arrives the MMA starts: it reads its operands and writes its
  // accumulators at the cycles it models, and then every part's completion cycle becomes
  // known.
  virtual std::string issue(const wgmma_request& r, std::uint64_t t, std::uint64_t& id) = 0;
  // The cycle part `id` completed (its D written back); false while that is not known yet.
  virtual bool completion(std::uint64_t id, std::uint64_t& cycle) const = 0;
  // Groups still waiting at the start barrier: "group 0: warps 0, 1 of 4 arrived (...)".
  virtual std::string waiting() const = 0;
  // Started MMAs whose completion is not known yet; the event is notified when some become
  // known (a core waiting on them waits for it rather than guessing ahead).
  virtual bool in_progress() const = 0;
  virtual const sc_core::sc_event& progress_event() const = 0;
  // A warp's mma.sync issued at cycle t: reads A, B and C through the sub-partition's
  // register file, runs on its tensor core and writes D back through the register file;
  // `done` is the cycle D is written. "" or a fault.
  virtual std::string mma_sync(const mma_sync_request& r, std::uint64_t t, std::uint64_t& done) = 0;
};

}  // namespace flynn

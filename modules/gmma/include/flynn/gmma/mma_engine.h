// Group-of-warps MMA operand delivery (the patent's generations as one machinery): a
// warpgroup of 4 warps on 4 sub-partitions computes D (M x N, fp32) = A (M x K) x B (K x N)
// + C, K in blocks of `k_block`, with A and B in a banked shared memory. The threads are
// split into operand-sharing units of `scope_threads` (8: 8-thread groups, 32: a warp,
// 128: the warpgroup). For every K block each unit reads the A rows and B columns of its
// output tile from shared memory in 128-byte requests over TLM (the memory decides bank
// conflicts and port rate), into the register file or straight into the datapath; B goes
// column group by column group, pipelined with the math; a warpgroup unit reads B once and
// multicasts it to all sub-partitions. Each sub-partition's tensor core then does its
// share at `fma_per_cycle`. The statistics are counted as the events happen: instructions
// as the warps issue them, register reads as the instructions read their fragments, and
// shared-memory wavefronts as the memory reports them (wavefront_extension). See
// docs/modules/mma_engine.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/common/golden.h"
#include "flynn/common/lt_initiator.h"
#include "flynn/common/params.h"
#include "flynn/regfile/register_file.h"
#include "flynn/regfile/warp_register.h"
#include "flynn/tensor/numeric.h"

namespace flynn {

// Bytes of one shared-memory request: a wavefront of the modelled SM's shared memory (32
// banks x 4 B). A memory with other banks takes more or fewer wavefronts for it and says so
// (wavefront_extension).
constexpr unsigned mma_smem_request_bytes = 128;

enum class operand_path { registers, shared };

inline constexpr std::pair<operand_path, const char*> operand_path_names[] = {
    {operand_path::registers, "registers"}, {operand_path::shared, "shared"}};
inline constexpr std::pair<element_type, const char*> element_type_names[] = {
    {element_type::f16, "f16"}, {element_type::bf16, "bf16"}};

struct mma_engine_params : clocked_params {
  property<unsigned> scope_threads{this, {"scope_threads", "threads",
      "operand sharing scope: 8 (8-thread groups), 32 (warp) or 128 (warpgroup)"}, 128, 8, 128};
  property<operand_path> operands{this, {"operands", "",
      "A and B through the register file (registers) or straight from shared memory "
      "(shared)"}, operand_path::shared, operand_path_names};
  property<unsigned> m{this, {"m", "", "rows of D and A"}, 64, 8, 256};
  property<unsigned> n{this, {"n", "", "columns of D and B"}, 64, 8, 256};
  property<unsigned> k{this, {"k", "", "columns of A, rows of B"}, 16, 4, 4096};
  property<unsigned> k_block{this, {"k_block", "",
      "K of one MMA; operands are read from shared memory per block"}, 16, 4, 256};
  property<unsigned> instr_m{this, {"instr_m", "", "MMA instruction shape: rows"}, 64, 1, 256};
  property<unsigned> instr_n{this, {"instr_n", "", "MMA instruction shape: columns"}, 64, 1, 256};
  property<unsigned> instr_k{this, {"instr_k", "", "MMA instruction shape: depth"}, 16, 1, 256};
  property<unsigned> sub_partitions{this, {"sub_partitions", "",
      "sub-partitions, one warp and one tensor core each"}, 4, 1, 8};
  property<unsigned> fma_per_cycle{this, {"fma_per_cycle", "FMA/cycle",
      "tensor-core throughput per sub-partition"}, 512, 1, 1 << 16};
  property<unsigned> tc_latency{this, {"tc_latency", "cycles",
      "tensor-core pipeline latency (write-back of D)"}, 8, 0, 1000};
  property<unsigned> rf_read_bytes_per_cycle{this, {"rf_read_bytes_per_cycle", "B/cycle",
      "register-file operand bandwidth per sub-partition"}, 256, 1, 1 << 16};
  property<unsigned> column_group{this, {"column_group", "columns",
      "B columns delivered together, pipelined with the math"}, 8, 1, 256};
  property<std::uint64_t> a_base{this, {"a_base", "B",
      "shared-memory address of A (per K block: M rows of k_block elements)"}, 0};
  property<std::uint64_t> b_base{this, {"b_base", "B",
      "shared-memory address of B (per K block: N columns of k_block elements)"}, 65536};
  property<element_type> type{this, {"element", "",
      "input element type: f16 or bf16 (fp32 accumulation)"}, element_type::f16, element_type_names};
  property<std::uint64_t> seed{this, {"seed", "", "seed of the operand values"}, 1};

  std::vector<param_issue> check() const;
  // What it allocates by these parameters (see param_footprint).
  param_footprint footprint() const;
};

class mma_engine : public lt_initiator, public golden_self_check {
 public:
  using params = mma_engine_params;
  tlm::tlm_initiator_socket<32> smem;
  // Sub-partition w's register file (rfW, optional; operands: registers): with one bound,
  // the A and B fragments are written into it and read out of it as register_file
  // requests, and its banks, crossbar and result queue time them and the counts come from
  // its answers; without, rf_read_bytes_per_cycle models the operand collectors.
  using rf_socket = tlm::tlm_initiator_socket<32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
  std::vector<std::unique_ptr<rf_socket>> rf;

  mma_engine(const sc_core::sc_module_name& name, const params& p);

  const std::vector<float>& result() const { return d_; }
  // Golden check: the datapath's D equals the reference GEMM bit for bit.
  bool matches_reference() const;
  std::string check_golden(std::string& passed) const override;
  std::string pending_work() const override { return done_ ? "" : "MMA not finished"; }
  void attach_trace(trace_sink& sink) override;
  bool optional_socket(const std::string& s) const override { return s.rfind("rf", 0) == 0; }

 private:
  void run();
  // A unit's rows and columns of the product and its operands of the current K block.
  struct unit_state {
    unsigned row0, col0;
    std::vector<unsigned char> a, b;  // this block's A rows and B columns as read
  };
  void store_operands();
  void accumulate(const unit_state& u, unsigned rows, unsigned cols);
  void fetch_block(unsigned blk, std::uint64_t& t, std::vector<unit_state>& us, unsigned unit_rows, unsigned groups,
                   std::vector<std::uint64_t>& a_landed, std::vector<std::uint64_t>& b_landed);
  std::uint64_t fetch(std::uint64_t addr, unsigned bytes, std::uint64_t& t, unsigned char* out);
  // Registers 0 .. count-1 of sub-partition w's register file read or written from cycle
  // `at` (timing: the values stay in the engine); returns when the request completes.
  std::uint64_t rf_access(unsigned w, bool write, unsigned first, unsigned count, std::uint64_t at);
  bool rf_bound(unsigned w) const { return w < rf.size() && rf[w]->size() > 0; }
  std::vector<unsigned char> rf_data_;

  params p_;
  std::vector<std::uint16_t> a_, b_;  // row-major A (M x K), B (K x N)
  std::vector<float> c_, d_;
  bool done_ = false;
  std::uint64_t total_ = 0;
  std::uint64_t first_block_done_ = 0, last_block_done_ = 0;  // sub-partition 0
  trace_signal k_block_sig_, requests_sig_;
  std::vector<trace_signal> sp_busy_, sp_group_;
  // Statistics, in the order they are written.
  statistic instructions_{stats_, "hw_instructions", "instructions",
                          "MMA instructions the warps issue, counted as each is issued (one per warp and "
                          "instruction shape)"};
  statistic rf_reads_{stats_, "rf_reads", "reads",
                      "warp registers (32 lanes x 4 B) of A and B fragments read for the issued instructions: with "
                      "the sub-partitions' register files bound (rfW), the registers of the read requests they "
                      "answered (their banks and crossbar time them); else counted from the fragment sizes, "
                      "against rf_read_bytes_per_cycle"};
  statistic rf_read_bytes_{stats_, "rf_read_bytes", "B", "the bytes of those registers"};
  statistic rf_write_bytes_{stats_, "rf_write_bytes", "B",
                            "A and B bytes written into the register files from shared memory (operands through "
                            "registers): with register files bound, the write requests they answered (through "
                            "their result queues and banks); else counted per K block from the units' tile sizes, "
                            "untimed"};
  statistic smem_wavefronts_{stats_, "smem_reads", "wavefronts",
                             "shared-memory wavefronts the A and B reads took, as the memory reports them (a "
                             "request a target without banks serves counts as one)"};
  statistic smem_requests_{stats_, "smem_requests", "requests", "128-byte shared-memory read requests of A and B"};
  statistic fmas_{stats_, "fmas", "FMA", "multiply-adds done by the tensor cores"};
  statistic tc_busy_{stats_, "datapath_cycles", "cycles", "cycles the busiest tensor core computed"};
  statistic units_{stats_, "units", "units", "operand-sharing units (threads / scope)"};
  statistic k_blocks_{stats_, "k_blocks", "blocks", "MMAs in sequence (K / k_block)"};
  stat_formula mma_cycles_{stats_, "mma_cycles", [this] { return double(total_); }, "cycles",
                           "first request to the last D written back"};
  stat_formula mma_interval_{
      stats_, "mma_interval",
      [this] {
        const std::uint64_t b = k_blocks_.value();
        return b > 1 ? double(last_block_done_ - first_block_done_) / double(b - 1) : 0.0;
      },
      "cycles", "steady-state cycles between consecutive dependent MMAs (K blocks) on a sub-partition"};
  stat_formula fma_per_cycle_{stats_, "fma_per_cycle",
                              [this] { return total_ ? double(fmas_.value()) / double(total_) : 0.0; }, "FMA/cycle",
                              "throughput: multiply-adds per cycle over the whole run"};
  stat_formula tensor_utilisation_{
      stats_, "tensor_utilisation",
      [this] {
        return total_ ? double(fmas_.value()) / (double(total_) * p_.fma_per_cycle * p_.sub_partitions) : 0.0;
      },
      "", "multiply-adds / (cycles x sub-partitions x fma_per_cycle)"};
};

}  // namespace flynn

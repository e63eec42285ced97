// GMMA state machine: the hardware worker that runs one warpgroup MMA (wgmma.m64nNk16)
// for the SIMT core, following the event flow of a group-of-warps MMA:
//   1. start barrier: waits until every warp of the group issued its part;
//   2. moves each warp's 16-row A slice into its sub-partition's datapath (from shared
//      memory through the matrix descriptor, or with .rs from the warp's registers through
//      the sub-partition's register file, a TLM target);
//   3. reads B from shared memory once, column group by column group, and multicasts each
//      group to all sub-partitions' tensor cores (TLM targets), pipelining the reads with
//      the math;
//   4. writes each warp's D fragment back into its accumulator registers (reading them first
//      when accumulating) through the register file, column group by column group; a per-part
//      barrier records when each warp's part is done, and the end when all are.
// Operand buffers let the next MMAs' operands be fetched while the current one computes. See docs/modules/gmma_unit.md.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/common/lt_initiator.h"
#include "flynn/common/params.h"
#include "flynn/gmma/wgmma.h"
#include "flynn/regfile/register_file.h"

namespace flynn {

struct gmma_unit_params : clocked_params {
  property<unsigned> warps{this, {"warps", "warps",
      "warps per warpgroup: sub-partitions, one tensor core each (sockets tc0, tc1, ...)"}, 4, 1, 8};
  property<unsigned> column_group{this, {"column_group", "columns",
      "B columns read and delivered together, pipelined with the math"}, 8, 8, 256};
  property<unsigned> start_latency{this, {"start_latency", "cycles",
      "from the start barrier (last warp arrived) to the first operand request"}, 2, 0, 1000};
  property<unsigned> operand_buffers{this, {"operand_buffers", "MMAs",
      "operand buffers: the MMA computing and up to operand_buffers - 1 fetched ahead"}, 3, 1, 16};
  std::vector<param_issue> check() const;
  // Nothing it allocates grows with a parameter beyond a few KiB.
  param_footprint footprint() const { return {}; }
};

class gmma_unit : public lt_initiator, public gmma_if {
 public:
  using params = gmma_unit_params;
  tlm::tlm_initiator_socket<32> smem;
  std::vector<std::unique_ptr<tlm::tlm_initiator_socket<32>>> tc;  // tc0 .. tc{warps-1}
  std::vector<std::unique_ptr<tlm::tlm_initiator_socket<32>>> rf;  // rf0 .. rf{warps-1}: register files
  sc_core::sc_export<gmma_if> link;

  SC_HAS_PROCESS(gmma_unit);
  gmma_unit(const sc_core::sc_module_name& name, const params& p);

  std::string issue(const wgmma_request& r, std::uint64_t t, std::uint64_t& id) override;
  bool completion(std::uint64_t id, std::uint64_t& cycle) const override;
  std::string waiting() const override;
  bool in_progress() const override { return !ready_.empty(); }
  const sc_core::sc_event& progress_event() const override { return progress_ev_; }
  std::string mma_sync(const mma_sync_request& r, std::uint64_t t, std::uint64_t& done) override;
  std::string pending_work() const override;
  std::string socket_lanes(const std::string& s) const override {
    return s == "smem" ? "sends: A and B operand reads as one request of per-lane addresses per warp" : "";
  }
  void attach_trace(trace_sink& sink) override;

 private:
  struct gathering {
    std::vector<wgmma_request> parts;  // by warp_in_group
    std::vector<bool> present;         // the warp has arrived
    std::vector<std::uint64_t> ids, arrived;
    unsigned count = 0;
  };
  std::string check_operands(const wgmma_request& r) const;
  void worker();                               // runs started groups in order
  std::string run(gathering& g);
  std::string read_a(const gathering& g, std::uint64_t& t, std::vector<std::vector<unsigned char>>& a,
                     std::vector<std::uint64_t>& a_ready);
  struct idle_marks;
  std::string warp_math(const gathering& g, unsigned w, unsigned q, unsigned cols, const std::vector<unsigned char>& a,
                        const std::vector<unsigned char>& b, std::uint64_t ready, idle_marks& marks,
                        std::uint64_t& math_start, std::uint64_t& started, std::uint64_t& done);
  void report(const wgmma_request& r0, const std::array<std::uint64_t, 6>& at);
  std::vector<float> tile_;          // warp_math's scratch: a column group's D
  std::vector<unsigned char> data_;  // and its register bytes
  std::string registers(unsigned w, bool write, const std::array<std::uint32_t*, warp_lanes>& lanes, unsigned stride,
                        const std::vector<unsigned>& regs, std::uint64_t at, std::vector<unsigned char>& data,
                        std::uint64_t& done);
  std::string registers(unsigned w, bool write, const wgmma_request& r, const std::vector<unsigned>& regs,
                        std::uint64_t at, std::vector<unsigned char>& data, std::uint64_t& done) {
    return registers(w, write, r.lanes, r.register_stride, regs, at, data, done);
  }
  // registers()'s extension, its register list's storage reused from call to call (the
  // register file answers at once, so no two calls overlap).
  register_access_extension reg_access_;
  // The tensor core's idle cycles before a block that starts at `start` on tensor core w,
  // by cause (the MMA's events in time order: see docs/modules/gmma_unit.md).
  struct idle_marks {
    std::uint64_t first = 0, last = 0, operands = 0;  // first and last warp arrived; A and B in
    std::uint8_t wait_kind = 0;                        // the first warp's last wait before it issued
    std::uint64_t wait_from = 0, wait_to = 0;
  };
  void count_idle(unsigned w, std::uint64_t start, std::uint64_t end, const idle_marks& m);
  std::string read_chunks(const std::vector<std::uint64_t>& addrs, std::uint64_t at, unsigned char* out,
                          std::uint64_t& landed);

  params p_;
  std::vector<std::int64_t> completion_;  // by id; -1 while the group is incomplete
  std::map<unsigned, std::deque<gathering>> open_;
  std::deque<gathering> ready_;  // groups whose warps all arrived, in order; the worker runs the front
  sc_core::sc_event work_ev_, progress_ev_;
  std::deque<std::uint64_t> math_starts_;  // of the last MMAs: an operand buffer frees when its MMA computes
  std::uint64_t last_end_ = 0, first_end_ = 0, fmas_after_first_ = 0;
  // Statistics, in the order they are written.
  statistic wgmmas_{stats_, "wgmma", "instructions", "warpgroup MMAs run (one per group of warps)"};
  statistic hw_instructions_{stats_, "hw_instructions", "instructions",
                             "wgmma instructions the warps issued (one per warp)"};
  statistic smem_requests_{stats_, "smem_requests", "requests",
                           "multi-lane shared-memory reads of A and B (16-byte chunks)"};
  statistic smem_wavefronts_{stats_, "smem_reads", "wavefronts",
                             "shared-memory wavefronts the A and B reads took, as the bound memory reports them"};
  statistic a_smem_bytes_{stats_, "a_smem_bytes", "B", "A bytes read from shared memory"};
  statistic b_smem_bytes_{stats_, "b_smem_bytes", "B", "B bytes read from shared memory (once per MMA)"};
  statistic b_multicast_bytes_{stats_, "b_multicast_bytes", "B",
                               "B bytes delivered to the sub-partitions (multicast)"};
  statistic rf_read_bytes_{stats_, "rf_read_bytes", "B", "A operand bytes read from the register files (.rs)"};
  statistic rf_acc_read_bytes_{stats_, "rf_accumulator_bytes", "B",
                               "accumulator (C) bytes read from the register files"};
  statistic rf_write_bytes_{stats_, "rf_write_bytes", "B", "D bytes written back into the accumulator registers"};
  statistic fmas_{stats_, "fmas", "FMA", "multiply-adds of the MMAs"};
  statistic tc_blocks_{stats_, "tensor_core_blocks", "blocks",
                       "blocks of work sent to the tensor cores (one per warp and column group)"};
  statistic accumulator_wait_{stats_, "accumulator_wait_cycles", "cycles",
                              "cycles column groups waited for an earlier MMA's D to land in the accumulators they "
                              "read, summed"};
  statistic sync_mmas_{stats_, "mma_sync", "instructions", "mma.sync instructions run (one per warp)"};
  statistic sync_fmas_{stats_, "mma_sync_fmas", "FMA", "multiply-adds of the mma.sync instructions"};
  stat_formula mma_sync_fma_rate_{
      stats_, "mma_sync_fma_rate",
      [this] { return sync_last_ > sync_first_ ? double(sync_fmas_.value()) / double(sync_last_ - sync_first_) : 0.0; },
      "FMA/cycle", "mma.sync multiply-adds over the cycles from the first one's issue to the last one's D written"};
  stat_formula mma_sync_to_wgmma_rate_{
      stats_, "mma_sync_to_wgmma_rate",
      [this] {
        const double sync =
            sync_last_ > sync_first_ ? double(sync_fmas_.value()) / double(sync_last_ - sync_first_) : 0.0;
        const double group =
            last_end_ > first_end_ ? double(fmas_after_first_) / double(last_end_ - first_end_) : 0.0;
        return group > 0 ? sync / group : 0.0;
      },
      "", "mma_sync_fma_rate / mma_fma_rate, when the run has both"};
  // The tensor cores' idle cycles by cause, summed over the tensor cores: every cycle of a
  // tensor core is busy or in exactly one of these (docs/modules/gmma_unit.md).
  statistic idle_stage_{stats_, "tc_idle_stage_wait", "cycles",
                        "tensor-core idle cycles before an MMA's first warp issued it, while that warp waited on "
                        "an mbarrier (its operands' TMA copies landing)"};
  statistic idle_group_{stats_, "tc_idle_group_wait", "cycles",
                        "... while that warp waited in wgmma.wait_group for its earlier MMAs"};
  statistic idle_other_wait_{stats_, "tc_idle_other_wait", "cycles", "... while that warp waited in tma.wait"};
  statistic idle_issue_{stats_, "tc_idle_issue", "cycles",
                        "... while that warp issued other instructions (address and descriptor arithmetic, loop "
                        "control, epilogue stores) or waited on their results"};
  statistic idle_barrier_{stats_, "tc_idle_start_barrier", "cycles",
                          "tensor-core idle cycles between an MMA's first and last warp arriving"};
  statistic idle_operands_{stats_, "tc_idle_operands", "cycles",
                           "tensor-core idle cycles from the last warp arriving until the block's A and B were in "
                           "(start latency, operand buffers, shared-memory reads; mma.sync: its register-file read)"};
  statistic idle_accumulators_{stats_, "tc_idle_accumulators", "cycles",
                               "tensor-core idle cycles waiting for an earlier MMA's D in the accumulators and the "
                               "C read through the register file"};
  stat_formula tc_idle_after_last_{
      stats_, "tc_idle_after_last",
      [this] {
        const std::uint64_t now = to_cycles(flynn::sim_now());
        std::uint64_t s = 0;
        for (std::uint64_t e : tc_end_) s += now > e ? now - e : 0;
        return double(s);
      },
      "cycles", "tensor-core idle cycles after each one's last block, to the end of the run"};
  statistic start_wait_{stats_, "start_barrier_cycles", "cycles",
                        "cycles between the first and the last warp arriving, summed"};
  stat_formula mma_interval_{
      stats_, "mma_interval",
      [this] {
        const std::uint64_t n = wgmmas_.value();
        return n > 1 ? double(last_end_ - first_end_) / double(n - 1) : 0.0;
      },
      "cycles", "mean cycles between the ends of consecutive MMAs"};
  stat_formula mma_fma_rate_{
      stats_, "mma_fma_rate",
      [this] { return last_end_ > first_end_ ? double(fmas_after_first_) / double(last_end_ - first_end_) : 0.0; },
      "FMA/cycle",
      "multiply-adds of the MMAs after the first over the cycles between the first's end and the last's"};
  std::vector<std::uint64_t> tc_end_;  // per tensor core: the end of its last block
  // mma.sync: its first issue and its last D written (the rate's span)
  std::uint64_t sync_first_ = UINT64_MAX, sync_last_ = 0;
  std::vector<unsigned char> sync_in_, sync_out_, sync_a_, sync_b_;
  std::vector<float> sync_tile_;
  // Per (warpgroup, warp): the cycle each accumulator register's latest D write lands. An MMA
  // that accumulates reads C only from then on (a dependent chain sees the tensor-core
  // latency and the write-back; independent MMAs overlap).
  // Indexed by register number (0: never written, which delays nothing).
  std::map<std::pair<unsigned, unsigned>, std::vector<std::uint64_t>> acc_written_;
  std::vector<unsigned> acc_regs_;  // warp_math's scratch: a column group's accumulator registers
  // Where each (register k, lane l) of a column group's accumulators sits in its D tile
  // (row * cols + column in the group, at [k * warp_lanes + l]), by (first register's index
  // in the fragment, registers, columns, first column): wgmma_d_position worked out once per shape.
  std::map<std::array<unsigned, 4>, std::vector<std::uint32_t>> d_layouts_;
  const std::vector<std::uint32_t>& d_layout(unsigned first, unsigned count, unsigned cols, unsigned col0);
  void trace_phases(std::uint64_t id, const std::array<std::uint64_t, 4>& at, std::vector<std::uint64_t> arrived,
                    const std::vector<std::uint64_t>& groups, std::vector<std::uint64_t> parts);
  trace_signal state_, mma_id_, group_sig_, arrived_sig_, parts_done_;
  std::uint64_t shown_until_ = 0;  // the first cycle the next MMA's phases may be shown from
  trace_sink* timeline_ = nullptr;  // MMA phases as async spans
};

}  // namespace flynn

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

namespace flynn {

struct gmma_unit_params : clocked_params {
  unsigned warps = 4;               // warps per warpgroup = sub-partitions = tensor cores
  unsigned column_group = 8;        // B columns delivered to the datapaths together
  unsigned start_latency = 2;       // start barrier to the first operand request
  unsigned operand_buffers = 3;     // MMAs whose operands are held: the computing one and those fetched ahead
  void visit(param_visitor& v);
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
  std::string registers(unsigned w, bool write, const std::array<std::uint32_t*, warp_lanes>& lanes, unsigned stride,
                        std::vector<unsigned> regs, std::uint64_t at, std::vector<unsigned char>& data,
                        std::uint64_t& done);
  std::string registers(unsigned w, bool write, const wgmma_request& r, std::vector<unsigned> regs, std::uint64_t at,
                        std::vector<unsigned char>& data, std::uint64_t& done) {
    return registers(w, write, r.lanes, r.register_stride, std::move(regs), at, data, done);
  }
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
  stat_counter wgmmas_, hw_instructions_, smem_requests_, a_smem_bytes_, b_smem_bytes_, b_multicast_bytes_, rf_read_bytes_,
      rf_acc_read_bytes_, rf_write_bytes_, fmas_, start_wait_, tc_blocks_, accumulator_wait_, smem_wavefronts_,
      sync_mmas_, sync_fmas_, idle_stage_, idle_group_, idle_other_wait_, idle_issue_, idle_barrier_, idle_operands_,
      idle_accumulators_;
  std::vector<std::uint64_t> tc_end_;  // per tensor core: the end of its last block
  // mma.sync: its first issue and its last D written (the rate's span)
  std::uint64_t sync_first_ = UINT64_MAX, sync_last_ = 0;
  std::vector<unsigned char> sync_in_, sync_out_, sync_a_, sync_b_;
  std::vector<float> sync_tile_;
  // Per (warpgroup, warp): the cycle each accumulator register's latest D write lands. An MMA
  // that accumulates reads C only from then on (a dependent chain sees the tensor-core
  // latency and the write-back; independent MMAs overlap).
  std::map<std::pair<unsigned, unsigned>, std::map<unsigned, std::uint64_t>> acc_written_;
  void trace_phases(std::uint64_t id, const std::array<std::uint64_t, 4>& at, std::vector<std::uint64_t> arrived,
                    const std::vector<std::uint64_t>& groups, std::vector<std::uint64_t> parts);
  trace_signal state_, mma_id_, group_sig_, arrived_sig_, parts_done_;
  std::uint64_t shown_until_ = 0;  // the first cycle the next MMA's phases may be shown from
  trace_sink* timeline_ = nullptr;  // MMA phases as async spans
};

}  // namespace flynn

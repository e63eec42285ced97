// TMA-style bulk tensor loader: asynchronous copies of a box of a tensor between global
// memory and shared memory, driven by a tensor descriptor (rank 1-5, element size, global
// dimensions and byte strides, box dimensions, out-of-bounds fill with zeros, swizzled
// shared-memory layouts). Loads read global memory row by row over TLM and write the
// banked shared memory; each row's bytes complete on a transaction barrier when they land.
// See docs/modules/tma_loader.md.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/sync/tx_barrier.h"
#include "flynn/tlm/begin_request.h"
#include "flynn/tlm/memory_manager.h"
#include "flynn/tlm/no_dmi_initiator.h"
#include "flynn/tma/swizzle.h"
#include "flynn/tma/tensor_descriptor.h"
#include "flynn/tma/tma_if.h"

namespace flynn {

struct tma_loader_params : clocked_params {
  property<unsigned> issue_interval{this, {"issue_interval", "cycles",
      "cycles between row requests to global memory"}, 1, 1, 1 << 20};
  property<unsigned> issue_latency{this, {"issue_latency", "cycles",
      "per-copy issue cost, an occupancy: the cycles the unit spends on a copy's descriptor "
      "(fetch and decode, address generation, request formation) before its first row request, "
      "once the previous copy's row requests are out"}, 0, 0, 1 << 20};
  ideal_switch ideal{this,
      "an ideal loader for attribution (flynn attribute): no per-copy issue cost and every row "
      "of a copy requested at its start (the memories still time the rows)"};
  std::vector<param_issue> check() const { return {}; }
  // Nothing it allocates grows with a parameter beyond a few KiB.
  param_footprint footprint() const { return {}; }
};

class tma_loader : public module, public tma_if, public no_dmi_initiator {
 public:
  using params = tma_loader_params;
  tlm::tlm_initiator_socket<32> global, shared;
  sc_core::sc_export<tma_if> link;  // "tma": from a SIMT core's tma.load

  SC_HAS_PROCESS(tma_loader);
  tma_loader(const sc_core::sc_module_name& name, const params& p);

  // Copies the box whose first element is at `coords` (may lie partly outside the tensor:
  // those elements are zero) to shared memory at `smem_addr` (1024-byte aligned when
  // swizzled), starting no earlier than cycle `start`. Each row's bytes complete on `bar`
  // when they land in shared memory (the caller expects box_bytes() on it). Returns "" or
  // a fault (invalid descriptor, misaligned address, error response).
  std::string load(const tensor_descriptor& d, const std::array<std::int64_t, 5>& coords,
                   std::uint64_t smem_addr, tx_barrier& bar, std::uint64_t start) override;
  // Copies the box at `coords` from shared memory at `smem_addr` (same layout as load) to
  // the tensor in global memory; elements outside the tensor are not written. Each row is
  // read from shared memory at its cycle and its global write sent (AT, not waited for) when
  // the read is back, so a copy's rows are in flight together as a load's are; store_done(id)
  // gives the cycle of the last write's response once every row's has come (stores finish in
  // order). Returns "" or a fault.
  std::string store(const tensor_descriptor& d, const std::array<std::int64_t, 5>& coords, std::uint64_t smem_addr,
                    std::uint64_t start, std::uint64_t& id) override;
  std::uint64_t store_done(std::uint64_t id) const override;
  void finish() override;
  // Cycle by which every copy issued so far has landed.
  std::uint64_t busy_until() const override { return busy_until_; }
  bool in_progress() const override {
    return !landing_.empty() || !to_read_.empty() || !to_write_.empty() || !reading_.empty() ||
           stores_finished_ < stores_.value();
  }
  const sc_core::sc_event& progress_event() const override { return progress_ev_; }
  bool writing_to(std::uint64_t lo, std::uint64_t hi) const override;
  std::string pending_work() const override;
  std::string socket_lanes(const std::string& s) const override {
    return s == "shared" ? "sends: a swizzled row as 16-byte chunks at per-lane addresses" : "";
  }

  void attach_trace(trace_sink& sink) override;

 private:
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& delay) override;
  std::string transfer(tlm::tlm_initiator_socket<32>& s, tlm::tlm_command cmd, std::uint64_t addr,
                       unsigned char* data, unsigned len, std::uint64_t at, std::uint64_t& done,
                       const std::vector<std::uint64_t>* lane_addrs = nullptr);

  // A row read from global memory, to be written to shared memory when it lands.
  struct landing_row {
    std::uint64_t at = 0;                 // cycle the row's data is back from global memory
    std::uint64_t smem_addr = 0;
    std::vector<std::uint64_t> chunks;    // swizzled: the 16-byte chunks' shared addresses
    std::vector<unsigned char> data;
    tx_barrier* bar = nullptr;
    std::uint64_t copy = 0;               // the copy's number (for reports)
  };
  void writer();  // writes landing rows in order, each at its cycle
  std::deque<landing_row> landing_;
  // A row to read from global memory at cycle t (len 0: outside the tensor, nothing to read),
  // or for a store (store > 0) a row to read from shared memory at row.smem_addr (row.chunks
  // when swizzled) at cycle t and write to global memory at addr (len bytes from offset off).
  struct row_read {
    std::uint64_t t = 0, addr = 0, off = 0;
    unsigned len = 0;
    landing_row row;  // its data fill in as the read answers
    std::uint64_t store = 0;  // the store's number (stores_), 0 for a load
  };
  void store_row(row_read& rr);
  void row_written(row_read& rr, std::uint64_t written);  // a store's row is in global memory
  std::map<std::uint64_t, std::uint64_t> store_done_;  // by store number: last write so far, or the end
  std::uint64_t stores_finished_ = 0;                  // stores 1 .. this have all rows written
  // Stores in progress: their first row's cycle, bytes and rows not yet written.
  struct store_progress {
    std::uint64_t first_row = 0, bytes = 0, rows_left = 0;
  };
  std::map<std::uint64_t, store_progress> store_progress_;
  void reader();  // sends the global reads, each at its cycle
  void send_global(row_read&& rr, tlm::tlm_command cmd);
  std::multimap<std::uint64_t, row_read> to_write_;  // store rows read from shared memory, by the cycle to write them
  void row_read_done(tlm::tlm_generic_payload* gp, const sc_core::sc_time& at);
  void land(landing_row&& row);
  std::deque<row_read> to_read_;
  std::unordered_map<tlm::tlm_generic_payload*, row_read> reading_;  // sent, not answered yet
  tlm::tlm_generic_payload* request_open_ = nullptr;                 // waiting for its END_REQ
  sc_core::sc_time request_phase_end_;  // the last END_REQ's annotated time
  end_resp_sender end_resp_owed_;  // for responses on the return path of BEGIN_REQ
  payload_pool pool_{0};                                              // the rows hold the data
  sc_core::sc_event to_read_ev_, end_req_ev_;
  struct load_progress {
    std::uint64_t first_row = 0;  // its first row's cycle (timeline)
    std::uint64_t rows_left = 0;  // rows not yet in shared memory
    std::uint64_t issued = 0;     // the cycle the warp issued it
  };
  std::map<std::uint64_t, load_progress> loads_;  // loads still landing, by copy number
  sc_core::sc_event landing_ev_, progress_ev_;

  params p_;
  std::uint64_t next_issue_ = 0, busy_until_ = 0;
  stat_counter copies_landed_, copy_latency_;  // the operands of mean_copy_latency, not written themselves
  // Statistics, in the order they are written.
  statistic copies_{stats_, "copies", "copies", "bulk tensor copies"};
  statistic rows_{stats_, "rows", "rows", "box rows moved"};
  statistic bytes_{stats_, "bytes", "B", "bytes written to shared memory (zero fill included)"};
  statistic stores_{stats_, "stores", "copies", "bulk tensor copies from shared to global memory"};
  statistic bytes_stored_{stats_, "bytes_stored", "B", "bytes written to global memory by stores"};
  statistic oob_bytes_{stats_, "oob_bytes", "B", "bytes outside the tensor, filled with zeros"};
  statistic global_requests_{stats_, "global_requests", "requests", "global-memory read bursts"};
  stat_ratio mean_copy_latency_{stats_, "mean_copy_latency", copy_latency_, copies_landed_, "cycles",
                               "mean cycles from a load's issue by the warp to its last row written to shared memory"};
  statistic shared_requests_{stats_, "shared_requests", "requests",
                             "shared-memory writes (multi-lane when swizzled)"};
  std::map<std::uint64_t, std::int64_t> in_flight_;  // bytes in flight: changes by cycle
  trace_sink* timeline_ = nullptr;                    // copies as async spans
  trace_signal bytes_in_flight_;
};

}  // namespace flynn

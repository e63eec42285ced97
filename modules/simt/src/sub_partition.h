// A SIMT core sub-partition: its warp scheduler (over warp slots index, index + count, ...),
// its dispatch port, the units it dispatches to, and its operand collector: the
// register-file banks its instructions read their sources from (operand_banks), or the
// bound register file their sources are read from and their results written back to
// through the banks and crossbar the tensor path uses too. With its issue trace.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "flynn/common/stats.h"
#include "flynn/common/trace.h"
#include "flynn/regfile/register_file_if.h"
#include "flynn/simt/isa.h"
#include "flynn/simt/scheduler.h"

namespace flynn::simt {

// The units a sub-partition dispatches to: the lanes, and the sfu and load/store lanes
// where they have their own (else their instructions run on the lanes).
enum unit_class : unsigned { unit_lanes, unit_sfu, unit_lsu, unit_classes };

// Where each class of instruction runs (its own lanes, or the lanes) and the cycles an
// instruction holds the unit (warp_size / its lanes); split: a class has lanes of its own,
// so the dispatch may issue while a unit is busy.
struct dispatch_units {
  std::array<unsigned, unit_classes> unit_of{};
  std::array<std::uint64_t, unit_classes> occupancy{};
  bool split = false;
  dispatch_units(unsigned warp_size, unsigned lanes, unsigned sfu_lanes, unsigned lsu_lanes) {
    const unsigned class_lanes[unit_classes] = {lanes, sfu_lanes, lsu_lanes};
    for (unsigned c = 0; c < unit_classes; ++c) {
      unit_of[c] = class_lanes[c] ? c : unsigned(unit_lanes);
      occupancy[c] = (warp_size + class_lanes[unit_of[c]] - 1) / class_lanes[unit_of[c]];
      split = split || unit_of[c] != unit_lanes;
    }
  }
};

class sub_partition {
 public:
  // Operand-collector waits (cycles past issue for sources, past completion for results)
  // are added to `conflict_cycles`.
  sub_partition(unsigned index, unsigned count, std::unique_ptr<warp_scheduler> sched, stat_counter& conflict_cycles);

  warp_scheduler& scheduler() { return *sched_; }
  const warp_scheduler& scheduler() const { return *sched_; }

  // The first cycle the dispatch may issue at, and the cycle each unit is free from.
  std::uint64_t dispatch_free() const { return dispatch_free_; }
  void hold_dispatch(std::uint64_t until) { dispatch_free_ = until; }
  std::uint64_t unit_free(unsigned unit) const { return unit_free_[unit]; }
  void hold_unit(unsigned unit, std::uint64_t until) { unit_free_[unit] = until; }

  // The operand collector: `banks` banks of `bank_width` registers a cycle (0: no
  // conflicts), all free; or `rf` (null: none bound), which takes the place of the banks.
  void start_collector(unsigned banks, unsigned bank_width, register_file_if* rf);
  bool collects() const { return banks_ || rf_; }
  // An instruction issued at cycle t by the warp in the sub-partition's rank-th slot reads
  // the registers `reads`: the cycle the last is read (t when nothing waits).
  std::uint64_t collect(const reg_set& reads, unsigned rank, std::uint64_t t);
  // Its results `written`, complete at cycle `done`: the cycle they are in the bound
  // register file's banks (`done` without one).
  std::uint64_t write_back(const reg_set& written, std::uint64_t done);

  void attach_trace(trace_sink& sink, const std::string& scope);
  bool tracing() const { return issue_warp_.enabled(); }
  void trace_issue(const sc_core::sc_time& at, unsigned slot, std::uint32_t pc, std::uint32_t lanes, unsigned active);

 private:
  unsigned index_;
  std::unique_ptr<warp_scheduler> sched_;
  stat_counter& conflict_cycles_;
  std::uint64_t dispatch_free_ = 0;
  std::array<std::uint64_t, unit_classes> unit_free_{};
  unsigned banks_ = 0, bank_width_ = 1;
  std::vector<std::uint64_t> bank_free_;
  register_file_if* rf_ = nullptr;
  std::vector<unsigned> regs_;  // scratch
  trace_signal issue_warp_, issue_pc_, active_mask_, active_lanes_;
};

}  // namespace flynn::simt

#include "sub_partition.h"

#include <algorithm>
#include <limits>

namespace flynn::simt {

sub_partition::sub_partition(unsigned index, unsigned count, std::unique_ptr<warp_scheduler> sched,
                             stat_counter& conflict_cycles)
    : index_(index), sched_(std::move(sched)), conflict_cycles_(conflict_cycles) {
  sched_->serve(index, count);
}

void sub_partition::start_collector(unsigned banks, unsigned bank_width, register_file_if* rf) {
  banks_ = banks;
  bank_width_ = bank_width;
  bank_free_.assign(banks, 0);
  rf_ = rf;
}

// With operand banks: register r of the warp in the rank-th slot is in bank (r + rank) mod
// banks; each bank reads bank_width registers a cycle from the first cycle it is free at or
// after t, and the instruction goes on to its unit at the cycle its last source is read (t
// when no bank holds more of its sources than it reads in a cycle and every bank is free).
std::uint64_t sub_partition::collect(const reg_set& reads, unsigned rank, std::uint64_t t) {
  if (rf_) {
    regs_.clear();
    reads.for_each([&](unsigned r) {
      if (std::find(regs_.begin(), regs_.end(), r) == regs_.end()) regs_.push_back(r);
    });
    if (regs_.empty()) return t;
    const std::uint64_t ready = std::max(t, rf_->read_operands(regs_.data(), regs_.size(), t));
    conflict_cycles_ += ready - t;
    return ready;
  }
  if (!banks_) return t;
  std::array<unsigned, 32> per_bank{};
  std::array<std::uint64_t, num_registers / 64> seen{};  // (a register named twice is read once)
  reads.for_each([&](unsigned r) {
    std::uint64_t& word = seen[r / 64];
    if ((word >> (r % 64)) & 1u) return;
    word |= std::uint64_t(1) << (r % 64);
    ++per_bank[(r + rank) % banks_];
  });
  std::uint64_t ready = t;
  for (unsigned b = 0; b < banks_; ++b) {
    if (!per_bank[b]) continue;
    const std::uint64_t start = std::max(t, bank_free_[b]);
    const std::uint64_t cycles = (per_bank[b] + bank_width_ - 1) / bank_width_;
    bank_free_[b] = start + cycles;
    ready = std::max(ready, start + cycles - 1);
  }
  conflict_cycles_ += ready - t;
  return ready;
}

std::uint64_t sub_partition::write_back(const reg_set& written, std::uint64_t done) {
  if (!rf_ || done == std::numeric_limits<std::uint64_t>::max()) return done;  // (not known yet)
  regs_.clear();
  written.for_each([&](unsigned r) { regs_.push_back(r); });
  if (regs_.empty()) return done;
  const std::uint64_t landed = std::max(done, rf_->write_results(regs_.data(), regs_.size(), done));
  conflict_cycles_ += landed - done;
  return landed;
}

// Sub-partition 0's signals without a prefix, the others' as spK_.
void sub_partition::attach_trace(trace_sink& sink, const std::string& scope) {
  const std::string prefix = index_ ? "sp" + std::to_string(index_) + "_" : "";
  issue_warp_.attach(&sink, scope, prefix + "issue_warp", 8);
  issue_pc_.attach(&sink, scope, prefix + "issue_pc", 16);
  active_mask_.attach(&sink, scope, prefix + "active_mask", 32, trace_format::hex);
  active_lanes_.attach(&sink, scope, prefix + "active_lanes", 8);
}

void sub_partition::trace_issue(const sc_core::sc_time& at, unsigned slot, std::uint32_t pc, std::uint32_t lanes,
                                unsigned active) {
  issue_warp_.set(at, slot);
  issue_pc_.set(at, pc);
  active_mask_.set(at, lanes);
  active_lanes_.set(at, active);
}

}  // namespace flynn::simt

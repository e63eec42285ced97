#include "flynn/sync/tx_barrier.h"

#include <algorithm>
#include <stdexcept>

namespace flynn {

tx_barrier::tx_barrier(unsigned expected_arrivals)
    : expected_(expected_arrivals), pending_arrivals_(expected_arrivals) {
  if (expected_arrivals == 0) throw std::invalid_argument("tx_barrier: the expected arrival count must be at least 1");
}

std::string tx_barrier::arrive(unsigned count, std::uint64_t at) {
  if (count > pending_arrivals_)
    return std::to_string(count) + " arrivals with " + std::to_string(pending_arrivals_) + " pending in phase " +
           std::to_string(phase_);
  pending_arrivals_ -= count;
  latest_ = std::max(latest_, at);
  maybe_complete();
  notify(at);
  return {};
}

std::string tx_barrier::expect_tx(std::uint64_t bytes, std::uint64_t at) {
  pending_bytes_ += static_cast<std::int64_t>(bytes);
  latest_ = std::max(latest_, at);
  maybe_complete();
  notify(at);
  return {};
}

// The transaction count may go negative (bytes completing before they are expected), as in
// PTX; the phase cannot complete before its arrivals anyway.
std::string tx_barrier::complete_tx(std::uint64_t bytes, std::uint64_t at) {
  pending_bytes_ -= static_cast<std::int64_t>(bytes);
  latest_ = std::max(latest_, at);
  maybe_complete();
  notify(at);
  return {};
}

std::string tx_barrier::arrive_expect_tx(std::uint64_t bytes, std::uint64_t at) {
  if (pending_arrivals_ == 0) return "arrival with none pending in phase " + std::to_string(phase_);
  pending_bytes_ += static_cast<std::int64_t>(bytes);
  return arrive(1, at);
}

void tx_barrier::maybe_complete() {
  if (pending_arrivals_ != 0 || pending_bytes_ != 0) return;
  ++phase_;
  completed_at_ = latest_;
  latest_ = 0;
  pending_arrivals_ = expected_;
  if (on_phase_) on_phase_(phase_);
  if (!phase_watchers_.empty()) {
    auto watchers = std::move(phase_watchers_);
    phase_watchers_.clear();
    for (auto& f : watchers) f(completed_at_);
  }
}

}  // namespace flynn

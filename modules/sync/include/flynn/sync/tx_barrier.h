// Transaction barrier with mbarrier semantics: an expected arrival count and a transaction
// count (bytes). A phase completes when every expected arrival has arrived and every
// expected byte has completed; the phase parity then flips and the arrival count re-arms.
// Warps, the TMA loader and the GMMA state machine arrive, expect and complete on it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>
#include <string>

namespace flynn {

class tx_barrier {
 public:
  explicit tx_barrier(unsigned expected_arrivals);

  // Each returns "" or a description of the protocol error (the barrier is unchanged).
  // `at` is the cycle the operation takes effect (operations may be made ahead of time
  // under temporal decoupling); a phase completes at the latest cycle among its operations.
  std::string arrive(unsigned count = 1, std::uint64_t at = 0);           // pending arrivals -= count
  std::string expect_tx(std::uint64_t bytes, std::uint64_t at = 0);        // pending bytes += bytes
  std::string complete_tx(std::uint64_t bytes, std::uint64_t at = 0);      // pending bytes -= bytes
  std::string arrive_expect_tx(std::uint64_t bytes, std::uint64_t at = 0); // expect_tx then arrive

  // True once the phase of parity `parity` has completed (current parity differs).
  bool try_wait(unsigned parity) const { return (phase_ & 1u) != (parity & 1u); }
  // The same, at cycle `now`: the completing operation must have taken effect by then.
  bool try_wait(unsigned parity, std::uint64_t now) const {
    return try_wait(parity) && completed_at_ <= now;
  }
  // Cycle the last completed phase completed.
  std::uint64_t completed_at() const { return completed_at_; }
  unsigned phase() const { return phase_; }
  unsigned parity() const { return phase_ & 1u; }
  unsigned pending_arrivals() const { return pending_arrivals_; }
  std::int64_t pending_bytes() const { return pending_bytes_; }  // negative: completed ahead of expect_tx
  unsigned expected_arrivals() const { return expected_; }

  // Called after each phase completes, with the new phase number.
  void on_phase(std::function<void(unsigned)> f) { on_phase_ = std::move(f); }
  // Called after every operation, with the cycle it takes effect (tracing).
  void on_change(std::function<void(std::uint64_t)> f) { on_change_ = std::move(f); }
  // Called once, when the current phase completes, with the cycle it completes at.
  void when_phase_completes(std::function<void(std::uint64_t)> f) { phase_watchers_.push_back(std::move(f)); }

 private:
  void maybe_complete();
  void notify(std::uint64_t at) {
    if (on_change_) on_change_(at);
  }
  unsigned expected_, pending_arrivals_;
  std::int64_t pending_bytes_ = 0;
  unsigned phase_ = 0;
  std::uint64_t latest_ = 0, completed_at_ = 0;
  std::function<void(unsigned)> on_phase_;
  std::vector<std::function<void(std::uint64_t)>> phase_watchers_;
  std::function<void(std::uint64_t)> on_change_;
};

}  // namespace flynn

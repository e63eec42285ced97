// The link from a SIMT core's issue stage to a TMA-style loader: a warp's tma.load hands
// over the tensor descriptor, the box coordinates, the shared-memory destination and the
// transaction barrier whose bytes the copy completes. Not memory traffic, so an
// sc_port / sc_export pair rather than a TLM socket.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <systemc>

#include "flynn/common/debug_flag.h"
#include "flynn/sync/tx_barrier.h"
#include "flynn/tma/tensor_descriptor.h"

namespace flynn {

// The TMA family's debug flag (flynn run --debug TMA).
inline constexpr debug_flag debug_tma{"TMA", "bulk tensor copies: issue, rows, completion"};

class tma_if : public virtual sc_core::sc_interface {
 public:
  // Starts the copy no earlier than cycle `start`; "" or a fault. Each row is written to
  // shared memory at the cycle it lands (the barrier must outlive the copy).
  virtual std::string load(const tensor_descriptor& d, const std::array<std::int64_t, 5>& coords,
                           std::uint64_t smem_addr, tx_barrier& bar, std::uint64_t start) = 0;
  // Starts a copy of the box from shared memory to the tensor no earlier than `start`;
  // `id` names it for store_done. Its rows are read and written at their cycles.
  virtual std::string store(const tensor_descriptor& d, const std::array<std::int64_t, 5>& coords,
                            std::uint64_t smem_addr, std::uint64_t start, std::uint64_t& id) = 0;
  // The cycle store `id`'s last byte was written to global memory, or unknown_store (not
  // all of it written yet: in_progress() is true until it is, and progress_event() tells).
  static constexpr std::uint64_t unknown_store = ~std::uint64_t(0);
  virtual std::uint64_t store_done(std::uint64_t id) const = 0;
  // Cycle by which every copy started so far has landed (once none is in progress).
  virtual std::uint64_t busy_until() const = 0;
  // Copies not finished yet: loads whose rows have not all landed in shared memory (their
  // bytes complete on the barrier when they land), stores not all written. The event is
  // notified whenever rows land or stores finish.
  virtual bool in_progress() const = 0;
  virtual const sc_core::sc_event& progress_event() const = 0;
  // Whether rows still to land are bound for shared addresses in [lo, hi).
  virtual bool writing_to(std::uint64_t lo, std::uint64_t hi) const = 0;
};

}  // namespace flynn

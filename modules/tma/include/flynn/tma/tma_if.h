// The link from a SIMT core's issue stage to a TMA-style loader: a warp's tma.load hands
// over the tensor descriptor, the box coordinates, the shared-memory destination and the
// transaction barrier whose bytes the copy completes. Not memory traffic, so an
// sc_port / sc_export pair rather than a TLM socket.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <systemc>

#include "flynn/sync/tx_barrier.h"

namespace flynn {

struct tensor_descriptor;

class tma_if : public virtual sc_core::sc_interface {
 public:
  // Starts the copy no earlier than cycle `start`; "" or a fault.
  virtual std::string load(const tensor_descriptor& d, const std::array<std::int64_t, 5>& coords,
                           std::uint64_t smem_addr, tx_barrier& bar, std::uint64_t start) = 0;
  // Starts a copy of the box from shared memory to the tensor no earlier than `start`;
  // `done` is the cycle its last byte is written to global memory.
  virtual std::string store(const tensor_descriptor& d, const std::array<std::int64_t, 5>& coords,
                            std::uint64_t smem_addr, std::uint64_t start, std::uint64_t& done) = 0;
  // Cycle by which every copy started so far has landed.
  virtual std::uint64_t busy_until() const = 0;
};

}  // namespace flynn

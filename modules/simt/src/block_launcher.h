// The SIMT core's block launcher: which block of the grid goes into which block slot and
// warp slots, as earlier blocks retire (occupancy is resident_blocks, simt_core.h). It
// keeps the grid's bookkeeping; the core starts the warps it places.
#pragma once

#include <vector>

#include "core_state.h"

namespace flynn::simt {

class block_launcher {
 public:
  // A block placed: its block slot and the warp slots its warps go into, in warp order.
  struct placement {
    unsigned slot = 0, id = 0;
    std::vector<int> warp_slots;
  };

  explicit block_launcher(std::vector<block_slot>& slots) : slots_(slots) {}
  // A grid of `grid` blocks of `warps` warps each, over block slots laid out `shared_stride`
  // bytes apart in shared memory (`resident` of them).
  void start(unsigned grid, unsigned warps, unsigned resident, std::uint64_t shared_stride);
  // The next block of the grid into the first free block slot, when its warps find free
  // warp slots (the warps of each placed block must be live before the next call): null
  // when no block can start now.
  const placement* place(const warp_slots& warps);
  // The block in `slot` has finished (its warps exited, its shared accesses answered).
  void retire(unsigned slot);

  unsigned finished() const { return finished_; }
  unsigned resident() const { return resident_; }
  bool grid_done() const { return finished_ == grid_; }

 private:
  std::vector<block_slot>& slots_;
  placement placed_;  // place's answer
  unsigned grid_ = 0, warps_ = 0;
  unsigned next_ = 0;        // the next block of the grid
  unsigned finished_ = 0;    // blocks retired
  unsigned resident_ = 0;    // blocks resident now
  unsigned first_free_ = 0;  // no block slot below it is free
};

}  // namespace flynn::simt

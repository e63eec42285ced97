#include "block_launcher.h"

#include <algorithm>

namespace flynn::simt {

void block_launcher::start(unsigned grid, unsigned warps, unsigned resident, std::uint64_t shared_stride) {
  grid_ = grid;
  warps_ = warps;
  next_ = finished_ = resident_ = first_free_ = 0;
  slots_.assign(resident, block_slot{});
  for (unsigned b = 0; b < resident; ++b) slots_[b].shared_base = b * shared_stride;
}

const block_launcher::placement* block_launcher::place(const warp_slots& warps) {
  placement& out = placed_;
  for (; first_free_ < slots_.size() && next_ < grid_; ++first_free_) {
    block_slot& bs = slots_[first_free_];
    if (bs.busy) continue;
    out.warp_slots.clear();
    for (const auto& w : warps) {
      if (out.warp_slots.size() == warps_) break;
      if (!w->live) out.warp_slots.push_back(w->slot);
    }
    if (out.warp_slots.size() < warps_) return nullptr;
    // (Reset in place: the slot keeps its lists' storage and its shared-memory region.)
    bs.busy = true;
    bs.id = next_++;
    bs.warps_left = warps_;
    bs.arrived = 0;
    bs.exited_threads = 0;
    bs.warps.clear();
    bs.mbarriers.clear();
    bs.draining = false;
    ++resident_;
    out.slot = first_free_++;
    out.id = bs.id;
    return &out;
  }
  return nullptr;
}

void block_launcher::retire(unsigned slot) {
  block_slot& bs = slots_[slot];
  bs.busy = false;
  bs.draining = false;
  --resident_;
  first_free_ = std::min(first_free_, slot);
  ++finished_;
}

}  // namespace flynn::simt

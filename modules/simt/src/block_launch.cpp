// The SIMT core's blocks: how many fit at once (occupancy), loading a kernel and its
// launch, and launching blocks into free slots as earlier ones retire.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core_state.h"
#include "hazards.h"
#include "flynn/simt/reconvergence.h"
#include "flynn/simt/simt_core.h"
#include "core_engine.h"
#include "lane_alu.h"
#include "block_launcher.h"
#include "load_store_unit.h"
#include "sub_partition.h"

namespace flynn {

using simt::op;

unsigned resident_blocks(const simt_core_params& p, const simt_launch& l, unsigned registers_per_thread) {
  if (l.block == 0 || l.grid == 0) throw std::invalid_argument("grid and block must be at least 1");
  const unsigned warps = (l.block + p.warp_size - 1) / p.warp_size;
  const std::uint64_t regs = std::uint64_t(registers_per_thread) * l.block * 4;
  if (warps > p.max_warps || l.block > p.max_threads)
    throw std::invalid_argument("a block of " + std::to_string(l.block) + " threads (" + std::to_string(warps) +
                                " warps) does not fit the core's " + std::to_string(p.max_warps) + " warp slots / " +
                                std::to_string(p.max_threads) + " thread contexts");
  if (regs > p.register_file_bytes)
    throw std::invalid_argument("a block needs " + std::to_string(regs) + " B of registers, the core has " +
                                std::to_string(p.register_file_bytes));
  if (l.shared_bytes > p.shared_memory_bytes)
    throw std::invalid_argument("a block needs " + std::to_string(l.shared_bytes) + " B of shared memory, the core has " +
                                std::to_string(p.shared_memory_bytes));
  // Resident blocks: limited by warp slots, thread contexts, registers and shared memory.
  unsigned n = std::min(p.max_warps / warps, p.max_threads / l.block);
  n = static_cast<unsigned>(std::min<std::uint64_t>(n, p.register_file_bytes / regs));
  if (l.shared_bytes)  // (each block's at a multiple of shared_align: the last needs no padding)
    n = static_cast<unsigned>(std::min<std::uint64_t>(n, (p.shared_memory_bytes - l.shared_bytes) / l.shared_stride() + 1));
  return std::max(1u, n);
}

unsigned simt_core::engine::block_registers() const {
  int regs = 0;
  for (const auto& in : kernel_.code) regs = std::max(regs, simt::highest_register(in) + 1);
  return static_cast<unsigned>(std::clamp<int>(regs, 1, simt::num_registers));
}

void simt_core::engine::load_program(const core_program& p) {
  const auto* s = dynamic_cast<const simt_program*>(&p);
  if (!s) throw std::invalid_argument(std::string("a ") + p.kind() + " program (" + name() + " runs SIMT kernels)");
  load(s->kernel, s->launch);
}

void simt_core::engine::load(const simt::kernel& k, const simt_launch& l) {
  kernel_ = k;
  launch_ = l;
  registers_used_ = block_registers();
  registers_per_thread_.reset();
  registers_per_thread_ += registers_used_;
  const unsigned resident = resident_blocks(p_, l, registers_used_);
  launcher_->start(l.grid, (l.block + p_.warp_size - 1) / p_.warp_size, resident, l.shared_stride());
  lsu_->start(l.shared_bytes, resident);
  for (const auto& in : kernel_.code) {
    const std::string at = "line " + std::to_string(in.line) + " (" + in.text + ")";
    if ((in.code == op::tma_load || in.code == op::tma_store) && in.rd >= l.tensor_maps.size())
      throw std::invalid_argument(at + " uses tensor map " + std::to_string(in.rd) + "; the launch has " +
                                  std::to_string(l.tensor_maps.size()));
    if ((in.code == op::tma_load || in.code == op::tma_store) && tma.size() == 0)
      throw std::invalid_argument(at + " needs a TMA loader: bind " + std::string(name()) + ".tma");
    if ((in.code == op::wgmma || in.code == op::mma_sync) && gmma.size() == 0)
      throw std::invalid_argument(at + " needs a GMMA unit (its register files and tensor cores): bind " +
                                  std::string(name()) + ".gmma");
    if ((in.code == op::wgmma || in.code == op::mma_sync) && p_.warp_size != 32)
      throw std::invalid_argument(at + ": " + simt::mnemonic(in.code) + " needs warps of 32 threads");
  }
  ipdom_ = simt::immediate_post_dominators(kernel_);
  decoded_.clear();
  for (const auto& in : kernel_.code) {
    const bool tma_op = in.code == op::tma_load || in.code == op::tma_store;
    const simt::pipeline pipe = simt::pipeline_of(in.code);
    decoded_.push_back({simt::reads(in, tma_op ? launch_.tensor_maps[in.rd].rank : simt::max_tma_rank), simt::writes(in),
                        pipe == simt::pipeline::multiplier ? p_.lat_mul : pipe == simt::pipeline::sfu ? p_.lat_sfu : p_.lat_alu,
                        in.code == op::mbar_wait || in.code == op::wgmma_wait || in.code == op::tma_wait,
                        units_->unit_of[simt::is_memory(in.code) ? simt::unit_lsu : pipe == simt::pipeline::sfu ? simt::unit_sfu : simt::unit_lanes]});
  }
  async_kernel_ = std::any_of(kernel_.code.begin(), kernel_.code.end(), [](const simt::instr& in) { return simt::is_async(in.code); });
  loaded_ = true;
}

// Starts the blocks the launcher places, each with zeroed shared memory and its warps.
void simt_core::engine::launch_blocks(std::uint64_t t) {
  while (const simt::block_launcher::placement* placed = launcher_->place(warps_)) {
    const simt::block_launcher::placement& pl = *placed;
    block_slot& bs = blocks_[pl.slot];
    if (launcher_->resident() > resident_peak_.value()) ++resident_peak_;
    ++blocks_launched_;
    const auto warps = static_cast<unsigned>(pl.warp_slots.size());
    if (hazards_) hazards_->launch(pl.slot, bs.id, warps, launch_.shared_bytes);
    if (log_enabled(sc_core::SC_HIGH))
      log(sc_core::SC_HIGH, "block " + std::to_string(bs.id) + " launched in slot " + std::to_string(pl.slot) +
                                " at cycle " + std::to_string(t));
    if (debugging(debug_sched))
      debug(debug_sched, t, "block " + std::to_string(bs.id) + " launched in block slot " + std::to_string(pl.slot));
    if (launch_.shared_bytes) {  // a block starts with zeroed shared memory (no timing)
      std::vector<unsigned char> zero(launch_.shared_bytes, 0);
      debug_transport(shared, tlm::TLM_WRITE_COMMAND, bs.shared_base, zero.data(), static_cast<unsigned>(zero.size()));
    }
    for (unsigned k = 0; k < warps; ++k) {
      warp& w = *warps_[static_cast<std::size_t>(pl.warp_slots[k])];
      const unsigned threads = std::min(p_.warp_size.get(), launch_.block - k * p_.warp_size);
      w.start(pl.slot, k, threads, registers_used_, static_cast<std::uint32_t>(kernel_.code.size()), t);
      w.generation = ++generations_;
      w.age = age_++;
      touch(w);
      bs.warps.push_back(w.slot);
      if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(t), 1);
    }
  }
}

void simt_core::engine::retire_block(unsigned slot, std::uint64_t t) {
  launcher_->retire(slot);
  launch_blocks(t);
}

}  // namespace flynn

// The SIMT core's blocks: how many fit at once (occupancy), loading a kernel and its
// launch, and launching blocks into free slots as earlier ones retire.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core_state.h"
#include "hazards.h"
#include "flynn/simt/reconvergence.h"
#include "flynn/simt/simt_core.h"
#include "lane_alu.h"

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

unsigned simt_core::block_registers() const {
  int regs = 0;
  for (const auto& in : kernel_.code) regs = std::max(regs, simt::highest_register(in) + 1);
  return static_cast<unsigned>(std::clamp<int>(regs, 1, simt::num_registers));
}

void simt_core::load_program(const core_program& p) {
  const auto* s = dynamic_cast<const simt_program*>(&p);
  if (!s) throw std::invalid_argument(std::string("a ") + p.kind() + " program (" + name() + " runs SIMT kernels)");
  load(s->kernel, s->launch);
}

void simt_core::load(const simt::kernel& k, const simt_launch& l) {
  kernel_ = k;
  launch_ = l;
  registers_used_ = block_registers();
  registers_per_thread_.reset();
  for (auto& sub : sp_) sub.bank_free.assign(p_.operand_banks, 0);
  registers_per_thread_ += registers_used_;
  resident_blocks_max_ = resident_blocks(p_, l, registers_used_);
  blocks_.assign(resident_blocks_max_, block_slot{});
  first_free_block_ = 0;
  for (unsigned b = 0; b < resident_blocks_max_; ++b) blocks_[b].shared_base = b * l.shared_stride();
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
                        unit_of_[simt::is_memory(in.code) ? unit_lsu : pipe == simt::pipeline::sfu ? unit_sfu : unit_lanes]});
  }
  async_kernel_ = std::any_of(kernel_.code.begin(), kernel_.code.end(), [](const simt::instr& in) { return simt::is_async(in.code); });
  loaded_ = true;
}

void simt_core::launch_blocks(std::uint64_t t) {
  const unsigned warps = (launch_.block + p_.warp_size - 1) / p_.warp_size;
  unsigned b = first_free_block_;  // (every block slot below it is busy)
  for (; b < blocks_.size() && next_block_ < launch_.grid; ++b) {
    block_slot& bs = blocks_[b];
    if (bs.busy) continue;
    // Free warp slots for the block's warps.
    std::vector<int>& free_slots = free_slots_;
    free_slots.clear();
    for (auto& w : warps_)
      if (!w->live && free_slots.size() < warps) free_slots.push_back(w->slot);
    if (free_slots.size() < warps) break;
    // (Reset in place: the slot keeps its lists' storage and its shared-memory region.)
    bs.busy = true;
    if (++resident_now_ > resident_peak_.value()) ++resident_peak_;
    bs.id = next_block_++;
    bs.warps_left = warps;
    bs.arrived = 0;
    bs.exited_threads = 0;
    bs.warps.clear();
    bs.mbarriers.clear();
    bs.memory_in_flight = 0;
    bs.draining = false;
    ++blocks_launched_;
    if (hazards_) hazards_->launch(b, bs.id, warps, launch_.shared_bytes);
    if (log_enabled(sc_core::SC_HIGH))
      log(sc_core::SC_HIGH, "block " + std::to_string(bs.id) + " launched in slot " + std::to_string(b) + " at cycle " +
                                std::to_string(t));
    if (debugging(debug_sched))
      debug(debug_sched, t, "block " + std::to_string(bs.id) + " launched in block slot " + std::to_string(b));
    if (launch_.shared_bytes) {  // a block starts with zeroed shared memory (no timing)
      std::vector<unsigned char> zero(launch_.shared_bytes, 0);
      debug_transport(shared, tlm::TLM_WRITE_COMMAND, bs.shared_base, zero.data(), static_cast<unsigned>(zero.size()));
    }
    for (unsigned k = 0; k < warps; ++k) {
      warp& w = *warps_[static_cast<std::size_t>(free_slots[k])];
      // The slot takes the new warp: its state starts afresh (the slot keeps its place in the
      // issue loop's list, `dirty`, and its storage).
      w.live = true;
      w.block = b;
      w.index = k;
      w.threads = std::min(p_.warp_size, launch_.block - k * p_.warp_size);
      w.stack.clear();
      w.ready_at = 0;
      w.why = warp::wait::none;
      w.at_barrier = false;
      w.inflight.clear();
      w.wgmma_open.clear();
      w.tma_last_store = 0;
      w.issue_end = 0;
      w.generation = ++generations_;
      w.wgmma_groups.clear();
      // A warp starts with zeroed registers, predicates and scoreboard: the registers the
      // kernel uses (it touches no other).
      w.r.resize(std::size_t(registers_used_) * warp::lane_slots);
      std::memset(w.r.data(), 0, w.r.size() * sizeof(w.r[0]));
      w.p.fill(0);
      std::fill_n(w.reg_ready.begin(), registers_used_, 0u);
      w.pred_ready.fill(0);
      w.count_planes.fill(0);
      w.planes_used = 0;
      const std::uint32_t mask = first_lanes(w.threads);
      w.exited = ~mask;
      w.stack.push_back({0, static_cast<std::uint32_t>(kernel_.code.size()), mask});
      w.ready_at = t;
      w.age = age_++;
      touch(w);
      bs.warps.push_back(w.slot);
      if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(t), 1);
    }
  }
  first_free_block_ = b;
}

void simt_core::retire_block(unsigned slot, std::uint64_t t) {
  block_slot& bs = blocks_[slot];
  bs.busy = false;
  --resident_now_;
  bs.draining = false;
  first_free_block_ = std::min(first_free_block_, slot);
  ++blocks_done_;
  launch_blocks(t);
}

}  // namespace flynn

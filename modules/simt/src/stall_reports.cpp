#include "stall_reports.h"

#include <algorithm>

#include "async_ops.h"
#include "block_launcher.h"
#include "load_store_unit.h"
#include "flynn/simt/simt_core.h"
#include "core_engine.h"

namespace flynn::simt {

namespace {
std::string at_pc(const kernel& k, std::uint32_t pc) {
  return "PC " + std::to_string(pc) + " (line " + std::to_string(k.code[pc].line) + ": " + k.code[pc].text + ")";
}
}  // namespace

std::string barrier_deadlock(const kernel& k, const std::vector<block_slot>& blocks, const warp_slots& warps) {
  std::string waiting, gone, where;
  for (const auto& bs : blocks) {
    if (!bs.busy) continue;
    for (int s : bs.warps) {
      const warp& w = *warps[static_cast<std::size_t>(s)];
      if (w.live && w.at_barrier) {
        waiting += (waiting.empty() ? "" : ", ") + std::string("block ") + std::to_string(bs.id) + " warp " +
                   std::to_string(w.index);
        if (where.empty() && w.barrier_pc < k.code.size()) where = at_pc(k, w.barrier_pc);
      }
    }
    unsigned diverged = 0;  // threads of waiting warps on another path of a branch
    for (int s : bs.warps) {
      const warp& w = *warps[static_cast<std::size_t>(s)];
      if (w.live && w.at_barrier) diverged += static_cast<unsigned>(__builtin_popcount(first_lanes(w.threads) & ~w.exited & ~w.barrier_mask));
    }
    std::string why;
    if (bs.exited_threads) why = std::to_string(bs.exited_threads) + " threads exited";
    if (diverged)
      why += (why.empty() ? "" : " and ") + std::to_string(diverged) +
             " threads took another path of a branch (their warp waits at the barrier without them)";
    if (!why.empty()) gone += (gone.empty() ? "" : ", ") + std::string("block ") + std::to_string(bs.id) + ": " + why;
  }
  return "barrier deadlock: " + waiting + " wait at " + (where.empty() ? "bar.sync" : where) + " but " + gone +
         " and can never arrive";
}

std::string blocked_report(const kernel& k, const std::vector<block_slot>& blocks, const warp_slots& warps,
                           unsigned warp_size, const gmma_if* gmma) {
  std::string s;
  for (const auto& wp : warps) {
    const warp& w = *wp;
    if (!w.live || w.at_barrier || w.stack.empty()) continue;
    const std::uint32_t pc = w.stack.back().pc;
    const instr& in = k.code[pc];
    const std::string why = async_wait_blocked(w, blocks[w.block], in, w.guarded(w.active(), in, warp_size));
    if (why.empty()) continue;
    s += (s.empty() ? "" : "; ") + std::string("block ") + std::to_string(blocks[w.block].id) + " warp " +
         std::to_string(w.index) + " at " + at_pc(k, pc) + " " + why;
  }
  if (s.empty()) return barrier_deadlock(k, blocks, warps);
  std::string gm = gmma ? gmma->waiting() : "";
  if (!gm.empty()) gm = "; wgmma start barrier: " + gm;
  return "deadlock: " + s + gm;
}

std::string resident_warps(const kernel& k, const std::vector<block_slot>& blocks, const warp_slots& warps) {
  std::string s;
  unsigned listed = 0, more = 0;
  for (const auto& bs : blocks) {
    if (!bs.busy) continue;
    for (int slot : bs.warps) {
      const warp& w = *warps[static_cast<std::size_t>(slot)];
      if (!w.live || w.stack.empty()) continue;
      if (listed == 4) {
        ++more;
        continue;
      }
      const std::uint32_t pc = w.stack.back().pc;
      s += std::string(listed++ ? ", " : "; resident: ") + "block " + std::to_string(bs.id) + " warp " +
           std::to_string(w.index) + " at PC " + std::to_string(pc);
      if (pc < k.code.size())
        s += " (line " + std::to_string(k.code[pc].line) + ": " + k.code[pc].text + ")";
      if (w.at_barrier) s += " at a barrier";
    }
  }
  if (more) s += " and " + std::to_string(more) + " more warps";
  return s;
}

}  // namespace flynn::simt

namespace flynn {

// The core's own reports: the first fault of a run (with the warp, thread and instruction
// it names), and the work left when the run stops with some (pending_work).
void simt_core::engine::set_fault(const warp& w, unsigned lane, const std::string& what) {
  set_fault(w.block, w.index, lane, w.stack.empty() ? 0 : w.stack.back().pc, what);
}

void simt_core::engine::set_fault(unsigned block, unsigned warp_index, unsigned lane, std::uint32_t pc, const std::string& what) {
  if (!fault_.empty()) return;
  const auto& in = kernel_.code[std::min<std::size_t>(pc, kernel_.code.size() - 1)];
  fault_ = "block " + std::to_string(blocks_[block].id) + " warp " + std::to_string(warp_index) + " thread " +
           std::to_string(warp_index * p_.warp_size + lane) + " PC " + std::to_string(pc) + " (line " +
           std::to_string(in.line) + ": " + in.text + "): " + what;
}

std::string simt_core::engine::pending_work() const {
  if (done_ || !loaded_) return {};
  std::string s = std::to_string(launcher_->finished()) + " of " + std::to_string(launch_.grid) + " blocks finished";
  // Where the resident warps are (a cycle limit stops a runaway kernel anywhere), and a
  // memory access never answered.
  s += simt::resident_warps(kernel_, blocks_, warps_);
  s += lsu_->report();
  if (executing_) {  // the thread stopped inside an instruction: a transport that never returned
    const simt::instr& in = kernel_.code[executing_pc_];
    s += "; block " + std::to_string(blocks_[executing_->block].id) + " warp " + std::to_string(executing_->index) +
         " at PC " + std::to_string(executing_pc_) + " (line " + std::to_string(in.line) + ": " + in.text +
         ") issued at cycle " + std::to_string(executing_at_) + " has not completed";
  }
  return s;
}

}  // namespace flynn

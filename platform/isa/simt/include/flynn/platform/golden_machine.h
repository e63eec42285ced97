// The machine both golden interpreters (the SIMT ISA's and PTX's) build on: a launch run
// block by block and thread by thread, with the block's shared memory, shuffle exchanges,
// mbarriers and warpgroup MMAs under way. Each interpreter adds its instructions.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "flynn/platform/simt_interp.h"

namespace flynn::simt {

// Why a golden interpreter's thread stops: the fault, without where it happened.
struct golden_stop {
  std::string reason;
};

// A thread's wgmma as it issued it, waiting for the rest of its warpgroup.
struct golden_wgmma_arrival {
  unsigned thread;
  std::uint32_t pc;                        // of its wgmma
  std::uint64_t a_desc, b_desc;            // as read at issue
  bool accumulate;                         // scale-d
  std::array<std::uint32_t, 4> a_frag{};   // .rs: the A fragment as read at issue
};

// What runs a launch for an interpreter whose threads are Thread (a golden_thread with its
// registers). Faults inside a thread are thrown as golden_stop.
template <class Thread>
class golden_machine {
 protected:
  golden_machine(const launch& l, std::vector<unsigned char>& global, const interp_config& c)
      : l_(l), global_(global), c_(c) {}

  interp_result failed(const std::string& why) {
    res_.ok = false;
    res_.fault = why;
    return res_;
  }

  // Runs block b with zero-initialised shared memory and fresh threads (prepare(thread) gives
  // each its registers), as run_golden_block does; a fault or deadlock fails the run.
  template <class Prepare, class RunThread, class Where, class WaitsInWarp>
  void run_block(unsigned b, Prepare prepare, RunThread run_thread, Where where, WaitsInWarp waits_in_warp) {
    std::vector<unsigned char> shared(static_cast<std::size_t>(l_.shared_bytes), 0);
    shared_ = &shared;
    block_ = b;
    std::vector<Thread> threads(l_.block);
    threads_ = &threads;
    bars_.clear();
    mma_.clear();
    shuffles_.clear();
    for (auto& th : threads) prepare(th);
    run_golden_block(b, threads, c_.warp_size, res_.thread_digest, res_.thread_instructions, run_thread, where,
                     waits_in_warp, [this](const std::string& why) { failed(why); });
  }

  // Runs thread t until it waits at a barrier, blocks or exits: step(t, th) executes the
  // instruction at th.pc (false: it blocked, nothing done). False on a fault, which fails the
  // run as "block B thread T LOC: why" ("why (block B thread T LOC)" for a runaway kernel),
  // LOC = locate(the PC of the instruction executing).
  template <class Step, class Locate>
  bool run_thread(unsigned t, Thread& th, std::size_t code_size, Step step, Locate locate) {
    try {
      while (th.st == thread_state::running) {
        if (th.pc >= code_size) {
          th.st = thread_state::exited;
          break;
        }
        executing_ = th.pc;
        if (res_.thread_instructions >= c_.max_instructions)
          throw golden_stop{"runaway kernel: more than " + std::to_string(c_.max_instructions) + " instructions"};
        if (!step(t, th)) break;  // blocked: not executed yet
        ++res_.thread_instructions;
        ++th.count;
      }
    } catch (const golden_stop& s) {
      const std::string loc = "block " + std::to_string(block_) + " thread " + std::to_string(t) + " " + locate(executing_);
      if (s.reason.rfind("runaway", 0) == 0) failed(s.reason + " (" + loc + ")");
      else failed(loc + ": " + s.reason);
      return false;
    }
    return true;
  }

  // The lanes of warp w whose threads have not exited.
  std::uint32_t present_lanes(unsigned w) const {
    return shuffle_exchange::present(w, c_.warp_size, threads_->size(),
                                     [this](std::size_t t) { return (*threads_)[t].st == thread_state::exited; });
  }

  // Thread t's part in its warp's shfl.sync or elect.sync, arrival(w, lane) what it brings:
  // true with its result once the exchange is done, false (the thread blocked) while it waits.
  template <class Arrival>
  bool exchange(unsigned t, Thread& th, Arrival arrival, shuffle_exchange::result& res) {
    const unsigned w = t / c_.warp_size, lane = t % c_.warp_size;
    if (shuffles_.take(w, lane, res)) return true;
    const std::string err = shuffles_.arrive(w, lane, th.pc, arrival(w, lane), present_lanes(w));
    if (!err.empty()) throw golden_stop{err};
    if (shuffles_.take(w, lane, res)) return true;
    th.st = thread_state::blocked;
    return false;
  }

  // elect.sync as a shuffle of lane indices from the lowest lane of membermask `mask` present.
  shuffle_exchange::arrival elect_arrival(unsigned w, unsigned lane, std::uint32_t mask) const {
    shuffle_exchange::arrival av;
    av.name = "elect.sync";
    av.mode = shuffle_mode::idx;
    av.value = lane;
    av.mask = mask;
    const std::uint32_t named = av.mask & present_lanes(w);
    av.b = named ? static_cast<std::uint32_t>(__builtin_ctz(named)) : lane;
    av.c = 31;
    return av;
  }

  // The initialised mbarrier at shared address addr.
  golden_mbarrier& bar_at(std::uint32_t addr) {
    std::string fault;
    golden_mbarrier* m = bars_.find(addr, fault);
    if (!m) throw golden_stop{fault};
    return *m;
  }

  // mbarrier.arrive (with expect_tx `bytes` more transaction bytes) at shared address addr.
  void arrive(std::uint32_t addr, std::int64_t bytes) {
    golden_mbarrier& m = bar_at(addr);
    m.bytes += bytes;
    --m.pending;
    m.maybe_flip();
  }

  // Thread t issues wgmma x: once its whole warpgroup has issued that wgmma,
  // compute(group, ordinal) runs it.
  template <class Compute>
  void issue_wgmma(unsigned t, Thread& th, const golden_wgmma_arrival& x, Compute compute) {
    const unsigned group = t / 128, ordinal = th.wgmma_issued++;
    auto& g = mma_[group];
    if (g.size() <= ordinal) g.resize(ordinal + 1);
    g[ordinal].push_back(x);  // operands are read at issue
    th.wgmma_open.push_back(ordinal);
    if (g[ordinal].size() == 128) compute(group, ordinal);
  }

  // wgmma.wait_group keep for thread t: false while it waits.
  bool wait_wgmma(unsigned t, Thread& th, std::size_t keep) {
    const auto& g = mma_[t / 128];
    return th.wait_wgmma(keep, [&g](unsigned ord) { return g[ord].size() == 128; });
  }

  // The warpgroup's arrivals at its wgmma `ordinal`, in thread order, with each thread's part
  // as read at issue (D empty); same(pc, first pc) says two threads issued the same wgmma.
  template <class Same>
  std::vector<const golden_wgmma_arrival*> wgmma_arrivals(unsigned group, unsigned ordinal,
                                                          std::vector<wgmma_part>& parts, Same same) {
    const unsigned t0 = group * 128;
    std::vector<const golden_wgmma_arrival*> at(128);
    for (const golden_wgmma_arrival& x : mma_[group][ordinal]) at[x.thread - t0] = &x;
    for (const golden_wgmma_arrival* x : at)
      if (!same(x->pc, at[0]->pc) || x->accumulate != at[0]->accumulate)
        throw golden_stop{"the warps of the warpgroup issued different wgmma instructions"};
    parts.assign(128, wgmma_part{});
    for (unsigned i = 0; i < 128; ++i) {
      parts[i].a_desc = at[i]->a_desc;
      parts[i].b_desc = at[i]->b_desc;
      parts[i].a_frag = at[i]->a_frag;
    }
    return at;
  }

  // The memory of space sp (shared, else global).
  template <class Space>
  std::vector<unsigned char>& memory(Space sp) {
    return sp == Space::shared ? *shared_ : global_;
  }

  const launch& l_;
  std::vector<unsigned char>& global_;
  const interp_config& c_;
  interp_result res_;
  std::vector<unsigned char>* shared_ = nullptr;
  unsigned block_ = 0;
  std::vector<Thread>* threads_ = nullptr;
  shuffle_exchange shuffles_;
  golden_mbarriers bars_{l_.shared_bytes};
  std::map<unsigned, std::vector<std::vector<golden_wgmma_arrival>>> mma_;  // warpgroup -> ordinal -> threads
  std::uint32_t executing_ = 0;  // the instruction being executed (its faults name it)
};

}  // namespace flynn::simt

// The golden functional interpreter of the SIMT kernel ISA: architectural semantics only
// (no warps in lockstep, no timing), written independently of the timed SIMT core in
// modules/simt, which is checked against it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "flynn/simt/isa.h"
#include "flynn/simt/launch.h"
#include "flynn/tensor/numeric.h"

namespace flynn::simt {

struct interp_config {
  std::uint64_t max_instructions = 200000000;  // runaway limit, all threads together
  unsigned warp_size = 32;                     // for %laneid, %warpid and fault reports
};

struct interp_result {
  bool ok = true;
  std::string fault;  // when !ok; see docs/isa/simt.md for the formats
  std::uint64_t thread_instructions = 0;  // instructions reached by all threads (guarded-off
                                          // included, a faulting one not)
  std::uint64_t thread_digest = 0;        // each thread's count, as thread_count_term sums
};

// Runs every thread of every block to completion. Blocks run one after the other, each with
// its own zero-initialised shared memory; inside a block each thread runs until bar.sync,
// exit or an asynchronous wait (mbarrier.wait on a phase not yet complete, wgmma.wait_group
// on MMAs whose warpgroup has not all issued), and the threads take turns until all exit;
// bar.sync releases when every thread of the block waits at it. tma.load copies at once;
// a wgmma computes when the last thread of its warpgroup issues it. `global` is
// the flat little-endian global memory. Every access is naturally aligned and inside its
// space, else the run stops with a fault; a faulting instruction has no effect.
interp_result interpret(const kernel& k, const launch& l, std::vector<unsigned char>& global,
                        const interp_config& c);

// The golden interpreters' shfl.sync: the threads of a warp arrive one by one, each with its
// own value and operands, and wait; once every thread the arrived threads' membermasks name
// has arrived (threads that exited excepted), each takes the value of the lane its mode and
// operands name (PTX shfl.sync semantics) and goes on.
class shuffle_exchange {
 public:
  struct arrival {
    shuffle_mode mode = shuffle_mode::down;
    std::uint32_t value = 0, b = 0, c = 0, mask = 0;
    const char* name = "shfl.sync";  // the instruction, in faults (elect.sync exchanges lane indices)
  };
  struct result {
    std::uint32_t value = 0;
    bool in_range = false;
  };
  // Lane `lane` of warp `warp` arrives at instruction pc; present: the warp's lanes that have
  // not exited. Returns a fault ("" when none): a lane not in its own membermask, lanes of one
  // warp at different shfl.sync instructions, or a lane reading one that does not take part.
  std::string arrive(unsigned warp, unsigned lane, std::uint32_t pc, const arrival& a, std::uint32_t present);
  // The exchange again, after threads of the warp exited (fewer lanes to wait for).
  std::string retry(unsigned warp, std::uint32_t present);
  // The lane's result once its warp's exchange is done (true: taken, and forgotten).
  bool take(unsigned warp, unsigned lane, result& r);
  void clear() { warps_.clear(); }
  // The lanes of warp w whose threads have not exited (exited(t): thread t of the block has).
  static std::uint32_t present(unsigned w, unsigned warp_size, std::size_t threads,
                               const std::function<bool(std::size_t)>& exited);

 private:
  struct pending {
    std::uint32_t pc = 0;
    std::map<unsigned, arrival> arrived;  // by lane
    std::map<unsigned, result> done;      // by lane, once exchanged
  };
  std::string complete(pending& p, std::uint32_t present);
  std::map<unsigned, pending> warps_;
};

// The golden interpreters' report of a block whose threads wait at barriers (waiting: the
// barrier's instruction -> the warps waiting there) while others have exited: "block B:
// barrier deadlock: threads of warp 0 wait at WHERE but threads of warps 1, 2 have exited".
std::string barrier_deadlock(unsigned block, const std::map<std::uint32_t, std::set<unsigned>>& waiting,
                             const std::set<unsigned>& exited, const std::function<std::string(std::uint32_t)>& where);

// ---- The golden interpreters' machine driver --------------------------------------------

// A thread as the driver sees it (each interpreter's thread adds its registers).
enum class thread_state : std::uint8_t { running, waiting, blocked, exited };
struct golden_thread {
  unsigned wgmma_issued = 0;                       // wgmma instructions issued so far
  std::vector<unsigned> wgmma_open;                // ordinals issued, not yet committed
  std::deque<std::vector<unsigned>> wgmma_groups;  // committed, oldest first
  std::uint32_t pc = 0;
  std::uint32_t bar_pc = 0;  // the bar.sync it waits at
  thread_state st = thread_state::running;
  std::uint64_t count = 0;  // instructions it reached

  // wgmma.commit_group: the wgmmas issued since the last one become a group.
  void commit_wgmma() {
    wgmma_groups.push_back(std::move(wgmma_open));
    wgmma_open.clear();
  }
  // wgmma.wait_group keep: true, the older groups done with, once every wgmma of all but the
  // newest `keep` groups has been issued by its whole warpgroup (all_issued(ordinal)); false:
  // the thread waits.
  template <class AllIssued>
  bool wait_wgmma(std::size_t keep, AllIssued all_issued) {
    for (std::size_t q = 0; q + keep < wgmma_groups.size(); ++q)
      for (unsigned ord : wgmma_groups[q])
        if (!all_issued(ord)) return false;
    while (wgmma_groups.size() > keep) wgmma_groups.pop_front();
    return true;
  }
};

// Runs block b's threads to the end, as both golden interpreters do: every running (or
// blocked) thread by run_thread(t, thread) until it waits or exits (false: a fault, the run
// is over), round after round while any makes progress; then the barrier its live threads all
// wait at releases them. A block whose threads wait on what never comes is a deadlock,
// reported through fail. waits_in_warp(pc): a thread blocked there waits for threads of its
// warp (else for a phase or wgmma); where(pc) names an instruction. Adds each thread's count
// to `digest` (thread_count_term) when the block ends; false when it did not end.
template <class Thread, class RunThread, class Where, class WaitsInWarp, class Fail>
bool run_golden_block(unsigned b, std::vector<Thread>& threads, unsigned warp_size, std::uint64_t& digest,
                      const std::uint64_t& instructions, RunThread run_thread, Where where, WaitsInWarp waits_in_warp,
                      Fail fail) {
  for (;;) {
    bool progress = false;
    for (unsigned t = 0; t < threads.size(); ++t) {
      Thread& th = threads[t];
      if (th.st != thread_state::running && th.st != thread_state::blocked) continue;
      th.st = thread_state::running;
      const std::uint64_t before = instructions;
      if (!run_thread(t, th)) return false;
      progress = progress || instructions != before;
    }
    if (progress) continue;
    std::map<std::uint32_t, std::set<unsigned>> waiting;  // bar.sync PC -> warps
    std::set<unsigned> exited;
    std::string blocked;
    for (unsigned t = 0; t < threads.size(); ++t) {
      const Thread& th = threads[t];
      if (th.st == thread_state::waiting) waiting[th.bar_pc].insert(t / warp_size);
      else if (th.st == thread_state::exited) exited.insert(t / warp_size);
      else if (blocked.empty())
        blocked = "thread " + std::to_string(t) + " waits at " + where(th.pc) +
                  (waits_in_warp(th.pc) ? " for threads of its warp that never arrive"
                                        : " for a phase or wgmma that never completes");
    }
    if (waiting.empty() && blocked.empty()) {  // every thread exited: the block is done
      for (unsigned t = 0; t < threads.size(); ++t) digest += thread_count_term(b, t, threads[t].count);
      return true;
    }
    if (!blocked.empty()) {
      fail("block " + std::to_string(b) + ": deadlock: " + blocked);
      return false;
    }
    if (!exited.empty()) {
      fail(barrier_deadlock(b, waiting, exited, where));
      return false;
    }
    for (auto& th : threads) th.st = thread_state::running;  // the barrier releases
  }
}

// ---- The golden interpreters' asynchronous operations (mbarrier, TMA, wgmma) ------------

// An mbarrier: the arrivals still expected in the current phase and the transaction bytes
// expected but not yet completed; the phase completes (and the next begins) when both are 0.
struct golden_mbarrier {
  std::uint32_t count = 1, pending = 1;
  std::int64_t bytes = 0;
  unsigned phase = 0;
  golden_mbarrier() = default;
  explicit golden_mbarrier(std::uint32_t n) : count(n), pending(n) {}
  void maybe_flip() {
    if (pending == 0 && bytes == 0) {
      ++phase;
      pending = count;
    }
  }
};

// A block's mbarriers by shared address, with the checks of both golden interpreters: an
// 8-byte aligned address inside the block's shared memory, a count of 1 .. 2^20, and an
// initialised barrier at the address an operation names. Each returns "" or the fault.
class golden_mbarriers {
 public:
  explicit golden_mbarriers(const std::uint64_t& shared_bytes) : shared_bytes_(shared_bytes) {}
  void clear() { bars_.clear(); }
  std::string init(std::uint32_t addr, std::uint64_t count);
  golden_mbarrier* find(std::uint32_t addr, std::string& fault);

 private:
  std::string check_address(std::uint32_t addr) const;
  const std::uint64_t& shared_bytes_;
  std::map<std::uint32_t, golden_mbarrier> bars_;
};

// Why a tma.load (store: tma.store) of tensor map d to (from) shared address dst cannot
// run: an invalid descriptor, a misaligned address or a box outside shared memory ("" when
// it can).
std::string golden_tma_check(const tensor_descriptor& d, std::uint32_t dst, std::uint64_t shared_bytes, bool store);
// The copy's box at `coords`, element by element, rows at their swizzled offsets in shared
// memory. Loads: out-of-bounds elements land as zero. Stores: elements outside the tensor are
// not written. "" or the fault.
std::string golden_tma_copy(const tensor_descriptor& d, const std::array<std::int64_t, 5>& coords, std::uint32_t dst,
                            std::vector<unsigned char>& shared, std::vector<unsigned char>& global, bool store);

// One thread's part of a wgmma.m64nNk16, as read at issue.
struct wgmma_part {
  std::uint64_t a_desc = 0, b_desc = 0;   // matrix descriptors (a_desc: A in shared memory)
  std::array<std::uint32_t, 4> a_frag{};  // .rs: its A fragment
  std::vector<std::uint32_t> d;           // its N/2 accumulators: C in (when accumulating), D out
};
// D = A x B (+ C) for a warpgroup's 128 threads (parts in thread order) with the reference
// arithmetic (D = C, then each k in ascending order adds the exact fp32 product): A from each
// warp's first thread's descriptor (or every thread's fragment), B from thread 0's. "" or the
// fault.
std::string golden_wgmma(unsigned n, element_type ty, element_type b_ty, bool a_regs, bool accumulate,
                         const std::vector<unsigned char>& shared,
                         std::vector<wgmma_part>& parts);

// One warp's mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32 (TYPE f16 or bf16): lane l's
// registers as read at issue, ops[l] = A (4 registers), B (2), C (4); d[l] takes its 4 D
// registers. The reference arithmetic of golden_wgmma (D = C, then each k ascending adds the
// exact fp32 product). Fragments (PTX ISA, g = l / 4, t = l % 4): A register i holds row
// g + 8 (i % 2), columns 2t + 8 (i / 2) and + 1; B register i rows (k) 2t + 8i and + 1 of
// column g; C and D register i row g + 8 (i / 2), column 2t + (i % 2).
void golden_mma_sync(element_type ty, const std::array<std::array<std::uint32_t, 10>, 32>& ops,
                     std::array<std::array<std::uint32_t, 4>, 32>& d);

}  // namespace flynn::simt

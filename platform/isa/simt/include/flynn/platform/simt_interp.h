// The golden functional interpreter of the SIMT kernel ISA: architectural semantics only
// (no warps in lockstep, no timing), written independently of the timed SIMT core in
// modules/simt, which is checked against it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "flynn/simt/isa.h"
#include "flynn/simt/launch.h"

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

}  // namespace flynn::simt

// The SIMT core's asynchronous operations: mbarrier init/arrive/wait, tma.load/store/wait
// and wgmma issue/commit/wait. They drive the TMA loader and the GMMA unit through tma_if
// and gmma_if and, like those, return errors instead of raising them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "core_state.h"
#include "hazards.h"
#include "flynn/common/stats.h"
#include "flynn/common/trace.h"
#include "flynn/gmma/wgmma.h"
#include "flynn/simt/launch.h"
#include "flynn/tma/tma_if.h"

namespace flynn::simt {

// What the operations need of the core: the launch (shared memory per block, tensor maps),
// the load/store unit's latency and the units (nullptr where none is bound).
struct async_context {
  const simt::launch& launch;
  unsigned warp_size = 32, lat_lsu = 0;
  tma_if* tma = nullptr;
  gmma_if* gmma = nullptr;
  hazard_checker* hazards = nullptr;  // while the core checks for hazards
};

// A fault of one lane: the core reports it with the lane's thread and the instruction.
struct lane_error {
  unsigned lane = 0;
  std::string what;
};

struct async_counters {
  stat_counter mbarrier_ops, tma_loads, tma_stores, wgmma_issued;
  // tma.load copies whose barrier phase has completed, and the cycles from each copy's issue
  // to that completion, summed.
  stat_counter tma_trips, tma_trip_cycles;
};

// Trace signals of the first mbarriers block slot 0 initialises: phase, pending arrivals
// and pending bytes of each.
class mbarrier_tracer {
 public:
  void attach(trace_sink& sink, const std::string& scope, unsigned barriers, const sc_core::sc_time& clock);
  bool enabled() const { return !signals_.empty(); }
  // Traces the barrier at shared address addr (just initialised at cycle t) if it is one of
  // the first; its changes show from then on.
  void watch(std::uint64_t addr, tx_barrier& b, std::uint64_t t);

 private:
  std::vector<trace_signal> signals_;  // 3 per barrier
  std::vector<std::uint64_t> traced_;  // their shared addresses, in order of first init
  sc_core::sc_time clock_;
};

// Executes an asynchronous instruction at cycle t for the warp's `active` threads (those
// whose guard holds; wgmma takes the whole warp): the barrier operations, the copies and
// MMAs it starts, and the warp's wgmma groups. Returns the first lane's error; the lanes
// before it have had their effect.
std::optional<lane_error> execute_async(warp& w, block_slot& b, const instr& in, std::uint32_t active, std::uint64_t t,
                                        const async_context& cx, async_counters& n, mbarrier_tracer* tracer);

// `lanes` below: the warp's active threads whose guard holds.
// When may the warp's mbarrier.wait or wgmma.wait_group complete? Every phase it waits for
// or every group it waits on must have completed: the latest such cycle, 0 when it
// executes at once (and faults, for a barrier that does not exist), unknown when a phase or
// group has not completed yet.
constexpr std::uint64_t unknown = ~std::uint64_t(0);
std::uint64_t async_ready(const warp& w, const block_slot& b, const instr& in, std::uint32_t lanes, const gmma_if* gmma);

// Why the warp's wait on an mbarrier phase or on wgmma groups can never end, for a deadlock
// report ("" when it does not wait on one).
std::string async_wait_blocked(const warp& w, const block_slot& b, const instr& in, std::uint32_t lanes);

}  // namespace flynn::simt

// The SIMT core's warp and block state, shared by its parts (private to modules/simt/src):
// the issue loop (simt_core.cpp), the load/store unit (load_store_unit.cpp), the
// asynchronous operations (async_ops.cpp) and the stall reports (stall_reports.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "flynn/simt/isa.h"
#include "flynn/sync/tx_barrier.h"
#include "flynn/tlm/atomic_extension.h"
#include "flynn/tlm/hierarchy_extension.h"
#include "flynn/tlm/lanes_extension.h"
#include "flynn/tlm/response_bound_extension.h"

#include <tlm>

namespace flynn::simt {

// Bit l of a lane mask, as a table (a vector compare, where a shift by l would not be).
inline constexpr std::array<std::uint32_t, 32> lane_bit = [] {
  std::array<std::uint32_t, 32> b{};
  for (unsigned l = 0; l < 32; ++l) b[l] = 1u << l;
  return b;
}();

// One warp slot: the warp it holds (registers, predicates, reconvergence stack) and its
// scoreboard.
struct warp {
  int slot = 0;
  bool live = false;
  unsigned block = 0;        // block slot
  unsigned index = 0;        // warp index in the block
  unsigned threads = 0;      // threads in this warp
  std::uint32_t exited = 0;  // lanes whose thread has exited
  // Registers, register-major: register x of every lane is one row of lane_slots words
  // (lane l's at x * lane_slots + l), so an instruction's lanes are contiguous.
  static constexpr unsigned lane_slots = 32;
  std::vector<std::uint32_t> r;
  std::uint32_t* row(unsigned x) { return &r[std::size_t(x) * lane_slots]; }
  const std::uint32_t* row(unsigned x) const { return &r[std::size_t(x) * lane_slots]; }
  std::uint32_t& reg(unsigned l, unsigned x) { return r[std::size_t(x) * lane_slots + l]; }
  std::uint32_t reg(unsigned l, unsigned x) const { return r[std::size_t(x) * lane_slots + l]; }
  // Predicates: bit l of p[k] is predicate pk of lane l.
  std::array<std::uint32_t, 8> p{};
  struct entry {
    std::uint32_t pc, rpc, mask;
  };
  std::vector<entry> stack;
  std::uint64_t ready_at = 0, age = 0;
  enum class wait { none, memory, scoreboard, barrier, async } why = wait::none;
  bool at_barrier = false;
  std::uint32_t barrier_pc = 0;  // the bar.sync it waits at (while at_barrier)
  std::uint32_t barrier_mask = 0;  // its threads that arrived there (the others took another path)
  std::vector<std::uint64_t> inflight;
  std::array<std::uint64_t, num_registers> reg_ready{};
  std::vector<std::uint64_t> wgmma_open;                 // issued, not yet committed (GMMA ids)
  std::uint64_t tma_last_store = 0;                      // its last tma.store copy (0: none)
  std::uint64_t issue_end = 0;                           // timeline: the end of its last issue
  std::uint64_t last_issue = 0;                          // the cycle of its last issue
  // Its last blocking wait (mbarrier.wait, wgmma.wait_group, tma.wait): the cycles from its
  // previous issue to the wait's, and which (wgmma_request::wait_kind).
  std::uint64_t wait_from = 0, wait_to = 0;
  std::uint8_t wait_kind = 0;
  std::uint64_t generation = 0;                          // which warp the slot holds
  std::vector<std::vector<std::uint64_t>> wgmma_groups;  // committed groups, oldest first
  std::array<std::uint64_t, 8> pred_ready{};
  // Each lane's thread instructions, bit-sliced: bit l of count_planes[i] is bit i of lane
  // l's count (adding a mask of lanes is a ripple of a few word operations).
  std::array<std::uint32_t, 32> count_planes{};
  unsigned planes_used = 0;  // planes above it are all zero
  void count_lanes(std::uint32_t m) {
    unsigned i = 0;
    for (; m && i < count_planes.size(); ++i) {
      const std::uint32_t plane = count_planes[i];
      count_planes[i] = plane ^ m;
      m &= plane;
    }
    if (i > planes_used) planes_used = i;
  }
  // Every lane's count (the planes transposed, one set bit at a time).
  std::array<std::uint32_t, 32> lane_counts() const {
    std::array<std::uint32_t, 32> c{};
    // Without divergence every plane is empty or the same set of lanes: one count for them.
    std::uint32_t lanes = 0, count = 0;
    bool uniform = true;
    for (unsigned i = 0; i < planes_used && uniform; ++i) {
      const std::uint32_t plane = count_planes[i];
      if (!plane) continue;
      uniform = !lanes || plane == lanes;
      lanes = plane;
      count |= 1u << i;
    }
    if (uniform) {
      for (std::uint32_t m = lanes; m; m &= m - 1) c[static_cast<unsigned>(__builtin_ctz(m))] = count;
      return c;
    }
    for (unsigned i = 0; i < planes_used; ++i)
      for (std::uint32_t m = count_planes[i]; m; m &= m - 1) c[static_cast<unsigned>(__builtin_ctz(m))] |= 1u << i;
    return c;
  }
  // The slot takes a new warp: warp `index` of the block in block slot `block`, with
  // `threads` threads starting at PC 0 at cycle t (a kernel of `code_size` instructions), its
  // `registers` registers, predicates and scoreboard zeroed (the kernel touches no other).
  // The slot keeps its place in the issue loop's list, `dirty`, and its storage.
  void start(unsigned block_slot, unsigned warp_index, unsigned thread_count, unsigned registers,
             std::uint32_t code_size, std::uint64_t t) {
    live = true;
    block = block_slot;
    index = warp_index;
    threads = thread_count;
    stack.clear();
    why = wait::none;
    at_barrier = false;
    inflight.clear();
    wgmma_open.clear();
    tma_last_store = 0;
    issue_end = 0;
    wgmma_groups.clear();
    r.resize(std::size_t(registers) * lane_slots);
    std::fill(r.begin(), r.end(), 0u);
    p.fill(0);
    std::fill_n(reg_ready.begin(), registers, 0u);
    pred_ready.fill(0);
    count_planes.fill(0);
    planes_used = 0;
    const std::uint32_t mask = first_lanes(threads);
    exited = ~mask;
    stack.push_back({0, code_size, mask});
    ready_at = t;
  }
  // Every change to the warp's state goes through simt_core::touch, which lists the slot as
  // `dirty` for the issue loop to ask the scoreboard (simt_core::ready_time) again; the
  // answer is kept in the slot's view.
  bool dirty = false;

  // The threads of the top stack entry that have not exited.
  std::uint32_t active() const { return stack.back().mask & ~exited; }
  // The lanes of `mask` whose guard holds.
  std::uint32_t guarded(std::uint32_t mask, const instr& in, unsigned warp_size) const {
    if (in.guard == no_pred) return mask;
    const std::uint32_t v = p[in.guard & 7u];
    return mask & first_lanes(warp_size) & (in.guard_neg ? ~v : v);
  }
  // The address operand [ra + imm] of lane l (32-bit arithmetic).
  std::uint64_t address(unsigned l, const instr& in) const {
    return static_cast<std::uint32_t>(reg(l, in.ra) + static_cast<std::uint32_t>(in.imm));
  }
};

// One block slot: the resident block, its shared-memory region and its mbarriers.
struct block_slot {
  bool busy = false;
  unsigned id = 0, warps_left = 0, arrived = 0, exited_threads = 0;
  std::vector<int> warps;
  std::uint64_t shared_base = 0;
  std::map<std::uint64_t, tx_barrier> mbarriers;  // by shared address
  bool draining = false;  // every warp has exited; its shared accesses are still in flight
};

using warp_slots = std::vector<std::unique_ptr<warp>>;

// A warp load or store in flight, and each of its requests (one per coalesced segment).
struct memory_op {
  warp* w = nullptr;
  std::uint64_t generation = 0;  // w's, at issue (the slot may hold a new warp by the response)
  unsigned block = 0, warp_index = 0;
  std::uint32_t pc = 0;
  const instr* in = nullptr;
  std::uint64_t issued = 0, done = 0, slot_bound = 0;
  unsigned groups_left = 0;
  std::string failure;  // of the first failing request, by group
  unsigned failed_group = 0, failed_lane = 0;
};

struct memory_request;

// The load/store unit's own extension on a payload it has in flight: the request record it
// belongs to (null on a payload that is not in flight).
struct request_tag final : tlm::tlm_extension<request_tag> {
  memory_request* rq = nullptr;
  tlm::tlm_extension_base* clone() const override {
    auto* t = new request_tag;
    t->rq = rq;
    return t;
  }
  void copy_from(const tlm::tlm_extension_base& e) override { rq = static_cast<const request_tag&>(e).rq; }
};

// Request records are kept by the core and reused: `gp` is null while one is free.
struct memory_request {
  memory_op* op = nullptr;  // (the core's, reused once its last request is answered)
  tlm::tlm_generic_payload* gp = nullptr;
  unsigned group = 0, port = 0;  // port 0: global, 1: shared
  std::vector<unsigned> lanes;   // the lanes in the request's data, in order
  bool plain = false;            // a plain burst (lanes in order at consecutive addresses) ...
  lanes_extension ext;           // ... else each lane's address, attached to the payload
  atomic_extension ax;           // an atomic's operation, attached to the payload
  request_tag tag;
  hierarchy_extension hx;        // ld.global.cg's mark for the memory hierarchy, attached to the payload
  std::uint64_t due = 0;           // the cycle it is sent for (it reaches the memory then or later)
  std::uint64_t use = 0;           // which use of the record this is
  response_bound_extension bound;  // the memory's promise: no response before bound.earliest
};

}  // namespace flynn::simt

// The SIMT core's parts on their own: reconvergence analysis, occupancy and the coalescer.
#include <catch2/catch.hpp>

#include <array>
#include <initializer_list>
#include <memory>
#include <random>
#include <stdexcept>

#include "block_launcher.h"
#include "coalescer.h"
#include "sub_partition.h"
#include "flynn/common/bits.h"
#include "flynn/platform/simt_asm.h"
#include "flynn/simt/reconvergence.h"
#include "flynn/simt/simt_core.h"

namespace {
std::vector<std::uint32_t> ipdom(const char* text) {
  return flynn::simt::immediate_post_dominators(flynn::simt::assemble(text, "k.s"));
}
}  // namespace

TEST_CASE("reconvergence: an if/else meets at the instruction after both paths") {
  const auto r = ipdom(R"(
        setp.lt.s32 p0, r4, 16
        @!p0 bra else
        add   r1, r4, 1
        bra   join
else:   add   r1, r4, 2
join:   add   r1, r1, 3
        exit
)");
  REQUIRE(r.size() == 7);
  CHECK(r[1] == 5);  // the divergent branch reconverges at join
  CHECK(r[3] == 5);
  CHECK(r[0] == 1);
  CHECK(r[6] == 7);  // exit: the kernel's end
}

TEST_CASE("reconvergence: a loop's back edge reconverges after the loop, a guarded exit only at the kernel's end") {
  const auto r = ipdom(R"(
        mov   r1, 0
loop:   add   r1, r1, 1
        setp.lt.s32 p0, r1, r4
        @p0 bra loop
        setp.eq.s32 p1, r1, 3
        @p1 exit
        add   r2, r1, 1
        exit
)");
  REQUIRE(r.size() == 8);
  CHECK(r[3] == 4);  // threads leaving the loop early wait for the others after it
  CHECK(r[5] == 8);  // a guarded exit: the exiting threads never come back
  CHECK(r[4] == 5);
  CHECK(r[7] == 8);
}

TEST_CASE("occupancy: resident blocks follow the tightest of warp slots, threads, registers and shared memory") {
  flynn::simt_core_params p;  // 32 warp slots, 1024 threads, 64 KiB registers, 16 KiB shared
  flynn::simt_launch l;
  l.grid = 100;
  l.block = 128;  // 4 warps
  CHECK(flynn::resident_blocks(p, l, 8) == 8);  // 32 slots / 4 warps; 1024 / 128; 65536 / (8*128*4) = 16
  CHECK(flynn::resident_blocks(p, l, 32) == 4);  // registers: 65536 / (32*128*4)
  l.shared_bytes = 6000;
  CHECK(flynn::resident_blocks(p, l, 8) == 2);  // 16384 / 6000
  p.shared_memory_bytes *= 2;                  // twice the shared memory: twice the blocks
  CHECK(flynn::resident_blocks(p, l, 8) == 5);
  p.max_warps = 8;
  CHECK(flynn::resident_blocks(p, l, 8) == 2);  // 8 slots / 4 warps
  l.block = 1024;
  CHECK_THROWS_AS(flynn::resident_blocks(p, l, 8), std::invalid_argument);  // 32 warps > 8 slots
  l.block = 128;
  l.shared_bytes = 40000;
  CHECK_THROWS_WITH(flynn::resident_blocks(p, l, 8), Catch::Contains("40000 B of shared memory"));
}

TEST_CASE("lane counts: set_bits counts the lanes of any 32-lane mask") {
  auto naive = [](std::uint32_t m) {
    unsigned n = 0;
    for (; m; m >>= 1) n += m & 1u;
    return n;
  };
  std::vector<std::uint32_t> masks = {0u, ~0u, 0x80000000u, 0x55555555u, 0xaaaaaaaau, 0x0000ffffu, 0xffff0000u};
  for (unsigned b = 0; b < 32; ++b) masks.push_back(1u << b);
  std::mt19937 rng(5);
  for (int i = 0; i < 1000; ++i) masks.push_back(static_cast<std::uint32_t>(rng()));
  for (const std::uint32_t m : masks) {
    CAPTURE(m);
    CHECK(flynn::set_bits(m) == naive(m));
  }
}

TEST_CASE("coalescer: groups match a lane-by-lane grouping for strided, reversed, partial and scattered accesses") {
  // The reference: each lane in turn joins the group of its segment, groups in order of
  // first touch.
  const auto reference = [](const std::vector<unsigned>& lanes, const std::vector<std::uint64_t>& addr,
                            std::uint64_t bytes) {
    std::vector<std::uint64_t> segs;
    std::vector<std::vector<unsigned>> groups;
    for (const unsigned l : lanes) {
      const std::uint64_t s = addr[l] / bytes;
      std::size_t g = 0;
      while (g < segs.size() && segs[g] != s) ++g;
      if (g == segs.size()) {
        segs.push_back(s);
        groups.emplace_back();
      }
      groups[g].push_back(l);
    }
    return std::make_pair(segs, groups);
  };
  std::mt19937 rng(11);
  flynn::simt::lane_groups out;
  unsigned strided = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const std::uint64_t bytes = trial % 3 == 0 ? 96 : std::uint64_t(32) << (rng() % 3);  // 96: not a power of two
    const flynn::fixed_divisor segment(bytes);
    std::uint32_t mask = 0xffffffffu;
    if (rng() % 2) mask = static_cast<std::uint32_t>(rng()) | 1u;
    if (rng() % 3 == 0) mask = flynn::first_lanes(1 + rng() % 32) << (rng() % 8);  // consecutive, maybe shifted
    std::vector<unsigned> lanes;
    for (unsigned l = 0; l < 32; ++l)
      if (mask & (1u << l)) lanes.push_back(l);
    std::vector<std::uint64_t> addr(32);
    const std::uint64_t base = rng() % 4096;
    const std::uint64_t stride = std::array<std::uint64_t, 6>{4, 8, 16, 1, 128, 0}[rng() % 6];
    const int shape = static_cast<int>(rng() % 5);
    for (unsigned l = 0; l < 32; ++l)
      addr[l] = shape == 0   ? base + l * stride                   // ascending
                : shape == 1 ? base + (31 - l) * stride            // descending
                : shape == 2 ? base + (l ^ 1) * stride             // pairs swapped
                : shape == 3 ? base + rng() % 512                  // scattered
                             : ~std::uint64_t(0) - 200 + l * stride;  // ascending, then wrapping around
    flynn::simt::coalesce(lanes, addr, segment, out);
    const auto [segs, groups] = reference(lanes, addr, bytes);
    REQUIRE(out.size() == groups.size());
    CHECK(out.segments == segs);
    for (std::size_t g = 0; g < groups.size(); ++g)
      CHECK(std::vector<unsigned>(out.group(g), out.group(g) + out.group_size(g)) == groups[g]);
    // The stride is reported exactly for consecutive lanes at ascending, evenly spaced addresses.
    bool even = lanes.size() >= 2 && lanes.back() - lanes.front() == lanes.size() - 1 &&
                addr[lanes[1]] > addr[lanes[0]];
    for (std::size_t k = 1; even && k < lanes.size(); ++k) even = addr[lanes[k]] > addr[lanes[k - 1]];
    for (std::size_t k = 1; even && k < lanes.size(); ++k)
      even = addr[lanes[k]] - addr[lanes[k - 1]] == addr[lanes[1]] - addr[lanes[0]];
    CHECK(out.stride == (even ? addr[lanes[1]] - addr[lanes[0]] : 0));
    strided += out.stride != 0;
  }
  CHECK(strided > 500);  // the strided path was exercised
}

namespace {
// Warp slots for the block launcher, none live.
flynn::simt::warp_slots free_warps(unsigned n) {
  flynn::simt::warp_slots w;
  for (unsigned s = 0; s < n; ++s) {
    w.push_back(std::make_unique<flynn::simt::warp>());
    w.back()->slot = static_cast<int>(s);
  }
  return w;
}
}  // namespace

TEST_CASE("block launcher: blocks go into free block slots in grid order, their warps into the first free warp slots") {
  std::vector<flynn::simt::block_slot> slots;
  flynn::simt::block_launcher bl(slots);
  auto warps = free_warps(4);
  bl.start(5, 2, 2, 1024);  // 5 blocks of 2 warps, 2 resident, regions 1 KiB apart
  REQUIRE(slots.size() == 2);
  CHECK(slots[1].shared_base == 1024);
  const auto* a = bl.place(warps);
  REQUIRE(a);
  CHECK(a->slot == 0);
  CHECK(a->id == 0);
  CHECK(a->warp_slots == std::vector<int>{0, 1});
  for (int s : a->warp_slots) warps[static_cast<std::size_t>(s)]->live = true;
  const auto* b = bl.place(warps);
  REQUIRE(b);
  CHECK(b->slot == 1);
  CHECK(b->id == 1);
  CHECK(b->warp_slots == std::vector<int>{2, 3});
  for (int s : b->warp_slots) warps[static_cast<std::size_t>(s)]->live = true;
  CHECK(bl.place(warps) == nullptr);  // both block slots busy
  CHECK(bl.resident() == 2);
  // Block 0 retires: its slot and warp slots take block 2.
  warps[0]->live = warps[1]->live = false;
  bl.retire(0);
  const auto* c = bl.place(warps);
  REQUIRE(c);
  CHECK(c->slot == 0);
  CHECK(c->id == 2);
  CHECK(c->warp_slots == std::vector<int>{0, 1});
  CHECK(bl.finished() == 1);
  CHECK_FALSE(bl.grid_done());
}

TEST_CASE("block launcher: a free block slot waits while its block's warps find no free warp slots") {
  std::vector<flynn::simt::block_slot> slots;
  flynn::simt::block_launcher bl(slots);
  auto warps = free_warps(3);
  bl.start(2, 2, 2, 0);
  const auto* a = bl.place(warps);
  REQUIRE(a);
  for (int s : a->warp_slots) warps[static_cast<std::size_t>(s)]->live = true;
  CHECK(bl.place(warps) == nullptr);  // one warp slot left for a block of two
  warps[0]->live = warps[1]->live = false;
  bl.retire(a->slot);
  const auto* b = bl.place(warps);
  REQUIRE(b);
  CHECK(b->id == 1);
  CHECK(b->warp_slots == std::vector<int>{0, 1});
  bl.retire(b->slot);
  CHECK(bl.grid_done());
  CHECK(bl.resident() == 0);
}

namespace {
flynn::simt::reg_set regs(std::initializer_list<unsigned> rs) {
  flynn::simt::reg_set s;
  for (unsigned r : rs) s.add(r);
  return s;
}
flynn::simt::sub_partition collector(unsigned banks, unsigned width, flynn::stat_counter& waits) {
  flynn::simt::sub_partition sp(0, 1, flynn::make_scheduler(flynn::warp_policy::lrr, 8), waits);
  sp.start_collector(banks, width, nullptr);
  return sp;
}
}  // namespace

TEST_CASE("sub-partition: sources in one operand bank are read one a cycle, in distinct banks together") {
  flynn::stat_counter waits;
  auto sp = collector(4, 1, waits);
  CHECK(sp.collect(regs({1, 2, 3}), 0, 10) == 10);  // banks 1, 2, 3: one cycle
  CHECK(sp.collect(regs({0, 4, 8}), 0, 20) == 22);  // all in bank 0: three cycles
  CHECK(waits.value() == 2);
  // Bank 0 is busy until 23: an instruction at 22 reading it waits a cycle.
  CHECK(sp.collect(regs({0}), 0, 22) == 23);
  // The warp in the sub-partition's next slot has its registers one bank further on.
  CHECK(sp.collect(regs({3, 7}), 1, 40) == 41);  // banks 0 and 0
  CHECK(sp.collect(regs({3, 6}), 1, 50) == 50);  // banks 0 and 3
}

TEST_CASE("sub-partition: wider banks read more sources a cycle, and with no banks nothing waits") {
  flynn::stat_counter waits;
  auto wide = collector(4, 2, waits);
  CHECK(wide.collect(regs({0, 4}), 0, 10) == 10);
  CHECK(wide.collect(regs({0, 4, 8}), 0, 20) == 21);
  auto none = collector(0, 1, waits);
  CHECK_FALSE(none.collects());
  CHECK(none.collect(regs({0, 4, 8}), 0, 30) == 30);
  CHECK(none.write_back(regs({0}), 35) == 35);  // no register file bound: results land at completion
}

TEST_CASE("sub-partition: dispatch and unit holds are its own") {
  flynn::stat_counter waits;
  auto sp = collector(0, 1, waits);
  sp.hold_dispatch(7);
  sp.hold_unit(flynn::simt::unit_sfu, 12);
  CHECK(sp.dispatch_free() == 7);
  CHECK(sp.unit_free(flynn::simt::unit_sfu) == 12);
  CHECK(sp.unit_free(flynn::simt::unit_lanes) == 0);
  const flynn::simt::dispatch_units u(32, 8, 4, 0);  // 8 lanes, 4 sfu lanes, memory on the lanes
  CHECK(u.split);
  CHECK(u.occupancy[flynn::simt::unit_lanes] == 4);
  CHECK(u.occupancy[flynn::simt::unit_sfu] == 8);
  CHECK(u.unit_of[flynn::simt::unit_lsu] == flynn::simt::unit_lanes);
}

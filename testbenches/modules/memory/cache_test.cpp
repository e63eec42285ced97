// Cache level tests through the platform: a traffic generator (AT) in front of a cache, the
// DRAM stage (refresh off) behind it, a one-cycle data array last. Hits, misses and sector
// misses, MSHR merges and limits, LRU, write-back and write-through, the input queue, the
// data path's bandwidth and the shared-memory carve-out, each from the mechanism's timing.
#include <catch2/catch.hpp>

#include "flynn/memory/cache.h"
#include "json_platform.h"

using nlohmann::json;

namespace {

// With the defaults: a hit is the hit latency (20), the data path (1 cycle for up to 64 B)
// and the array (1): 22. A miss sends its fill 2 cycles after the lookup; the DRAM stage
// answers a row miss without an array cycle (the fill moves no data) 26 cycles later; then
// the data path and the array: 2 + 26 + 1 + 1 = 30.
constexpr double hit = 20 + 1 + 1;
constexpr double miss = 2 + 26 + 1 + 1;

struct fixture {
  std::unique_ptr<flynn_test::json_platform> p;

  fixture(json streams, json cache, json gen = json::object()) {
    if (!streams.is_array()) streams = json::array({streams});  // ({x} is x itself to some compilers)
    json g = {{"type", "traffic_generator"}, {"at", true}, {"max_outstanding", 1}, {"streams", streams}};
    g.merge_patch(gen);
    cache["type"] = "cache";
    json s = {{"name", "t"},
              {"clock_ns", 1.0},
              {"max_cycles", 10000000},
              {"modules",
               {{"gen", g},
                {"l2", cache},
                {"dram", {{"type", "dram"}, {"refresh", false}}},
                {"mem", {{"type", "banked_memory"}, {"size_bytes", 1 << 20}, {"word_bytes", 4}, {"banks", 64},
                         {"latency", 1}, {"bank_busy", 1}}}}},
              {"bindings", flynn_test::bindings({{"gen.out", "l2.port0"}, {"l2.down", "dram.port0"},
                                                 {"dram.down", "mem.port0"}})}};
    p = std::make_unique<flynn_test::json_platform>(s);
  }
  void run() { p->run(); }
  json stats(const std::string& m = "l2") const { return p->stats(m); }
  double latency() const { return stats("gen")["latency"]["mean"].get<double>(); }
};

json reads(std::uint64_t base, std::int64_t stride, unsigned count, unsigned size = 32) {
  return {{"kind", "linear"}, {"base", base}, {"stride", stride}, {"count", count}, {"size", size}};
}
json writes(std::uint64_t base, std::int64_t stride, unsigned count, unsigned size = 32) {
  json w = reads(base, stride, count, size);
  w["write"] = true;
  return w;
}

}  // namespace

TEST_CASE("cache: a miss fills its sector from the next level, the next read of it hits") {
  fixture f({reads(0, 0, 2)}, json::object());
  f.run();
  const json s = f.stats();
  CHECK(s["misses"] == 1);
  CHECK(s["hits"] == 1);
  CHECK(s["fills"] == 1);
  CHECK(f.latency() == Approx((miss + hit) / 2));
}

TEST_CASE("cache: another sector of a present line is a sector miss: only that sector is filled") {
  fixture f({reads(0, 32, 2)}, json::object());
  f.run();
  const json s = f.stats();
  CHECK(s["misses"] == 1);
  CHECK(s["sector_misses"] == 1);
  CHECK(s["fills"] == 2);
  CHECK(f.stats("dram")["bytes"] == 64);  // two sectors, not two lines
}

TEST_CASE("cache: a miss to a sector already filling waits on that fill (MSHR merge)") {
  fixture f({reads(0, 0, 2)}, json::object(), {{"max_outstanding", 2}});
  f.run();
  const json s = f.stats();
  CHECK(s["fills"] == 1);
  CHECK(s["mshr_merges"] == 1);
  CHECK(s["hits"] == 0);
}

TEST_CASE("cache: with one MSHR a miss to another line waits for the first fill") {
  // Two lines, sent at cycles 0 and 1: the second lookup finds the one MSHR busy and waits
  // until the first fill comes (cycle 28), then misses itself; its fill hits the DRAM row
  // the first opened (4 + 7 + 4 and the back end 4: 19): 28 + 2 + 19 + 1 + 1 = 51, 50
  // cycles after it was sent.
  fixture f({reads(0, 128, 2)}, {{"mshrs", 1}}, {{"max_outstanding", 2}});
  f.run();
  const json s = f.stats();
  CHECK(s["mshr_stalls"] == 1);
  CHECK(s["misses"] == 2);
  CHECK(f.latency() == Approx((miss + 50) / 2));
}

TEST_CASE("cache: LRU replaces the least recently used way") {
  // One set of 2 ways (256 B): A, B, A, C (evicts B), A hits, B misses again.
  fixture f({reads(0, 0, 1), reads(128, 0, 1), reads(0, 0, 1), reads(256, 0, 1), reads(0, 0, 1), reads(128, 0, 1)},
            {{"size_bytes", 256}, {"ways", 2}});
  f.run();
  const json s = f.stats();
  CHECK(s["evictions"] == 2);  // B by C, then A or C by B: C (A was used after it)
  CHECK(s["hits"] == 2);       // the second and the third A
  CHECK(s["misses"] == 4);
}

TEST_CASE("cache: write-back: writes allocate and dirty, a dirty victim is written back") {
  // One way per set, 2 sets: a write to 0, a read of 0 (hit), a read of 256 (same set:
  // evicts the dirty line, written back as 128 bytes).
  fixture f({writes(0, 0, 1), reads(0, 0, 1), reads(256, 0, 1)}, {{"size_bytes", 256}, {"ways", 1}});
  f.run();
  const json s = f.stats();
  CHECK(s["hits"] == 1);    // the read of 0; the write allocated its line: a miss
  CHECK(s["misses"] == 2);  // the write's allocation and the read of 256
  CHECK(s["writebacks"] == 1);
  CHECK(f.stats("dram")["writes"] == 1);
  CHECK(f.stats("dram")["bytes"] == 32 + 128);  // the read's fill and the write-back
}

TEST_CASE("cache: read and write hit rates are separate and a cold write allocation is no hit") {
  // Write-back: 4 writes of 32 B to one 128-byte line (the first allocates it: a miss, then 3
  // hits), then 4 reads of the same sectors (hits) and 4 reads of a cold line (1 miss, 3
  // sector misses).
  fixture f({writes(0, 32, 4), reads(0, 32, 4), reads(4096, 32, 4)}, json::object());
  f.run();
  const json s = f.stats();
  CHECK(s["write_lookups"] == 4);
  CHECK(s["write_hits"] == 3);
  CHECK(s["write_hit_rate"].get<double>() == Approx(0.75));
  CHECK(s["read_lookups"] == 8);
  CHECK(s["read_hits"] == 4);
  CHECK(s["read_hit_rate"].get<double>() == Approx(0.5));
  CHECK(s["hits"] == 7);
  CHECK(s["misses"] == 2);
  CHECK(s["sector_misses"] == 3);
  CHECK(s["hit_rate"].get<double>() == Approx(7.0 / 12.0));
}

TEST_CASE("cache: write-through: writes go on at once and allocate nothing") {
  fixture f({writes(0, 0, 1), reads(0, 0, 1)}, {{"writes", "write_through"}});
  f.run();
  const json s = f.stats();
  CHECK(s["hits"] == 0);
  CHECK(s["misses"] == 1);
  CHECK(f.stats("dram")["writes"] == 1);
}

TEST_CASE("cache: the data path passes bytes_per_cycle a cycle") {
  // 128 bytes on a 16-byte path: 8 cycles. The hit: 20 + 8 + 1 = 29. The miss: its four
  // sectors in one fill, four bursts back to back on one pseudo-channel after the ACT
  // (4 + 7 + 7 + 4 x 4, and the back end 4: 38), then 2 + 38 + 8 + 1 = 49.
  fixture f({reads(0, 0, 1, 128), reads(0, 0, 1, 128)}, {{"bytes_per_cycle", 16}});
  f.run();
  CHECK(f.stats()["hits"] == 1);
  CHECK(f.latency() == Approx((49 + 29) / 2.0));
}

TEST_CASE("cache: a queue of one request holds the next back until the response") {
  fixture f({reads(0, 0, 4)}, {{"queue_depth", 1}}, {{"max_outstanding", 4}});
  f.run();
  CHECK(f.stats()["queue_wait_cycles"].get<std::uint64_t>() > 0);
}

TEST_CASE("cache: a request passed on (a write through) leaves the queue when it goes on") {
  // Eight writes in flight at once through a queue of one: each leaves the queue at its
  // lookup, so none waits for room (reads, which the cache serves, do: the case above).
  fixture f({writes(0, 256, 8)}, {{"writes", "write_through"}, {"queue_depth", 1}}, {{"max_outstanding", 8}});
  f.run();
  CHECK(f.stats()["queue_wait_cycles"] == 0);
  CHECK(f.stats("dram")["writes"] == 8);
}

TEST_CASE("cache: the shared-memory carve-out leaves the rest to the cache") {
  // 2 passes over 8 KB: with 16 KB of cache the second pass hits; with 12 of them given to
  // shared memory (4 KB left) every access misses.
  json pass = reads(0, 32, 256);
  fixture f({pass, pass}, {{"size_bytes", 16384}, {"ways", 4}, {"shared_carveout_bytes", 12288}});
  f.run();
  const json s = f.stats();
  CHECK(s["hits"] == 0);
  CHECK(s["evictions"].get<std::uint64_t>() > 0);
}

TEST_CASE("cache: without a carve-out the same passes hit the second time") {
  json pass = reads(0, 32, 256);
  fixture f({pass, pass}, {{"size_bytes", 16384}, {"ways", 4}});
  f.run();
  CHECK(f.stats()["hits"] == 256);
}

TEST_CASE("cache: parameters that do not fit together are refused") {
  flynn::cache_params p;
  p.sector_bytes = 256;  // more than a line
  p.shared_carveout_bytes = p.size_bytes;
  const auto issues = p.check();
  REQUIRE(issues.size() == 2);
  CHECK(issues[0].field == "sector_bytes");
  CHECK(issues[1].field == "shared_carveout_bytes");
}

TEST_CASE("cache: two levels: the L1's served requests pass the L2 uncounted, its fills are the L2's requests") {
  // L1 (write-through) -> L2 -> DRAM -> array; reads of two lines, then of the first again.
  // The second read of line 0 hits in the L1; the L2 sees only the L1's two fills.
  json s = {{"name", "t"},
            {"clock_ns", 1.0},
            {"modules",
             {{"gen", {{"type", "traffic_generator"}, {"at", true}, {"max_outstanding", 1},
                       {"streams", json::array({reads(0, 32768, 2), reads(0, 0, 1)})}}},
              {"l1", {{"type", "cache"}, {"writes", "write_through"}}},
              {"l2", {{"type", "cache"}}},
              {"dram", {{"type", "dram"}, {"refresh", false}}},
              {"mem", {{"type", "banked_memory"}, {"size_bytes", 1 << 20}, {"word_bytes", 4}, {"banks", 64},
                       {"latency", 1}, {"bank_busy", 1}}}}},
            {"bindings", flynn_test::bindings({{"gen.out", "l1.port0"}, {"l1.down", "l2.port0"},
                                               {"l2.down", "dram.port0"}, {"dram.down", "mem.port0"}})}};
  flynn_test::json_platform p(s);
  p.run(1000000);
  const json l1 = p.stats("l1");
  const json l2 = p.stats("l2");
  CHECK(l1["reads"] == 3);
  CHECK(l1["misses"] == 2);
  CHECK(l1["hits"] == 1);
  CHECK(l2["reads"] == 2);
  CHECK(l2["misses"] == 2);
  CHECK(p.stats("mem")["reads"] == 3);  // every read reaches the array once
}

TEST_CASE("cache: a request with more lines in one set than ways goes on uncached, and nothing else is evicted") {
  // 1 KB, 2 ways, 128-byte lines: 4 sets, 512 bytes apart. Three lanes 512 bytes apart touch
  // three lines of set 0: they cannot all be cached, so the request passes to DRAM as it is.
  json lanes = reads(0, 0, 1, 4);
  lanes["lanes"] = 3;
  lanes["lane_stride"] = 512;
  fixture f({lanes}, {{"size_bytes", 1024}, {"ways", 2}});
  f.run();
  const json s = f.stats();
  CHECK(s["uncached"] == 1);
  CHECK(s["evictions"] == 0);
  CHECK(s["fills"] == 0);
}

TEST_CASE("cache: a request missing more lines than there are MSHRs goes on uncached") {
  json lanes = reads(0, 0, 1, 4);
  lanes["lanes"] = 3;
  lanes["lane_stride"] = 128;  // three lines, three sets
  fixture f({lanes}, {{"mshrs", 2}});
  f.run();
  CHECK(f.stats()["uncached"] == 1);
}

TEST_CASE("cache: 32 sectors to a line: a whole-line miss fills all of them in one request") {
  fixture f({reads(0, 0, 2, 128)}, {{"sector_bytes", 4}});
  f.run();
  const json s = f.stats();
  CHECK(s["fills"] == 1);
  CHECK(s["hits"] == 1);
}

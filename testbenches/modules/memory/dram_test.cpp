// DRAM timing stage tests through the platform: a traffic generator (AT) in front of the
// stage, a one-cycle data array behind it. Row hits, misses and conflicts, tRAS, refresh,
// page policy, bandwidth from the pseudo-channels, bounded queues and tFAW, each from the
// mechanism's own timing.
#include <catch2/catch.hpp>

#include "flynn/memory/dram.h"
#include "json_platform.h"

using nlohmann::json;

namespace {

// Latencies of the defaults (cycles): front end 4, tRCD 7, tCL 7, tBL 4, the data array 1,
// back end 4; tRP 7.
constexpr double hit = 4 + 7 + 4 + 1 + 4;  // 20
constexpr double miss = hit + 7;           // ACT first: 27
constexpr double conflict = miss + 7;      // PRE, then ACT: 34

struct fixture {
  std::unique_ptr<flynn_test::json_platform> p;

  // `streams`: the generator's request streams; `dram`: the stage's parameters.
  fixture(json streams, json dram, json gen = json::object()) {
    if (!streams.is_array()) streams = json::array({streams});  // ({x} is x itself to some compilers)
    json g = {{"type", "traffic_generator"}, {"at", true}, {"max_outstanding", 1}, {"streams", streams}};
    g.merge_patch(gen);
    dram["type"] = "dram";
    json s = {{"name", "t"},
              {"clock_ns", 1.0},
              {"max_cycles", 10000000},
              {"modules",
               {{"gen", g},
                {"dram", dram},
                {"mem", {{"type", "banked_memory"}, {"size_bytes", 1 << 20}, {"word_bytes", 4}, {"banks", 64},
                         {"latency", 1}, {"bank_busy", 1}}}}},
              {"bindings", flynn_test::bindings({{"gen.out", "dram.port0"}, {"dram.down", "mem.port0"}})}};
    p = std::make_unique<flynn_test::json_platform>(s);
  }
  void run() { p->run(); }
  json stats(const std::string& m = "dram") const { return p->stats(m); }
};

// One read of 32 bytes at `address`.
json one(std::uint64_t address) {
  return {{"kind", "linear"}, {"base", address}, {"stride", 0}, {"count", 1}, {"size", 32}};
}

json no_refresh() { return {{"refresh", false}}; }

}  // namespace

TEST_CASE("dram: addresses map to pseudo-channels, then bank groups, banks and rows") {
  flynn::dram_params p;  // 2 pseudo-channels x 4 bank groups x 4 banks, 256-byte interleave, 1 KB rows
  flynn::dram d("d", p);
  CHECK(d.locate(0).pc == 0);
  CHECK(d.locate(255).pc == 0);
  CHECK(d.locate(256).pc == 1);
  CHECK(d.locate(512).bank_group == 1);
  CHECK(d.locate(512 * 4).bank == 1);
  CHECK(d.locate(512 * 16).row == 0);       // the second 256 bytes of bank 0's first row
  CHECK(d.locate(512 * 16 * 4).row == 1);   // 1 KB rows: four interleave units each
  CHECK(d.locate(512 * 16 * 4).bank == 0);
}

TEST_CASE("dram: the first access opens its row, the next to the same row hits it") {
  fixture f({{{"kind", "linear"}, {"base", 0}, {"stride", 32}, {"count", 2}, {"size", 32}}}, no_refresh());
  f.run();
  const json s = f.stats();
  CHECK(s["row_misses"] == 1);
  CHECK(s["row_hits"] == 1);
  CHECK(s["activates"] == 1);
  CHECK(s["mean_latency"].get<double>() == Approx((miss + hit) / 2));
}

TEST_CASE("dram: another row of an open bank is a conflict: PRE and ACT first") {
  // 32 KB apart: the same pseudo-channel, bank group and bank, the next row. The second
  // request arrives after the first's response, so tRAS has passed.
  fixture f({{{"kind", "linear"}, {"base", 0}, {"stride", 32768}, {"count", 2}, {"size", 32}}}, no_refresh());
  f.run();
  const json s = f.stats();
  CHECK(s["row_conflicts"] == 1);
  CHECK(s["precharges"] == 1);
  CHECK(s["mean_latency"].get<double>() == Approx((miss + conflict) / 2));
}

TEST_CASE("dram: tRAS holds the precharge of a row opened just before") {
  // Two requests in flight: the second's PRE waits for the first's ACT + tRAS (17), not only
  // for its own arrival. First ACT at 0 + 4; PRE at 21, ACT at 28, read at 35, data by 46,
  // array 47, back end 51; it arrived at cycle 1 (one issue a cycle): 50.
  fixture f({{{"kind", "linear"}, {"base", 0}, {"stride", 32768}, {"count", 2}, {"size", 32}}}, no_refresh(),
            {{"max_outstanding", 2}});
  f.run();
  CHECK(f.stats()["mean_latency"].get<double>() == Approx((miss + 50) / 2));
}

TEST_CASE("dram: an LT call takes the same path and time as an AT request") {
  fixture f({{{"kind", "linear"}, {"base", 0}, {"stride", 32}, {"count", 2}, {"size", 32}}}, no_refresh(),
            {{"at", false}});
  f.run();
  const json s = f.stats();
  CHECK(s["row_hits"] == 1);
  CHECK(s["mean_latency"].get<double>() == Approx((miss + hit) / 2));
}

TEST_CASE("dram: closed pages: every access activates its row") {
  fixture f({{{"kind", "linear"}, {"base", 0}, {"stride", 32}, {"count", 4}, {"size", 32}}},
            {{"refresh", false}, {"policy", "closed"}});
  f.run();
  const json s = f.stats();
  CHECK(s["row_hits"] == 0);
  CHECK(s["activates"] == 4);
  CHECK(s["precharges"] == 4);
  CHECK(s["mean_latency"].get<double>() == Approx(miss));
}

TEST_CASE("dram: a request during a refresh waits for tRFC to end") {
  // tREFI 1000, tRFC 300: pseudo-channel 0 refreshes at 500 .. 800. A request at cycle 510:
  // its ACT at 800, data by 818, array 819, back end 823: 313 cycles.
  fixture f({one(0)}, {{"tREFI", 1000}, {"tRFC", 300}}, {{"start_cycle", 510}});
  f.run();
  const json s = f.stats();
  CHECK(s["refreshes"] == 1);
  CHECK(s["mean_latency"].get<double>() == Approx(800 - 510 + miss - 4));
}

TEST_CASE("dram: a refresh closes the open rows") {
  // Two reads of one row, 700 cycles apart, across pseudo-channel 0's refresh at 500.
  fixture f({{{"kind", "linear"}, {"base", 0}, {"stride", 0}, {"count", 2}, {"size", 32}}},
            {{"tREFI", 1000}, {"tRFC", 300}}, {{"issue_interval", 700}});
  f.run();
  const json s = f.stats();
  CHECK(s["row_hits"] == 0);
  CHECK(s["activates"] == 2);
  CHECK(s["refreshes"] == 1);
}

namespace {
// A stream of 1024 reads of 32 B, `stride` bytes apart, through the stage; its bandwidth in
// bytes per cycle.
double stream_bandwidth(json dram, unsigned outstanding = 64, const char* stat = nullptr, double* other = nullptr,
                        unsigned stride = 32) {
  dram["refresh"] = false;
  fixture f({{{"kind", "linear"}, {"base", 0}, {"stride", stride}, {"count", 1024}, {"size", 32}}}, dram,
            {{"max_outstanding", outstanding}});
  f.run();
  if (stat && other) *other = f.stats()[stat].get<double>();
  return f.stats("gen")["bandwidth"].get<double>();
}
}  // namespace

TEST_CASE("dram: a stream's bandwidth is bounded by the pseudo-channels' data buses and comes close") {
  // 2 pseudo-channels x 32 B per tBL (4 cycles): 16 B a cycle at most.
  double busy = 0;
  const double bw = stream_bandwidth(json::object(), 64, "bus_busy_cycles", &busy);
  CHECK(busy == 1024 * 4);
  CHECK(bw <= 16.0);
  CHECK(bw >= 0.85 * 16.0);
}

TEST_CASE("dram: twice the pseudo-channels, about twice the stream's bandwidth") {
  const double bw = stream_bandwidth({{"channels", 2}});
  CHECK(bw <= 32.0);
  CHECK(bw >= 0.8 * 32.0);
}

TEST_CASE("dram: a queue of one request serialises the stream") {
  // Each request enters once the one before completes: about a miss/hit latency each.
  const double bw = stream_bandwidth({{"queue_depth", 1}});
  CHECK(bw < 0.5 * 16.0);
}

// Closed pages, 256-byte stride: every burst activates a bank of its own (the stride walks
// the pseudo-channels, bank groups and banks), so ACTs, not banks, set the pace.
TEST_CASE("dram: tFAW bounds a stream of activations") {
  // tFAW 64: at most 4 ACTs, 4 bursts of 32 B, per 64 cycles per pseudo-channel: 4 B a cycle for 2.
  const double slow = stream_bandwidth({{"policy", "closed"}, {"tFAW", 64}}, 64, nullptr, nullptr, 256);
  // (The first four ACTs of each pseudo-channel wait for no window: 1024 bursts take 126
  // windows, not 128.)
  CHECK(slow <= 2 * 4 * 32 / 64.0 * 128 / 126);
  CHECK(slow >= 0.9 * 2 * 4 * 32 / 64.0);
}

TEST_CASE("dram: with the default tFAW the same stream is bound by the data buses") {
  // tFAW 15 allows 4 ACTs per 15 cycles, more than the 4 bursts per 16 cycles the bus moves.
  const double bw = stream_bandwidth({{"policy", "closed"}}, 64, nullptr, nullptr, 256);
  CHECK(bw <= 16.0);
  CHECK(bw >= 0.85 * 16.0);
}

TEST_CASE("dram: closed pages on one bank: a stream waits tRAS + tRP per access") {
  // 32-byte stride: 8 bursts in a row on one bank, each after the last one's ACT + tRAS + tRP
  // (24 cycles), the two pseudo-channels in turn: about 2 x 32 B per 24 cycles.
  const double bw = stream_bandwidth({{"policy", "closed"}});
  CHECK(bw <= 2 * 32 / 24.0 * 1.2);
  CHECK(bw >= 2 * 32 / 24.0 * 0.9);
}

TEST_CASE("dram: parameters that do not fit together are refused") {
  flynn::dram_params p;
  p.interleave_bytes = 2048;  // more than a row
  p.tRFC = 5000;              // longer than tREFI
  p.row_bytes = 1000;         // not a power of two
  const auto issues = p.check();
  REQUIRE(issues.size() >= 3);
  CHECK(issues[0].field == "row_bytes");
}

TEST_CASE("dram: two ports are served in arrival order, then by port number") {
  // Both ask for other rows of bank 0 at cycle 0 (port 1's generator is declared, and runs,
  // first): port 0's opens its row (a miss, 27), port 1's then needs PRE, not before the ACT
  // at 4 + tRAS (21), and ACT at 28, read at 35, data by 46, array 47, back end 51.
  auto gen = [](std::uint64_t base) {
    return json{{"type", "traffic_generator"}, {"at", true}, {"max_outstanding", 1},
                {"streams", json::array({json{{"kind", "linear"}, {"base", base}, {"stride", 0}, {"count", 1}, {"size", 32}}})}};
  };
  json s = {{"name", "t"},
            {"clock_ns", 1.0},
            {"modules",
             {{"g1", gen(32768)},
              {"g0", gen(0)},
              {"dram", {{"type", "dram"}, {"ports", 2}, {"refresh", false}}},
              {"mem", {{"type", "banked_memory"}, {"size_bytes", 1 << 20}, {"word_bytes", 4}, {"banks", 64},
                       {"latency", 1}, {"bank_busy", 1}}}}},
            {"bindings", flynn_test::bindings({{"g1.out", "dram.port1"}, {"g0.out", "dram.port0"}, {"dram.down", "mem.port0"}})}};
  flynn_test::json_platform p(s);
  p.run(1000000);
  const json d = p.stats("dram");
  CHECK(d["row_misses"] == 1);
  CHECK(d["row_conflicts"] == 1);
  CHECK(d["mean_latency"].get<double>() == Approx((miss + 51) / 2));
  CHECK(p.stats("g0")["latency"]["mean"].get<double>() == Approx(miss));
}

// Crossbar tests: address hashing to outputs, latency and link occupancy both ways, the far
// partition, and link bandwidth, through the platform (traffic generators in front, one-cycle
// data arrays behind).
#include <catch2/catch.hpp>

#include "flynn/memory/crossbar.h"
#include "json_platform.h"

using nlohmann::json;
using flynn_test::bindings;

namespace {

json memory() {
  return {{"type", "banked_memory"}, {"size_bytes", 1 << 20}, {"word_bytes", 4}, {"banks", 64}, {"latency", 1},
          {"bank_busy", 1}};
}
json generator(json streams, unsigned outstanding = 1) {
  if (!streams.is_array()) streams = json::array({streams});  // ({x} is x itself to some compilers)
  return {{"type", "traffic_generator"}, {"at", true}, {"max_outstanding", outstanding}, {"streams", streams}};
}
json reads(std::uint64_t base, std::int64_t stride, unsigned count, unsigned size = 32) {
  return {{"kind", "linear"}, {"base", base}, {"stride", stride}, {"count", count}, {"size", size}};
}
// One generator, a crossbar with two outputs, a data array on each.
json one_to_two(json streams, json xbar, unsigned outstanding = 1) {
  xbar["type"] = "crossbar";
  return {{"name", "t"},
          {"clock_ns", 1.0},
          {"modules", {{"gen", generator(streams, outstanding)}, {"xbar", xbar}, {"m0", memory()}, {"m1", memory()}}},
          {"bindings", bindings({{"gen.out", "xbar.port0"}, {"xbar.down0", "m0.port0"}, {"xbar.down1", "m1.port0"}})}};
}

}  // namespace

TEST_CASE("crossbar: addresses go to outputs by unit, folded by XOR or taken modulo") {
  flynn::crossbar_params p;
  p.outputs = 4;
  p.interleave_bytes = 256;
  flynn::crossbar x("x", p);  // xor
  CHECK(x.output_of(0) == 0);
  CHECK(x.output_of(256) == 1);
  CHECK(x.output_of(3 * 256) == 3);
  CHECK(x.output_of(4 * 256) == 1);  // unit 4 = 01 00: 1 ^ 0
  CHECK(x.output_of(5 * 256) == 0);  // unit 5 = 01 01: 1 ^ 1
  CHECK(x.output_of(255) == 0);
}

TEST_CASE("crossbar: a read crosses both ways: latency twice, a header cycle in, its data out") {
  // In at 0 (header 1 cycle), 10 across, out at 10 (1 cycle): the array at 11, answers at
  // 12; back: 1 cycle of data, 10 across, 1 cycle on the input link: 24 - 1 = 23 after...
  // the response at cycle 23.
  flynn_test::json_platform f(one_to_two({reads(0, 0, 1)}, {{"latency", 10}}));
  f.run();
  CHECK(f.stats("xbar")["mean_latency"].get<double>() == Approx(2 * 10 + 1 + 1 + 1));
  CHECK(f.stats("xbar")["requests_per_output"][0] == 1);
}

TEST_CASE("crossbar: the far partition adds its latency each way") {
  // Two inputs, two outputs, two partitions: generator 0 reads from output 1 (far).
  json s = {{"name", "t"},
            {"clock_ns", 1.0},
            {"modules",
             {{"g0", generator({reads(256, 0, 1)})},
              {"g1", generator({reads(256, 0, 1)})},
              {"xbar", {{"type", "crossbar"}, {"ports", 2}, {"latency", 10}, {"partitions", 2}, {"far_latency", 50}}},
              {"m0", memory()},
              {"m1", memory()}}},
            {"bindings", bindings({{"g0.out", "xbar.port0"}, {"g1.out", "xbar.port1"}, {"xbar.down0", "m0.port0"},
                                   {"xbar.down1", "m1.port0"}})}};
  flynn_test::json_platform f(s);
  f.run();
  const json x = f.stats("xbar");
  CHECK(x["far_requests"] == 1);
  // g1 near: 23; g0 far: 23 + 2 x 50. g0's request is taken first (port 0) and books
  // output 1's link for cycle 60; g1's reaches that link at cycle 10 and is not held behind
  // the later booking (each link keeps a calendar: granted in simulated-time order).
  CHECK(x["mean_latency"].get<double>() == Approx((23 + 123) / 2.0));
}

TEST_CASE("crossbar: a link passes bytes_per_cycle: a stream of 128-byte reads gets at most 32 B a cycle") {
  flynn_test::json_platform f(one_to_two({reads(0, 128, 512, 128)}, {{"latency", 10}}, 32));
  f.run();
  const double bw = f.stats("gen")["bandwidth"].get<double>();
  CHECK(bw <= 32.0);
  CHECK(bw >= 0.9 * 32.0);
}

TEST_CASE("crossbar: a stride of outputs x interleave stays on one output taken modulo ...") {
  flynn_test::json_platform f(one_to_two({reads(0, 512, 64)}, {{"hash", "modulo"}}));
  f.run();
  CHECK(f.stats("xbar")["requests_per_output"][0] == 64);
}

TEST_CASE("crossbar: ... and spreads over both with the XOR fold") {
  flynn_test::json_platform f(one_to_two({reads(0, 512, 64)}, json::object()));
  f.run();
  CHECK(f.stats("xbar")["requests_per_output"][0] == 32);
  CHECK(f.stats("xbar")["requests_per_output"][1] == 32);
}

TEST_CASE("crossbar: parameters that do not fit together are refused") {
  flynn::crossbar_params p;
  p.outputs = 3;  // not a power of two, with xor
  p.partitions = 2;  // more than the one port
  const auto issues = p.check();
  REQUIRE(issues.size() == 2);
  CHECK(issues[0].field == "outputs");
  CHECK(issues[1].field == "partitions");
}

TEST_CASE("crossbar: a request that spans two outputs is a fault, not a silent misroute") {
  // 64 bytes from 224: units 0 and 1 of 256 bytes, outputs 0 and 1.
  json s = one_to_two({reads(224, 0, 1, 64)}, json::object());
  flynn_test::json_platform f(s);
  const auto r = f.p->run(100000);
  CHECK(r.failed());
  CHECK_THAT(r.message, Catch::Matchers::Contains("spans outputs 0 and 1"));
}

// Traffic generator tests: address sequences, golden replay, outstanding limit, faults.
#include <catch2/catch.hpp>

#include "flynn/memory/banked_memory.h"
#include "flynn/platform/stats_writer.h"
#include "flynn/traffic/traffic_generator.h"

using namespace flynn;

namespace {
traffic_generator::params one_stream(traffic_stream s) {
  traffic_generator::params p;
  p.streams = {s};
  return p;
}
}  // namespace

TEST_CASE("cursor: linear with wrap - negative stride - indexed and multi-lane addresses") {
  traffic_stream s;
  s.stride = 16;
  s.count = 5;
  s.range_bytes = 48;
  s.base = 1000;
  auto p = one_stream(s);
  traffic_cursor c(p);
  std::vector<std::uint64_t> a;
  while (c.next()) a.push_back(c.address());
  CHECK(a == std::vector<std::uint64_t>{1000, 1016, 1032, 1000, 1016});

  s = traffic_stream{};
  s.kind = stream_kind::indexed;
  s.indices = {0, 2, 6, 7};
  s.count = 0;
  s.size = 8;
  s.base = 64;
  p = one_stream(s);
  traffic_cursor ci(p);
  a.clear();
  while (ci.next()) a.push_back(ci.address());
  CHECK(a == std::vector<std::uint64_t>{64, 80, 112, 120});

  s = traffic_stream{};
  s.lanes = 4;
  s.lane_stride = 8;
  s.size = 4;
  s.count = 1;
  p = one_stream(s);
  traffic_cursor cl(p);
  REQUIRE(cl.next());
  CHECK(cl.multi_lane());
  CHECK(cl.length() == 16);
  CHECK(cl.lanes().address[3] == 24);
}

TEST_CASE("random streams are reproducible and stay in range") {
  traffic_stream s;
  s.kind = stream_kind::random;
  s.range_bytes = 1024;
  s.size = 8;
  s.count = 100;
  auto p = one_stream(s);
  traffic_cursor a(p), b(p);
  while (a.next()) {
    REQUIRE(b.next());
    CHECK(a.address() == b.address());
    CHECK(a.address() < 1024);
    CHECK(a.address() % 8 == 0);
  }
}

TEST_CASE("golden replay applies writes and digests reads") {
  traffic_generator::params p;
  traffic_stream w;
  w.write = true;
  w.count = 4;
  traffic_stream r = w;
  r.write = false;
  p.streams = {w, r};
  std::vector<unsigned char> img(1024, 0), img2(1024, 0);
  const auto d1 = traffic_golden_replay(p, img);
  const auto d2 = traffic_golden_replay(p, img2);
  CHECK(d1 == d2);
  CHECK(img == img2);
  CHECK(std::count(img.begin(), img.begin() + 32, 0) < 32);  // data was written
  p.data_seed = 7;
  std::vector<unsigned char> img3(1024, 0);
  CHECK(traffic_golden_replay(p, img3) != d1);
}

TEST_CASE("the outstanding limit throttles a latency-bound stream") {
  traffic_stream s;
  s.count = 64;
  auto p = one_stream(s);
  p.max_outstanding = 4;  // 4 requests per 11-cycle round trip
  banked_memory::params mp;
  mp.size_bytes = 4096;
  mp.latency = 11;
  banked_memory mem("mem", mp);
  traffic_generator gen("gen", p);
  gen.out.bind(mem.port(0));
  sc_core::sc_start();
  CHECK(gen.done());
  // 16 rounds of 4 requests, each round 11 cycles apart: last issue at 15*11+3, done +11.
  CHECK(sc_core::sc_time_stamp() == sc_core::sc_time(15 * 11 + 3 + 11, sc_core::SC_NS));
  CHECK(flynn::stats_to_json(gen.stats())["requests"] == 64);
}

TEST_CASE("an error response is a simulated fault naming request - address and status") {
  traffic_stream s;
  s.base = 4096 - 8;
  s.count = 3;
  auto p = one_stream(s);
  banked_memory::params mp;
  mp.size_bytes = 4096;
  banked_memory mem("mem", mp);
  traffic_generator gen("gen", p);
  gen.out.bind(mem.port(0));
  sc_core::sc_report_handler::set_actions("flynn/fault", sc_core::SC_ERROR, sc_core::SC_THROW);
  try {
    sc_core::sc_start();
    FAIL("no fault raised");
  } catch (const sc_core::sc_report& e) {
    const std::string m = e.get_msg();
    CHECK_THAT(m, Catch::Contains("request 1"));
    CHECK_THAT(m, Catch::Contains("0x1000"));
    CHECK_THAT(m, Catch::Contains("ADDRESS_ERROR"));
  }
}

// banked_memory honours the lanes extension and acknowledges it (lanes_extension::acknowledged),
// so multi-lane traffic over LT and AT runs to the golden result.
TEST_CASE("multi-lane requests to banked_memory are acknowledged and match the golden model") {
  traffic_stream w;
  w.write = true;
  w.lanes = 8;
  w.size = 4;
  w.lane_stride = 36;
  w.stride = 64;
  w.count = 40;
  w.range_bytes = 1024;
  traffic_stream r = w;
  r.write = false;
  r.lane_stride = 4;
  banked_memory::params mp;
  mp.size_bytes = 4096;
  mp.word_bytes = 4;
  mp.banks = 8;
  mp.latency = 5;
  std::vector<traffic_generator::params> ps(2);
  ps[0].streams = ps[1].streams = {w, r, w, r};
  ps[1].at = true;
  banked_memory m_lt("m_lt", mp), m_at("m_at", mp);
  traffic_generator g_lt("g_lt", ps[0]), g_at("g_at", ps[1]);
  g_lt.out.bind(m_lt.port(0));
  g_at.out.bind(m_at.port(0));
  sc_core::sc_start();
  for (auto [g, m, p] : {std::tuple{&g_lt, &m_lt, &ps[0]}, std::tuple{&g_at, &m_at, &ps[1]}}) {
    CHECK(g->done());
    CHECK(g->requests_done() == 160);
    std::vector<unsigned char> golden, now(4096);
    banked_memory::initial_image(mp, golden);
    CHECK(g->read_checksum() == traffic_golden_replay(*p, golden));
    m->peek(0, now.data(), now.size());
    CHECK(now == golden);
  }
}

// The module base: conversions between simulated time and cycles of a module's clock.
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <vector>

#include "flynn/common/module.h"

using flynn::module;
using sc_core::sc_time;

namespace {

sc_time ps(std::uint64_t v) { return sc_time::from_value(v); }  // the kernel's resolution is 1 ps

// A module of clock period 1.25 ns running `body` in its thread.
struct clocked : module {
  std::function<void(clocked&)> body;
  SC_HAS_PROCESS(clocked);
  clocked(const sc_core::sc_module_name& n, std::function<void(clocked&)> b) : module(n, 1.25), body(std::move(b)) {
    SC_THREAD(run);
  }
  void run() { body(*this); }
};

}  // namespace

TEST_CASE("cycles and times convert exactly, rounding down or up to a clock edge") {
  clocked m("m", [](clocked&) {});
  REQUIRE(m.clock_period() == ps(1250));
  CHECK(m.to_time(0) == sc_core::SC_ZERO_TIME);
  CHECK(m.to_time(3) == ps(3750));
  CHECK(m.to_cycles(ps(3749)) == 2);
  CHECK(m.to_cycles(ps(3750)) == 3);
  CHECK(m.to_cycles_ceil(ps(3749)) == 3);
  CHECK(m.to_cycles_ceil(ps(3750)) == 3);
  CHECK(m.to_cycles_ceil(ps(3751)) == 4);
  // Past 2^53 ps, where a double no longer holds every picosecond, a cycle still maps to its
  // own time and back.
  const std::uint64_t far = (std::uint64_t(1) << 53) / 1250 + 12345;
  CHECK(m.to_time(far).value() == far * 1250);
  CHECK(m.to_cycles(m.to_time(far)) == far);
  CHECK(m.to_cycles(m.to_time(far) - ps(1)) == far - 1);
  CHECK(m.to_cycles_ceil(m.to_time(far) + ps(1)) == far + 1);
  // A time beyond the kernel's range stops at its end.
  CHECK(m.to_time(UINT64_MAX) == sc_core::sc_max_time());
}

TEST_CASE("cycles of one clock convert to the next edge of another") {
  const sc_time fast = ps(1000), slow = ps(1500);  // a 1 ns and a 1.5 ns clock
  // Cycle 3 of the fast clock (3 ns) is seen at the slow clock's edge 2 (3 ns); cycle 4
  // (4 ns) at edge 3 (4.5 ns).
  CHECK(module::to_cycles_ceil(module::to_time(3, fast), slow) == 2);
  CHECK(module::to_cycles_ceil(module::to_time(4, fast), slow) == 3);
  CHECK(module::to_cycles(module::to_time(4, fast), slow) == 2);
  // Slow edge 3 (4.5 ns) is fast cycle 5 rounded up.
  CHECK(module::to_cycles_ceil(module::to_time(3, slow), fast) == 5);
  // One clock to itself: the identity.
  for (std::uint64_t c : {0u, 1u, 7u, 1000003u}) CHECK(module::to_cycles_ceil(module::to_time(c, slow), slow) == c);
}

TEST_CASE("a thread waits until a cycle still ahead and never goes back") {
  std::vector<std::uint64_t> seen;
  std::vector<sc_time> delays;
  clocked m("m", [&](clocked& self) {
    self.wait_until(5);
    seen.push_back(self.to_cycles(sc_core::sc_time_stamp()));
    self.wait_until(3);  // passed: no wait
    seen.push_back(self.to_cycles(sc_core::sc_time_stamp()));
    delays.push_back(self.delay_until(7));
    delays.push_back(self.delay_until(5));
    delays.push_back(self.delay_until(2));
  });
  sc_core::sc_start();
  CHECK(seen == std::vector<std::uint64_t>{5, 5});
  CHECK(delays == std::vector<sc_time>{ps(2500), sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME});
}

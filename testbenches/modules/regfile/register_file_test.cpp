// The sub-partition register file as a TLM target: bank conflicts, the crossbar's width and
// latency, the result queue, and arbitration in simulated-time order.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "flynn/regfile/register_file.h"
#include "harness.h"

using flynn_test::initiator;

namespace {

// Each lane's 256 registers (register k of lane l at regs[l][k]).
struct warp_registers {
  std::array<std::array<std::uint32_t, 256>, flynn::warp_lanes> regs{};
  std::array<std::uint32_t*, flynn::warp_lanes> lanes() {
    std::array<std::uint32_t*, flynn::warp_lanes> p{};
    for (unsigned l = 0; l < flynn::warp_lanes; ++l) p[l] = regs[l].data();
    return p;
  }
};

// One access of `regs` at cycle `at` (1 ns cycles); returns the cycle it completes.
std::uint64_t access(initiator& i, warp_registers& w, bool write, const std::vector<unsigned>& regs, std::uint64_t at,
                     std::vector<unsigned char>& data) {
  flynn::register_access_extension x;
  x.lanes = w.lanes();
  x.registers = regs;
  data.resize(regs.size() * flynn::warp_register_bytes);
  tlm::tlm_generic_payload gp;
  gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_data_ptr(data.data());
  gp.set_data_length(static_cast<unsigned>(data.size()));
  gp.set_extension(&x);
  sc_core::sc_time delay = sc_core::sc_time(double(at), sc_core::SC_NS) - sc_core::sc_time_stamp();
  i.socket->b_transport(gp, delay);
  gp.clear_extension(&x);
  REQUIRE(gp.is_response_ok());
  return static_cast<std::uint64_t>((sc_core::sc_time_stamp() + delay).to_seconds() * 1e9 + 0.5);
}

std::uint64_t stat(const flynn::register_file& rf, const std::string& name) {
  for (const auto& e : rf.stats().entries())
    if (e.name == name && e.counter) return e.counter->value();
  FAIL("no counter " << name);
  return 0;
}

std::vector<unsigned> span(unsigned first, unsigned count) {
  std::vector<unsigned> r;
  for (unsigned k = 0; k < count; ++k) r.push_back(first + k);
  return r;
}

}  // namespace

TEST_CASE("register_file: reads take their busiest bank's cycles, then the crossbar's, and values move both ways") {
  flynn::register_file_params p;  // 4 banks, crossbar latency 1, unlimited width
  flynn::register_file rf("rf", p);
  warp_registers w;
  for (unsigned l = 0; l < flynn::warp_lanes; ++l)
    for (unsigned k = 0; k < 256; ++k) w.regs[l][k] = 1000 * l + k;
  std::vector<std::uint64_t> done;
  std::vector<unsigned char> data, back;
  initiator init("init", [&](initiator& i) {
    done.push_back(access(i, w, false, span(0, 4), 10, data));          // four banks: one cycle
    done.push_back(access(i, w, false, {0, 4, 8, 12}, 20, data));       // one bank: four cycles
    back = data;
    std::vector<unsigned char> d2(back);
    std::uint32_t v = 77;
    std::memcpy(&d2[flynn::lane_register_bytes * 3], &v, 4);             // register 40 of lane 3
    done.push_back(access(i, w, true, {40}, 30, d2));
  });
  init.socket.bind(rf.port);
  sc_core::sc_start();
  REQUIRE(done.size() == 3);
  CHECK(done[0] == 10 + 1 + 1);
  CHECK(done[1] == 20 + 4 + 1);
  CHECK(done[2] == 31);
  std::uint32_t lane5_reg8 = 0;  // the second read's register 8 (its third) of lane 5
  std::memcpy(&lane5_reg8, &back[2 * flynn::warp_register_bytes + 5 * flynn::lane_register_bytes], 4);
  CHECK(lane5_reg8 == 5008);
  CHECK(w.regs[3][40] == 77);
  CHECK(w.regs[2][40] == 2000);  // (the other lanes wrote the data they were given: register 0 of the read)
  CHECK(stat(rf, "bank_conflict_cycles") == 0 + (1 + 2 + 3));
}

TEST_CASE("register_file: a crossbar of width W carries a read's bytes in ceil(bytes / W) whole cycles") {
  // Ten registers (an mma.sync's A, B and C: 1280 bytes) over four banks: 3 cycles of banks.
  // Unlimited, the read is done after its banks and the crossbar latency; at 224 B a cycle it
  // takes 6 cycles of crossbar, at 256 B 5, at 128 B 10; two such reads at the same cycle
  // queue on the crossbar.
  // (SystemC elaborates once per process: one register file per width in one run)
  std::vector<std::unique_ptr<flynn::register_file>> owned;
  std::vector<std::unique_ptr<initiator>> inits;
  const std::vector<unsigned> widths = {0, 128, 224, 256};
  std::vector<std::vector<std::uint64_t>> done(widths.size());
  std::vector<warp_registers> w(widths.size());
  for (std::size_t k = 0; k < widths.size(); ++k) {
    flynn::register_file_params p;
    p.crossbar_bytes_per_cycle = widths[k];
    owned.push_back(std::make_unique<flynn::register_file>(("rf" + std::to_string(k)).c_str(), p));
    inits.push_back(std::make_unique<initiator>(("init" + std::to_string(k)).c_str(), [&, k](initiator& i) {
      std::vector<unsigned char> data;
      done[k].push_back(access(i, w[k], false, span(0, 10), 100, data));
      done[k].push_back(access(i, w[k], false, span(20, 10), 200, data));
      done[k].push_back(access(i, w[k], false, span(40, 10), 200, data));  // the same cycle: after the first
    }));
    inits.back()->socket.bind(owned.back()->port);
  }
  sc_core::sc_start();
  // Unlimited: 3 bank cycles + 1; the second read at 200 is 3 + 1, the third waits 3 for
  // its banks (the same banks) and is 6 + 1.
  CHECK(done[0] == std::vector<std::uint64_t>{104, 204, 207});
  // 128 B a cycle: 10 crossbar cycles + 1 (the third after the second's 10).
  CHECK(done[1] == std::vector<std::uint64_t>{111, 211, 221});
  // 224 B a cycle: ceil(1280 / 224) = 6.
  CHECK(done[2] == std::vector<std::uint64_t>{107, 207, 213});
  // 256 B a cycle: 5.
  CHECK(done[3] == std::vector<std::uint64_t>{106, 206, 211});
  CHECK(stat(*owned[2], "crossbar_cycles") == 18);
}

TEST_CASE("register_file: a read for a later cycle, arriving first, does not delay an earlier one") {
  flynn::register_file_params p;
  p.crossbar_bytes_per_cycle = 256;
  flynn::register_file rf("rf", p);
  warp_registers w;
  std::vector<std::uint64_t> done;
  initiator init("init", [&](initiator& i) {
    std::vector<unsigned char> data;
    done.push_back(access(i, w, false, span(0, 4), 500, data));  // far ahead (temporal decoupling)
    done.push_back(access(i, w, false, span(0, 4), 100, data));  // earlier in simulated time
    done.push_back(access(i, w, false, span(0, 4), 500, data));  // the same cycle as the first: after it
  });
  init.socket.bind(rf.port);
  sc_core::sc_start();
  REQUIRE(done.size() == 3);
  CHECK(done[0] == 500 + 2 + 1);
  CHECK(done[1] == 100 + 2 + 1);
  CHECK(done[2] == 501 + 2 + 1 + 1);  // its banks a cycle later, then the crossbar after the first's two
}

// A write made ahead of time lands at the cycle it completes: a read whose bank reads the
// register earlier sees the old value, one at or after that cycle the new one, and the
// warp's own register holds the old value until simulated time reaches the cycle.
TEST_CASE("register_file: a write's values land at the cycle it completes, not at the call") {
  flynn::register_file_params p;  // 4 banks, crossbar latency 1
  flynn::register_file rf("rf", p);
  warp_registers w;
  w.regs[0][8] = 5;
  std::vector<unsigned char> data, early, late;
  std::uint64_t written = 0;
  std::uint32_t in_warp_before = 0, in_warp_at = 0;
  initiator init("init", [&](initiator& i) {
    data.assign(flynn::warp_register_bytes, 0);
    const std::uint32_t v = 99;
    std::memcpy(&data[0], &v, 4);                    // lane 0 of register 8
    written = access(i, w, true, {8}, 50, data);     // made at cycle 0 for cycle 50
    in_warp_before = w.regs[0][8];
    access(i, w, false, {8}, 20, early);             // read at 20: before it lands
    access(i, w, false, {8}, 60, late);              // read at 60: after
    sc_core::wait(sc_core::sc_time(double(written), sc_core::SC_NS));
    in_warp_at = w.regs[0][8];
  });
  init.socket.bind(rf.port);
  sc_core::sc_start();
  CHECK(written == 51);
  CHECK(in_warp_before == 5);
  std::uint32_t e = 0, l = 0;
  std::memcpy(&e, early.data(), 4);
  std::memcpy(&l, late.data(), 4);
  CHECK(e == 5);
  CHECK(l == 99);
  CHECK(in_warp_at == 99);
}

TEST_CASE("register_file: a read sees its own warp's writes pending up to its cycle, in order, and no other warp's") {
  flynn::register_file_params p;  // 4 banks: register 8 in bank 0
  flynn::register_file rf("rf", p);
  warp_registers a, b;
  a.regs[0][8] = 5;
  b.regs[0][8] = 7;
  std::vector<unsigned char> data, twice;
  std::array<std::vector<unsigned char>, 6> seen;
  const auto row = [](std::uint32_t v) {
    std::vector<unsigned char> d(flynn::warp_register_bytes, 0);
    std::memcpy(&d[0], &v, 4);  // lane 0
    return d;
  };
  initiator init("init", [&](initiator& i) {
    // All made at cycle 0 for later cycles: a's register 8 becomes 10, then 11, then (named
    // twice in one write, the later value winning) 13; b's becomes 20 before all of them.
    data = row(10);
    access(i, a, true, {8}, 40, data);
    data = row(11);
    access(i, a, true, {8}, 60, data);
    data = row(20);
    access(i, b, true, {8}, 30, data);
    twice = row(12);
    const auto second = row(13);
    twice.insert(twice.end(), second.begin(), second.end());
    access(i, a, true, {8, 8}, 80, twice);
    access(i, a, false, {8}, 20, seen[0]);
    access(i, a, false, {8}, 50, seen[1]);
    access(i, a, false, {8}, 70, seen[2]);
    access(i, a, false, {8}, 90, seen[3]);
    access(i, b, false, {8}, 20, seen[4]);
    access(i, b, false, {8}, 50, seen[5]);
  });
  init.socket.bind(rf.port);
  sc_core::sc_start();
  std::array<std::uint32_t, 6> v{};
  for (std::size_t k = 0; k < v.size(); ++k) std::memcpy(&v[k], seen[k].data(), 4);
  CHECK(v == std::array<std::uint32_t, 6>{5, 10, 11, 13, 7, 20});
  CHECK(a.regs[0][8] == 13);
  CHECK(b.regs[0][8] == 20);
}

TEST_CASE("register_file: one request counted per call, and write-backs wait while the result queue is full") {
  // Four registers written to one bank at cycle 10, one a cycle: with a result queue of 2
  // entries the third waits for the first to leave (cycle 11, 1 cycle) and the fourth for
  // the second (cycle 12, 2 cycles): 3 cycles in all, the last written at 13 (done 14). With
  // 8 entries none waits. Each write and read call is one request, however many registers.
  std::vector<std::unique_ptr<flynn::register_file>> owned;
  std::vector<std::unique_ptr<initiator>> inits;
  const std::vector<unsigned> entries = {2, 8};
  std::vector<std::uint64_t> written(entries.size());
  std::vector<warp_registers> w(entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k) {
    flynn::register_file_params p;
    p.banks = 1;
    p.result_queue = entries[k];
    owned.push_back(std::make_unique<flynn::register_file>(("rf" + std::to_string(k)).c_str(), p));
    inits.push_back(std::make_unique<initiator>(("init" + std::to_string(k)).c_str(), [&, k](initiator& i) {
      std::vector<unsigned char> data(4 * flynn::warp_register_bytes, 0), out;
      written[k] = access(i, w[k], true, span(0, 4), 10, data);
      access(i, w[k], false, {0}, 30, out);
      access(i, w[k], false, {1, 2}, 40, out);
    }));
    inits.back()->socket.bind(owned.back()->port);
  }
  sc_core::sc_start();
  CHECK(stat(*owned[0], "result_queue_full_cycles") == 3);
  CHECK(written[0] == 14);
  CHECK(stat(*owned[1], "result_queue_full_cycles") == 0);
  CHECK(written[1] == 14);  // (the one bank still writes one register a cycle)
  for (const auto& rf : owned) {
    CHECK(stat(*rf, "write_requests") == 1);
    CHECK(stat(*rf, "read_requests") == 2);
    CHECK(stat(*rf, "writes") == 4);
    CHECK(stat(*rf, "reads") == 3);
  }
}

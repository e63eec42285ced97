// TMA-style loader: box copies, swizzled layouts, out-of-bounds fill, barrier completion,
// descriptor validation.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>

#include "flynn/memory/banked_memory.h"
#include "flynn/platform/stats_writer.h"
#include "flynn/tma/tma_loader.h"

using namespace flynn;

namespace {

// Global tensor: 16 rows x 128 fp16 elements (256-byte rows); element (r, c) = r * 1000 + c.
struct rig : sc_core::sc_module {
  banked_memory gmem, smem;
  tma_loader tma;
  std::function<void(rig&)> body;
  SC_HAS_PROCESS(rig);
  static banked_memory::params gparams() {
    banked_memory::params p;
    p.size_bytes = 1 << 16;
    p.word_bytes = 16;
    p.banks = 8;
    p.latency = 100;
    p.bank_busy = 1;
    return p;
  }
  static banked_memory::params sparams() {
    banked_memory::params p;
    p.size_bytes = 1 << 14;
    p.word_bytes = 4;
    p.banks = 32;
    p.latency = 20;
    p.bank_busy = 1;
    return p;
  }
  explicit rig(std::function<void(rig&)> b)
      : sc_core::sc_module("rig"), gmem("gmem", gparams()), smem("smem", sparams()), tma("tma", {}), body(std::move(b)) {
    tma.global.bind(gmem.port(0));
    tma.shared.bind(smem.port(0));
    for (std::uint16_t r = 0; r < 16; ++r)
      for (std::uint16_t c = 0; c < 128; ++c) {
        const std::uint16_t v = static_cast<std::uint16_t>(r * 1000 + c);
        gmem.poke(r * 256 + c * 2, reinterpret_cast<const unsigned char*>(&v), 2);
      }
    SC_THREAD(run);
  }
  void run() { body(*this); }
  std::uint16_t shared_at(std::uint64_t a) const {
    std::uint16_t v;
    smem.peek(a, reinterpret_cast<unsigned char*>(&v), 2);
    return v;
  }
};

tensor_descriptor tile(swizzle_mode s) {
  tensor_descriptor d;
  d.rank = 2;
  d.elem_bytes = 2;
  d.dims = {128, 16, 0, 0, 0};
  d.strides = {0, 256, 0, 0, 0};
  d.box = {64, 8, 0, 0, 0};  // 8 rows of 128 bytes
  d.swizzle = s;
  return d;
}

}  // namespace

TEST_CASE("a 2-D box lands row by row and completes the barrier when the last row lands") {
  std::string err;
  tx_barrier bar(1);
  std::uint64_t landed = 0;
  rig r([&](rig& x) {
    bar.arrive_expect_tx(tile(swizzle_mode::none).box_bytes(), 0);
    err = x.tma.load(tile(swizzle_mode::none), {32, 4, 0, 0, 0}, 0, bar, 0);
    // Rows are written to shared memory when they land, not when the copy starts.
    CHECK(x.tma.in_progress());
    CHECK(x.shared_at(0) == 0);
  });
  sc_core::sc_start();
  REQUIRE(err.empty());
  CHECK_FALSE(r.tma.in_progress());
  landed = r.tma.busy_until();
  CHECK(bar.try_wait(0));
  CHECK(bar.completed_at() == landed);
  // Row i issues at cycle i, its data is back after 100 cycles and lands 20 later.
  CHECK(landed == 7 + 100 + 20);
  CHECK_FALSE(bar.try_wait(0, landed - 1));
  for (unsigned row = 0; row < 8; ++row)
    for (unsigned c = 0; c < 64; ++c) REQUIRE(r.shared_at(row * 128 + c * 2) == (4 + row) * 1000 + 32 + c);
  CHECK(stats_to_json(r.tma.stats())["rows"] == 8);
}

TEST_CASE("the 128-byte swizzle places chunk c of row r at chunk c xor r") {
  std::string err;
  tx_barrier bar(1);
  rig r([&](rig& x) {
    bar.arrive_expect_tx(1024, 0);
    err = x.tma.load(tile(swizzle_mode::b128), {0, 0, 0, 0, 0}, 1024, bar, 0);
  });
  sc_core::sc_start();
  REQUIRE(err.empty());
  CHECK(bar.try_wait(0));
  for (unsigned row = 0; row < 8; ++row)
    for (unsigned chunk = 0; chunk < 8; ++chunk) {
      const std::uint64_t at = 1024 + row * 128 + ((chunk ^ row) * 16);
      REQUIRE(r.shared_at(at) == row * 1000 + chunk * 8);  // first element of the chunk
    }
  // A swizzled row write touches 32 distinct banks: one wavefront each.
  CHECK(stats_to_json(r.smem.stats())["wavefronts"] == 8);
}

TEST_CASE("elements outside the tensor are filled with zeros") {
  std::string err;
  tx_barrier bar(1);
  rig r([&](rig& x) {
    bar.arrive_expect_tx(1024, 0);
    err = x.tma.load(tile(swizzle_mode::none), {96, 12, 0, 0, 0}, 0, bar, 0);  // 32 columns and 4 rows outside
  });
  // Poison shared memory so that zero fill is visible.
  std::vector<unsigned char> ff(2048, 0xff);
  r.smem.poke(0, ff.data(), ff.size());
  sc_core::sc_start();
  REQUIRE(err.empty());
  CHECK(r.shared_at(0) == 12 * 1000 + 96);
  CHECK(r.shared_at(31 * 2) == 12 * 1000 + 127);
  CHECK(r.shared_at(32 * 2) == 0);             // column 128: outside
  CHECK(r.shared_at(4 * 128) == 0);            // row 16: outside
  CHECK(stats_to_json(r.tma.stats())["oob_bytes"] == 4 * 64 + 4 * 128);
  CHECK(bar.try_wait(0));
}

TEST_CASE("invalid descriptors and addresses are refused with the reason") {
  auto d = tile(swizzle_mode::none);
  d.box[1] = 300;
  CHECK_THAT(d.validate(), Catch::Contains("box[1] = 300"));
  d = tile(swizzle_mode::none);
  d.strides[1] = 200;
  CHECK_THAT(d.validate(), Catch::Contains("multiple of 16"));
  d = tile(swizzle_mode::b64);
  CHECK_THAT(d.validate(), Catch::Contains("does not fit the 64B swizzle"));
  d = tile(swizzle_mode::none);
  d.rank = 6;
  CHECK_THAT(d.validate(), Catch::Contains("rank"));
  std::string err;
  tx_barrier bar(1);
  rig r([&](rig& x) { err = x.tma.load(tile(swizzle_mode::b128), {0, 0, 0, 0, 0}, 512, bar, 0); });
  sc_core::sc_start();
  CHECK_THAT(err, Catch::Contains("1024-byte alignment"));
}

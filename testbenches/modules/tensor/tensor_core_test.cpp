// Tensor core as a TLM target: its blocks against the reference GEMM, bit for bit, for
// shapes that leave rows and columns over from its four-row, eight-column groups.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "flynn/tensor/tensor_core.h"
#include "harness.h"

using flynn_test::initiator;

TEST_CASE("tensor_core: D = A x B + D is bit-exact with the reference GEMM, rows and columns left over included") {
  flynn::tensor_core tc("tc", flynn::tensor_core_params{});
  struct shape {
    unsigned m, n, k;
  };
  const std::vector<shape> shapes = {{16, 8, 16}, {64, 256, 16}, {5, 3, 7}, {7, 13, 16}, {1, 1, 1}, {4, 17, 2}, {9, 24, 5}};
  std::vector<std::string> mismatches;
  unsigned blocks = 0;
  initiator init("init", [&](initiator& i) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    for (const auto type : {flynn::element_type::bf16, flynn::element_type::f16})
      for (const shape& s : shapes) {
        std::vector<std::uint16_t> a(std::size_t(s.m) * s.k), b_rows(std::size_t(s.k) * s.n), b_cols(b_rows.size());
        std::vector<float> c(std::size_t(s.m) * s.n), reference;
        for (auto& v : a) v = flynn::from_f32(type, u(rng));
        for (unsigned q = 0; q < s.k; ++q)
          for (unsigned j = 0; j < s.n; ++j)
            b_cols[std::size_t(j) * s.k + q] = b_rows[std::size_t(q) * s.n + j] = flynn::from_f32(type, u(rng));
        for (auto& v : c) v = u(rng);
        flynn::reference_gemm(type, s.m, s.n, s.k, a, b_rows, c, reference);
        std::vector<float> d = c;
        flynn::mma_step_extension x;
        x.m = s.m;
        x.n = s.n;
        x.k = s.k;
        x.type = x.b_type = type;
        x.a = reinterpret_cast<const unsigned char*>(a.data());
        x.b = reinterpret_cast<const unsigned char*>(b_cols.data());
        x.d = d.data();
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_IGNORE_COMMAND);
        gp.set_extension(&x);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        i.socket->b_transport(gp, delay);
        gp.clear_extension(&x);
        ++blocks;
        const std::string what = std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k) +
                                 (type == flynn::element_type::bf16 ? " bf16" : " f16");
        if (!gp.is_response_ok()) mismatches.push_back(what + ": " + gp.get_response_string());
        else if (std::memcmp(d.data(), reference.data(), d.size() * sizeof(float)) != 0)
          mismatches.push_back(what + ": D differs from the reference GEMM");
      }
  });
  init.socket.bind(tc.port);
  sc_core::sc_start();
  CHECK(blocks == 2 * shapes.size());
  CHECK(mismatches.empty());
  for (const auto& m : mismatches) UNSCOPED_INFO(m);
}

TEST_CASE("tensor_core: fp8 and tf32 blocks take as long as f16 ones of the same 32 bytes of K, bit-exact") {
  // A 16 x 64 block: K = 16 f16, 32 fp8 or 8 tf32 elements are 32 bytes of each operand row,
  // so each takes the same 16 x 64 x 16 / 512 = 32 cycles: fp8 twice the multiply-adds a
  // cycle, tf32 half. D against a plain fp32 loop over the decoded elements, in k order.
  flynn::tensor_core tc("tc", flynn::tensor_core_params{});
  std::vector<std::uint64_t> busy;
  std::vector<std::string> mismatches;
  initiator init("init", [&](initiator& i) {
    std::mt19937 rng(5);
    const flynn::element_type types[][2] = {{flynn::element_type::f16, flynn::element_type::f16},
                                            {flynn::element_type::e4m3, flynn::element_type::e5m2},
                                            {flynn::element_type::tf32, flynn::element_type::tf32}};
    for (const auto& t : types) {
      const unsigned eb = flynn::element_bytes(t[0]), k = 32 / eb, m = 16, n = 64;
      std::vector<unsigned char> a(std::size_t(m) * 32), b(std::size_t(n) * 32);
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      const auto fill = [&](std::vector<unsigned char>& v, flynn::element_type ty) {
        for (std::size_t e = 0; e < v.size() / eb; ++e) {
          const float x = u(rng);
          if (ty == flynn::element_type::f16) {
            const std::uint16_t h = flynn::f32_to_f16(x);
            std::memcpy(&v[2 * e], &h, 2);
          } else if (ty == flynn::element_type::tf32) {
            const std::uint32_t w = flynn::float_to_bits(x);  // (its low 13 bits are not read)
            std::memcpy(&v[4 * e], &w, 4);
          } else {
            v[e] = ty == flynn::element_type::e4m3 ? flynn::f32_to_e4m3(x) : flynn::f32_to_e5m2(x);
          }
        }
      };
      fill(a, t[0]);
      fill(b, t[1]);
      std::vector<float> d(std::size_t(m) * n, 0.5f), expect = d;
      for (unsigned r = 0; r < m; ++r)
        for (unsigned j = 0; j < n; ++j) {
          volatile float acc = expect[std::size_t(r) * n + j];
          for (unsigned q = 0; q < k; ++q)
            acc = acc + flynn::element_to_f32(t[0], &a[(std::size_t(r) * k + q) * eb]) *
                            flynn::element_to_f32(t[1], &b[(std::size_t(j) * k + q) * eb]);
          expect[std::size_t(r) * n + j] = acc;
        }
      flynn::mma_step_extension x;
      x.m = m;
      x.n = n;
      x.k = k;
      x.type = t[0];
      x.b_type = t[1];
      x.a = a.data();
      x.b = b.data();
      x.d = d.data();
      tlm::tlm_generic_payload gp;
      gp.set_command(tlm::TLM_IGNORE_COMMAND);
      gp.set_extension(&x);
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      const std::uint64_t before = tc.busy_cycles();
      i.socket->b_transport(gp, delay);
      gp.clear_extension(&x);
      busy.push_back(tc.busy_cycles() - before);
      if (std::memcmp(d.data(), expect.data(), d.size() * sizeof(float)) != 0)
        mismatches.push_back(std::string(flynn::element_name(t[0])) + " x " + flynn::element_name(t[1]));
    }
  });
  init.socket.bind(tc.port);
  sc_core::sc_start();
  REQUIRE(busy.size() == 3);
  CHECK(busy[0] == 16 * 64 * 16 / 512);
  CHECK(busy[1] == busy[0]);
  CHECK(busy[2] == busy[0]);
  CHECK(mismatches.empty());
  for (const auto& m : mismatches) UNSCOPED_INFO(m);
}

TEST_CASE("tensor_core: blocks take the datapath in simulated-time order, whatever order they are sent in") {
  // 16 x 8 x 16 f16 blocks of 4 cycles each (2048 / 512): one for cycle 1000 sent
  // first, then one for cycle 100 (a second initiator running behind), then one for cycle
  // 1002, which waits for the first to leave the datapath.
  flynn::tensor_core tc("tc", flynn::tensor_core_params{});
  std::vector<std::uint64_t> start, end, written;
  initiator init("init", [&](initiator& i) {
    std::vector<std::uint16_t> a(16 * 16, 0), b(8 * 16, 0);
    std::vector<float> d(16 * 8, 0.0f);
    for (const std::uint64_t at : {1000u, 100u, 1002u}) {
      flynn::mma_step_extension x;
      x.m = 16;
      x.n = 8;
      x.k = 16;
      x.type = x.b_type = flynn::element_type::f16;
      x.a = reinterpret_cast<const unsigned char*>(a.data());
      x.b = reinterpret_cast<const unsigned char*>(b.data());
      x.d = d.data();
      tlm::tlm_generic_payload gp;
      gp.set_command(tlm::TLM_IGNORE_COMMAND);
      gp.set_extension(&x);
      sc_core::sc_time delay = sc_core::sc_time(double(at), sc_core::SC_NS);
      i.socket->b_transport(gp, delay);
      gp.clear_extension(&x);
      REQUIRE(gp.is_response_ok());
      start.push_back(x.start);
      end.push_back(x.end);
      written.push_back(static_cast<std::uint64_t>(delay.to_seconds() * 1e9 + 0.5));
    }
  });
  init.socket.bind(tc.port);
  sc_core::sc_start();
  const std::uint64_t lat = flynn::tensor_core_params{}.latency;
  CHECK(start == std::vector<std::uint64_t>{1000, 100, 1004});
  CHECK(end == std::vector<std::uint64_t>{1004, 104, 1008});
  CHECK(written == std::vector<std::uint64_t>{1004 + lat, 104 + lat, 1008 + lat});
  CHECK(tc.busy_cycles() == 12);
}

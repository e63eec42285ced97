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
        x.type = type;
        x.a = a.data();
        x.b = b_cols.data();
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

// A workload's host GEMM reference (the scenario's "workload.reference": {"gemm": {...}}):
// C = A x B computed on the host from the initial memory image, against which the run's C is
// checked. Shared by the SIMT and PTX workloads, which name the operands differently (a byte
// address, a buffer).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "flynn/common/programmable_core.h"

namespace flynn {

struct gemm_reference {
  bool on = false;
  std::uint64_t a = 0, b = 0, c = 0;  // byte addresses: A (M x K), B (K x N, or N x K), C (M x N, binary32)
  unsigned m = 0, n = 0, k = 0;
  std::uint64_t lda = 0, ldb = 0, ldc = 0;  // elements from one row to the next (A, B as given, C)
  double tolerance = 1e-5;    // relative, per element of C (to max(1, |reference|))
  bool bf16 = false;          // A and B bf16 (else binary32)
  bool b_transposed = false;  // B given as N x K (K-major), else K x N
};

// Reads `r` (the value of "workload.reference"). operand(key, bytes) gives the address of
// operand `key` ("a", "b", "c") that must hold `bytes` bytes, or fails; fail(path, expected,
// found) throws the bad-input error.
using gemm_operand_fn = std::function<std::uint64_t(const std::string& key, std::uint64_t bytes)>;
using gemm_fail_fn = std::function<void(const std::string& path, const std::string& expected, const std::string& found)>;
gemm_reference parse_gemm_reference(const nlohmann::json& r, const gemm_operand_fn& operand, const gemm_fail_fn& fail);

// "" when the memory's C equals the host GEMM of the initial image's A and B within the
// tolerance, else the first element that does not.
std::string check_gemm_reference(const gemm_reference& g, const backdoor_memory& mem, const std::vector<unsigned char>& image);

// The check as the run's list of checks names it.
std::string gemm_reference_summary(const gemm_reference& g);

}  // namespace flynn

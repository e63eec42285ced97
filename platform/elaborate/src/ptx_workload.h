// The PTX workload (the scenario's "workload" object: ptx_workload.cpp): what it reads from
// the scenario, where its buffers lie in global memory, and its checks. ptx_workload.cpp reads
// the PTX file, the launch, the buffers and the memory images; ptx_workload_params.cpp the
// kernel parameters; ptx_workload_reference.cpp the host reference it is checked against.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "flynn/platform/errors.h"
#include "flynn/platform/memory_image.h"
#include "flynn/platform/ptx.h"
#include "flynn/platform/ptx_lower.h"
#include "flynn/platform/workload.h"
#include "flynn/simt/simt_program.h"
#include "gemm_reference.h"

namespace flynn {

// A PTX kernel as the SIMT core's workload, checked against the golden PTX interpreter.
class ptx_workload final : public workload {
 public:
  ptx_workload(module& core, const instance_lookup& modules, const scenario_doc& sd, const nlohmann::json& spec);
  void check(run_result& r) const override;

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& expected, const std::string& found) const {
    throw input_error(sd_.origin_of(path), path, expected, found);
  }
  std::array<unsigned, 3> extents(const nlohmann::json& spec, const char* key, unsigned max_total) const;
  void place_buffers(const nlohmann::json& spec);
  void set_params(const nlohmann::json& spec);
  tensor_descriptor tensor_map(const nlohmann::json& v, const std::string& path) const;
  void parse_reference(const nlohmann::json& spec);

  const scenario_doc& sd_;
  ptx::module module_;
  const ptx::kernel* kernel_ = nullptr;
  ptx::lowered lowered_;
  simt_program program_;  // the lowered kernel and its launch
  simt::launch& launch_ = program_.launch;
  module& core_;
  backdoor_memory* mem_ = nullptr;
  std::vector<unsigned char> image_;
  std::vector<std::pair<std::string, memory_image>> expect_;
  struct buffer {
    std::string name;
    std::uint64_t address = 0, bytes = 0;
  };
  std::vector<buffer> buffers_;
  const buffer* buffer_named(const std::string& n) const {
    for (const auto& b : buffers_)
      if (b.name == n) return &b;
    return nullptr;
  }
  std::vector<std::string> buffer_names() const {
    std::vector<std::string> v;
    for (const auto& b : buffers_) v.push_back(b.name);
    return v;
  }
  gemm_reference gemm_;
};

}  // namespace flynn

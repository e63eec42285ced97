// The SIMT core's parameters: their names, units, ranges and checks, and what they allocate.
#include "flynn/simt/simt_core.h"

#include <string>

namespace flynn {

param_footprint simt_core_params::footprint() const {
  // Per warp slot its state and up to 256 registers of warp_size lanes.
  return {std::uint64_t(max_warps) * (4096 + 256 * 4 * std::uint64_t(warp_size)), 0};
}

std::vector<param_issue> simt_core_params::check() const {
  std::vector<param_issue> r;
  if (lanes > warp_size)
    r.push_back({"lanes", "at most warp_size (" + std::to_string(warp_size) + ")", std::to_string(lanes)});
  if (sfu_lanes > warp_size)
    r.push_back({"sfu_lanes", "at most warp_size (" + std::to_string(warp_size) + ")", std::to_string(sfu_lanes)});
  if (lsu_lanes > warp_size)
    r.push_back({"lsu_lanes", "at most warp_size (" + std::to_string(warp_size) + ")", std::to_string(lsu_lanes)});
  if (sub_partitions > max_warps)
    r.push_back({"sub_partitions", "at most max_warps (" + std::to_string(max_warps) + ")",
                 std::to_string(sub_partitions)});
  if (divergence == divergence_policy::dwf && sub_partitions > 1)
    r.push_back({"sub_partitions", "1 with divergence dwf (dwf forms warps across the whole core)",
                 std::to_string(sub_partitions)});
  require_power_of_two(r, "segment_bytes", segment_bytes);
  if (max_threads < warp_size)
    r.push_back({"max_threads", "at least warp_size (" + std::to_string(warp_size) + ")", std::to_string(max_threads)});
  return r;
}

}  // namespace flynn

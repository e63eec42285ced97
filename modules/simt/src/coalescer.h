// The SIMT core's global-memory coalescer: which lanes of a warp access share a request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "flynn/common/bits.h"

namespace flynn::simt {

// Lanes in groups, stored flat: group g is lanes[begin[g]] .. lanes[begin[g + 1] - 1].
// (Kept between accesses, so that its storage is reused.)
struct lane_groups {
  std::vector<unsigned> lanes;
  std::vector<std::size_t> begin;
  std::size_t size() const { return begin.empty() ? 0 : begin.size() - 1; }
  const unsigned* group(std::size_t g) const { return lanes.data() + begin[g]; }
  std::size_t group_size(std::size_t g) const { return begin[g + 1] - begin[g]; }
  // When the lanes are consecutive and their addresses ascend by one stride: that stride
  // (each group is then consecutive lanes at consecutive strides), else 0.
  std::uint64_t stride = 0;
  // Scratch of coalesce: each segment touched, each given lane's group, where each group
  // fills next.
  std::vector<std::uint64_t> segments;
  std::vector<unsigned> group_of;
  std::vector<std::size_t> fill;
};

// The lanes (in the order given) grouped by the aligned segment of segment_bytes their
// address falls in, one group per segment touched, in order of first touch, each group's
// lanes in the order given. addr is indexed by lane.
void coalesce(const std::vector<unsigned>& lanes, const std::vector<std::uint64_t>& addr,
              const fixed_divisor& segment_bytes, lane_groups& out);

}  // namespace flynn::simt

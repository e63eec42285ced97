#include "coalescer.h"

#include <algorithm>

namespace flynn::simt {

void coalesce(const std::vector<unsigned>& lanes, const std::vector<std::uint64_t>& addr,
              const fixed_divisor& segment_bytes, lane_groups& out) {
  out.segments.clear();
  // The usual case, every lane in one segment: one group, the lanes as given.
  // (Segments are ranges: the lanes share one when the lowest and highest address do.)
  if (!lanes.empty()) {
    std::uint64_t lo = addr[lanes[0]], hi = lo;
    for (const unsigned l : lanes) {
      lo = std::min(lo, addr[l]);
      hi = std::max(hi, addr[l]);
    }
    const std::uint64_t first = segment_bytes.quotient(lo);
    if (segment_bytes.quotient(hi) == first) {
      out.segments.push_back(first);
      out.lanes = lanes;
      out.begin.assign({0, lanes.size()});
      return;
    }
  }
  out.group_of.resize(lanes.size());
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const std::uint64_t s = segment_bytes.quotient(addr[lanes[i]]);
    const auto it = std::find(out.segments.begin(), out.segments.end(), s);
    out.group_of[i] = static_cast<unsigned>(it - out.segments.begin());
    if (it == out.segments.end()) out.segments.push_back(s);
  }
  // Counting sort by group, stable: begin[g] is where group g starts.
  out.begin.assign(out.segments.size() + 1, 0);
  for (const unsigned g : out.group_of) ++out.begin[g + 1];
  for (std::size_t g = 1; g < out.begin.size(); ++g) out.begin[g] += out.begin[g - 1];
  out.lanes.resize(lanes.size());
  std::vector<unsigned>& next = out.group_of;  // reused: each lane's slot, in place of its group
  out.fill.assign(out.begin.begin(), out.begin.end() - 1);
  for (std::size_t i = 0; i < lanes.size(); ++i) next[i] = static_cast<unsigned>(out.fill[next[i]]++);
  for (std::size_t i = 0; i < lanes.size(); ++i) out.lanes[next[i]] = lanes[i];
}

}  // namespace flynn::simt

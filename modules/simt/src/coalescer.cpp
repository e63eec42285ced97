#include "coalescer.h"

#include <algorithm>

namespace flynn::simt {

std::vector<std::vector<unsigned>> coalesce(const std::vector<unsigned>& lanes, const std::vector<std::uint64_t>& addr,
                                            unsigned segment_bytes) {
  std::vector<std::vector<unsigned>> groups;
  std::vector<std::uint64_t> segments;
  for (unsigned l : lanes) {
    const std::uint64_t s = addr[l] / segment_bytes;
    const auto it = std::find(segments.begin(), segments.end(), s);
    if (it == segments.end()) {
      segments.push_back(s);
      groups.push_back({l});
    } else {
      groups[static_cast<std::size_t>(it - segments.begin())].push_back(l);
    }
  }
  return groups;
}

}  // namespace flynn::simt

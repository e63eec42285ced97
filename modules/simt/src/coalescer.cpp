#include "coalescer.h"

#include <algorithm>

namespace flynn::simt {

namespace {
// n consecutive lanes from `first` whose addresses are a0 + k * d (d > 0, the last not past
// 2^64): runs of lanes, one per segment, each ending where the next segment starts.
void strided_groups(unsigned first, std::size_t n, std::uint64_t a0, std::uint64_t d,
                    const fixed_divisor& segment_bytes, lane_groups& out) {
  out.segments.clear();
  out.begin.clear();
  out.stride = d;
  out.lanes.resize(n);
  for (std::size_t k = 0; k < n; ++k) out.lanes[k] = first + static_cast<unsigned>(k);
  const std::uint64_t bytes = segment_bytes.divisor();
  for (std::size_t i = 0; i < n;) {
    const std::uint64_t a = a0 + i * d;
    const std::uint64_t s = segment_bytes.quotient(a);
    out.segments.push_back(s);
    out.begin.push_back(i);
    i += ((s + 1) * bytes - a + d - 1) / d;  // the lanes below the next segment
  }
  out.begin.push_back(n);
}
}  // namespace

void coalesce(const std::vector<unsigned>& lanes, const std::vector<std::uint64_t>& addr,
              const fixed_divisor& segment_bytes, lane_groups& out) {
  out.segments.clear();
  out.stride = 0;
  // Consecutive lanes at ascending addresses a constant stride apart (a unit-stride access
  // with its lanes all active, for one): the groups are runs of lanes, each ending where the
  // next segment starts.
  const std::size_t n = lanes.size();
  if (n >= 2 && lanes[n - 1] - lanes[0] == n - 1) {  // (lanes ascend: they are consecutive)
    const std::uint64_t* a = addr.data() + lanes[0];
    const std::uint64_t d = a[1] - a[0];
    std::uint64_t off = 0;  // (each step compared with the first: a loop that vectorises)
    for (std::size_t k = 1; k < n; ++k) off |= (a[k] - a[k - 1]) ^ d;
    std::uint64_t span = 0, last = 0;  // ascending without wrapping around
    const bool ascending = d != 0 && !__builtin_mul_overflow(std::uint64_t(n - 1), d, &span) &&
                           !__builtin_add_overflow(a[0], span, &last);
    if (off == 0 && ascending) {
      strided_groups(lanes[0], n, a[0], d, segment_bytes, out);
      return;
    }
  }
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

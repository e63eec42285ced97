// The SIMT core's global-memory coalescer: which lanes of a warp access share a request.
#pragma once

#include <cstdint>
#include <vector>

namespace flynn::simt {

// The lanes (in the order given) grouped by the aligned segment of segment_bytes their
// address falls in, one group per segment touched, in order of first touch. addr is
// indexed by lane.
std::vector<std::vector<unsigned>> coalesce(const std::vector<unsigned>& lanes, const std::vector<std::uint64_t>& addr,
                                            unsigned segment_bytes);

}  // namespace flynn::simt

// The vector unit's parameters: their names, units, ranges and checks, and what they
// allocate.
#include "flynn/vector/vector_unit.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "vector_unit_parts.h"

namespace flynn {

// ---------------------------------------------------------------------------- parameters

param_footprint vector_unit_params::footprint() const {
  // Eight vector registers of max_vl 64-bit elements, with their per-element ready and
  // read-until cycles.
  return {8 * 24 * std::uint64_t(max_vl), 0};
}

std::vector<param_issue> vector_unit_params::check() const {
  std::vector<param_issue> r;
  if (ports() == 0)
    r.push_back({"shared_ports", "at least one memory port (shared, load or store)", "0"});
  if (shared_ports + load_ports == 0)
    r.push_back({"load_ports", "at least one port that can load", "0"});
  if (shared_ports + store_ports == 0)
    r.push_back({"store_ports", "at least one port that can store", "0"});
  if (lanes > max_vl)
    r.push_back({"lanes", "at most max_vl (" + std::to_string(max_vl) + ")", std::to_string(lanes)});
  return r;
}

}  // namespace flynn

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

void vector_unit_params::visit(param_visitor& v) {
  param(v, {"max_vl", "elements", "vector register length (elements of 64 bits)"}, max_vl, 1, 4096);
  param(v, {"lanes", "", "lanes: element i runs on lane i mod lanes, one element per lane per cycle"},
        lanes, 1, 32);
  param_enum(v, {"chaining", "", "chaining of dependent instructions"}, chaining, chaining_policies);
  param_enum(v, {"masking", "", "masked execution"}, masking, mask_policies);
  param(v, {"shared_ports", "", "memory ports for loads and stores"}, shared_ports, 0, 16);
  param(v, {"load_ports", "", "load-only memory ports"}, load_ports, 0, 16);
  param(v, {"store_ports", "", "store-only memory ports"}, store_ports, 0, 16);
  param(v, {"port_held_until_done", "",
            "a memory instruction holds its port until its last element is done (false: until its last element issued)"},
        port_held_until_done);
  param(v, {"queue_depth", "instructions",
            "instructions that may wait for a busy unit or port without blocking issue (0: issue waits, as the Cray-1)"},
        queue_depth, 0, 64);
  param(v, {"lat_add", "cycles", "integer add/subtract pipeline latency"}, lat_add, 1, 1000);
  param(v, {"lat_logic", "cycles", "logic pipeline latency"}, lat_logic, 1, 1000);
  param(v, {"lat_shift", "cycles", "shift pipeline latency"}, lat_shift, 1, 1000);
  param(v, {"lat_mul", "cycles", "integer multiply pipeline latency"}, lat_mul, 1, 1000);
  param(v, {"lat_div", "cycles", "divide/reciprocal pipeline latency"}, lat_div, 1, 1000);
  param(v, {"lat_fadd", "cycles", "floating-point add pipeline latency"}, lat_fadd, 1, 1000);
  param(v, {"lat_fmul", "cycles", "floating-point multiply pipeline latency"}, lat_fmul, 1, 1000);
  param(v, {"lat_cmp", "cycles", "compare (mask-setting) pipeline latency"}, lat_cmp, 1, 1000);
  param(v, {"lat_control", "cycles", "setvl, setvs and mask-register instructions"}, lat_control, 1, 1000);
  visit_clock(v);
}

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

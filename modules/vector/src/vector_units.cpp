// The vector unit's function units: which unit runs an instruction and its latency, the
// element arithmetic, the active elements under the mask, and the element operations
// counted over time.
#include "flynn/vector/vector_unit.h"

#include <algorithm>
#include <cstring>

#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "vector_unit_parts.h"

namespace flynn {

using vec::op;


vector_unit::fu vector_unit::unit_of(op o) const {
  switch (o) {
    case op::vadd: case op::vsub: return fu::add;
    case op::vand: case op::vor: case op::vxor: return fu::logic;
    case op::vshl: case op::vshr: case op::vsra: return fu::shift;
    case op::vmul: return fu::mul;
    case op::vdiv: return fu::div;
    case op::vfadd: case op::vfsub: return fu::fadd;
    case op::vfmul: return fu::fmul;
    default: return fu::cmp;
  }
}

unsigned vector_unit::latency_of(fu u) const {
  switch (u) {
    case fu::add: return p_.lat_add;
    case fu::logic: return p_.lat_logic;
    case fu::shift: return p_.lat_shift;
    case fu::mul: return p_.lat_mul;
    case fu::div: return p_.lat_div;
    case fu::fadd: return p_.lat_fadd;
    case fu::fmul: return p_.lat_fmul;
    default: return p_.lat_cmp;
  }
}

namespace {
}  // namespace

std::uint64_t vector_unit::alu(op o, std::uint64_t a, std::uint64_t b) const {
  const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
  switch (o) {
    case op::vadd: return a + b;
    case op::vsub: return a - b;
    case op::vmul: return a * b;
    case op::vdiv:
      if (sb == 0) return 0;
      if (sa == INT64_MIN && sb == -1) return a;
      return static_cast<std::uint64_t>(sa / sb);
    case op::vand: return a & b;
    case op::vor: return a | b;
    case op::vxor: return a ^ b;
    case op::vshl: return a << (b & 63);
    case op::vshr: return a >> (b & 63);
    case op::vsra: return static_cast<std::uint64_t>(sa >> (b & 63));
    case op::vfadd: return double_to_bits(bits_to_double(a) + bits_to_double(b));
    case op::vfsub: return double_to_bits(bits_to_double(a) - bits_to_double(b));
    case op::vfmul: return double_to_bits(bits_to_double(a) * bits_to_double(b));
    case op::vcmpeq: return a == b;
    case op::vcmpne: return a != b;
    case op::vcmplt: return sa < sb;
    case op::vcmpgt: return sa > sb;
    default: return 0;
  }
}

std::vector<unsigned> vector_unit::active_elements(bool masked) const {
  std::vector<unsigned> e;
  e.reserve(vl_);
  for (unsigned i = 0; i < vl_; ++i)
    if (!masked || p_.masking == mask_policy::simple || vm_[i]) e.push_back(i);
  return e;
}

void vector_unit::count_ops(std::uint64_t cycle, unsigned n) {
  if (!ops_started_) {
    ops_started_ = true;
    ops_base_ = ops_window_base_ = cycle;
  }
  const std::uint64_t c = std::max(cycle, ops_base_);  // elements start at or after their issue
  const std::size_t i = static_cast<std::size_t>(c - ops_window_base_);
  if (i >= ops_window_.size()) ops_window_.resize(i + 1, 0);
  ops_window_[i] = (ops_window_[i] ? ops_window_[i] : 1) + n;
}

// Folds the cycles before `before` into the histogram, up to the last one with element
// groups; cycles without any had none.
void vector_unit::flush_ops(std::uint64_t before) {
  const std::uint64_t end = before - std::min(before, ops_window_base_);  // (cycles before the window: none)
  const std::size_t stop = static_cast<std::size_t>(std::min<std::uint64_t>(end, ops_window_.size()));
  for (std::size_t i = static_cast<std::size_t>(ops_base_ - ops_window_base_); i < stop; ++i) {
    if (!ops_window_[i]) continue;
    const std::uint64_t cycle = ops_window_base_ + i;
    ops_hist_[0] += cycle - ops_base_;
    ++ops_hist_[std::min<std::size_t>(ops_window_[i] - 1, ops_hist_.size() - 1)];
    ops_base_ = cycle + 1;
  }
  const std::size_t folded = static_cast<std::size_t>(ops_base_ - ops_window_base_);
  if (folded > 256 && folded * 2 > ops_window_.size()) {
    ops_window_.erase(ops_window_.begin(), ops_window_.begin() + static_cast<std::ptrdiff_t>(folded));
    ops_window_base_ = ops_base_;
  }
}

}  // namespace flynn

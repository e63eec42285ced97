#include "lane_alu.h"

namespace flynn::simt {

namespace {
template <class T>
bool compare_as(cmp c, T x, T y) {
  switch (c) {
    case cmp::eq: return x == y;
    case cmp::ne: return x != y;
    case cmp::lt: return x < y;
    case cmp::le: return x <= y;
    case cmp::gt: return x > y;
    case cmp::ge: return x >= y;
  }
  return false;
}
}  // namespace

bool lane_compare(cmp c, type t, std::uint32_t a, std::uint32_t b) {
  if (t == type::f32) return compare_as(c, lane_float(a), lane_float(b));
  if (t == type::u32) return compare_as(c, a, b);
  return compare_as(c, static_cast<std::int32_t>(a), static_cast<std::int32_t>(b));
}

pipeline pipeline_of(op code) {
  switch (code) {
    case op::mul: case op::mulhi: case op::mad: case op::div: case op::rem: return pipeline::multiplier;
    case op::fdiv: case op::fsqrt: return pipeline::sfu;
    default: return pipeline::alu;
  }
}

}  // namespace flynn::simt

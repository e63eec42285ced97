#include "lane_alu.h"

#include <type_traits>

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

template <class T>
std::uint32_t compare_rows(cmp c, const std::uint32_t* a, const std::uint32_t* b) {
  const auto as = [](std::uint32_t x) {
    if constexpr (std::is_same_v<T, float>) return lane_float(x);
    else return static_cast<T>(x);
  };
  std::uint32_t m = 0;
  const auto each = [&](auto f) {
    for (unsigned l = 0; l < 32; ++l) m |= std::uint32_t(f(as(a[l]), as(b[l]))) << l;
  };
  switch (c) {
    case cmp::eq: each([](T x, T y) { return x == y; }); break;
    case cmp::ne: each([](T x, T y) { return x != y; }); break;
    case cmp::lt: each([](T x, T y) { return x < y; }); break;
    case cmp::le: each([](T x, T y) { return x <= y; }); break;
    case cmp::gt: each([](T x, T y) { return x > y; }); break;
    case cmp::ge: each([](T x, T y) { return x >= y; }); break;
  }
  return m;
}
}  // namespace

std::uint32_t compare_lanes(cmp c, type t, const std::uint32_t* a, const std::uint32_t* b) {
  if (t == type::f32) return compare_rows<float>(c, a, b);
  if (t == type::u32) return compare_rows<std::uint32_t>(c, a, b);
  return compare_rows<std::int32_t>(c, a, b);
}

bool lane_compare(cmp c, type t, std::uint32_t a, std::uint32_t b) {
  if (t == type::f32) return compare_as(c, lane_float(a), lane_float(b));
  if (t == type::u32) return compare_as(c, a, b);
  return compare_as(c, static_cast<std::int32_t>(a), static_cast<std::int32_t>(b));
}

pipeline pipeline_of(op code) {
  switch (code) {
    case op::mul: case op::mulhi: case op::mad: case op::div: case op::rem: case op::mul_wide: return pipeline::multiplier;
    case op::fdiv: case op::fsqrt: return pipeline::sfu;
    default: return pipeline::alu;
  }
}

}  // namespace flynn::simt

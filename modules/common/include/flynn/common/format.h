// Small formatting and bit helpers shared by the modules' reports and datapaths.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace flynn {

// "0x1f40": an address in fault reports.
inline std::string hex(std::uint64_t x) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(x));
  return b;
}

// Reinterpretation of a 64-bit register as IEEE binary64 and back.
inline double bits_to_double(std::uint64_t x) {
  double d;
  std::memcpy(&d, &x, sizeof d);
  return d;
}
inline std::uint64_t double_to_bits(double d) {
  std::uint64_t x;
  std::memcpy(&x, &d, sizeof x);
  return x;
}

}  // namespace flynn

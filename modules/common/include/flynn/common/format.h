// Formatting shared by the modules' reports.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace flynn {

// "0x1f40": an address in fault reports.
inline std::string hex(std::uint64_t x) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(x));
  return b;
}

}  // namespace flynn

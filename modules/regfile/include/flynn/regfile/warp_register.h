// A warp register of the modelled SIMT ISA: one 32-bit register in each of the warp's 32
// lanes. Register files move it as one 128-byte row, lane l's value at byte 4 l.
#pragma once

#include <cstdint>

namespace flynn {

constexpr unsigned warp_lanes = 32;
constexpr unsigned lane_register_bytes = sizeof(std::uint32_t);
constexpr unsigned warp_register_bytes = warp_lanes * lane_register_bytes;

}  // namespace flynn

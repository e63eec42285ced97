// Multi-lane requests: one generic payload carrying up to 32 per-lane addresses, as a GPU
// load/store unit sends to shared memory. The payload's data buffer holds one element of
// `lane_bytes` per lane, lane i at offset i * lane_bytes; its address is lane 0's (or the
// lowest active lane's) address, its data length lanes * lane_bytes.
//
// A target that does not know this extension would move data_length contiguous bytes at the
// payload's address instead: silently wrong unless the lanes are contiguous and all active.
// So the extension must be acknowledged: a target that moves the data lane by lane sets
// `acknowledged`, and an initiator treats a successful response without it as a fault.
#pragma once

#include <array>
#include <cstdint>

#include <tlm>

namespace flynn {

// The mask of lanes 0 .. n-1 (n <= 32): all of a request's lanes, or a warp's threads.
constexpr std::uint32_t first_lanes(unsigned n) { return n >= 32 ? 0xffffffffu : ((1u << n) - 1); }

class lanes_extension : public tlm::tlm_extension<lanes_extension> {
 public:
  static constexpr unsigned max_lanes = 32;

  std::array<std::uint64_t, max_lanes> address{};
  std::uint32_t active_mask = 0;  // bit i set: lane i takes part
  unsigned lanes = 0;             // lanes described (<= max_lanes)
  unsigned lane_bytes = 4;        // bytes per lane element
  bool acknowledged = false;      // set by the target when it honoured the lanes

  bool active(unsigned lane) const { return (active_mask >> lane) & 1u; }

  tlm::tlm_extension_base* clone() const override { return new lanes_extension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const lanes_extension&>(other);
  }
};

}  // namespace flynn

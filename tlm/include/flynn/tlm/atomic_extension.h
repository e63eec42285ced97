// Atomic read-modify-write requests: a read payload with a lanes extension, whose lanes'
// operands travel in this extension; the target applies `op` with each lane's operand to
// the lane's element at the cycle it reaches that element, and returns the old element in
// the lane's place in the data buffer (as a read returns data). Lanes of one request name
// distinct elements: an initiator sends the lanes that name the same element in separate
// requests, which the memory serves one after the other.
//
// A target that does not know the extension does a plain read (memory unchanged), so the
// extension must be acknowledged: an initiator treats a successful response without
// `acknowledged` as a fault. It is a read so that the base protocol holds (a target never
// changes a write's data).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include <tlm>

namespace flynn {

class atomic_extension : public tlm::tlm_extension<atomic_extension> {
 public:
  enum class operation : std::uint8_t { add, min, max, exch };
  enum class element : std::uint8_t { u32, s32, f32 };  // 4-byte elements

  operation op = operation::add;
  element type = element::u32;
  std::uint32_t operand[32] = {};  // per lane of the lanes extension
  bool acknowledged = false;  // set by the target when it applied the operation

  // The new value of an element holding `old` after the operation with `with`.
  std::uint32_t apply(std::uint32_t old, std::uint32_t with) const {
    switch (op) {
      case operation::exch: return with;
      case operation::add:
        if (type == element::f32) {
          float a, b;
          std::memcpy(&a, &old, 4);
          std::memcpy(&b, &with, 4);
          const float s = a + b;
          std::uint32_t r;
          std::memcpy(&r, &s, 4);
          return r;
        }
        return old + with;
      case operation::min:
      case operation::max: {
        const bool less = type == element::s32 ? static_cast<std::int32_t>(with) < static_cast<std::int32_t>(old)
                                               : with < old;
        return (op == operation::min) == less ? with : old;
      }
    }
    return old;
  }

  tlm::tlm_extension_base* clone() const override { return new atomic_extension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const atomic_extension&>(other); }
};

}  // namespace flynn

// IEEE floating-point values as the bit patterns registers and memory hold, and back:
// binary32 in 32 bits, binary64 in 64 bits. The bits are copied, never converted, so NaN
// payloads and signed zeros survive the round trip.
#pragma once

#include <cstdint>
#include <cstring>

namespace flynn {

// The object representation of `from` read as a `To` of the same size.
template <class To, class From>
To copy_bits(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "a bit pattern of the value's size");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

inline std::uint32_t float_to_bits(float f) { return copy_bits<std::uint32_t>(f); }
inline float bits_to_float(std::uint32_t x) { return copy_bits<float>(x); }
inline std::uint64_t double_to_bits(double d) { return copy_bits<std::uint64_t>(d); }
inline double bits_to_double(std::uint64_t x) { return copy_bits<double>(x); }

// The number of bits set in x (the lanes of a lane mask), inline whatever the host (the
// portable build has no population-count instruction and would call a library routine).
inline unsigned set_bits(std::uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
}

// Division by a divisor fixed at construction (a bank count, a word or segment size): a
// shift and a mask when it is a power of two, as those usually are; else the division.
class fixed_divisor {
 public:
  explicit fixed_divisor(std::uint64_t d = 1) : d_(d ? d : 1) {
    pow2_ = (d_ & (d_ - 1)) == 0;
    while (pow2_ && (std::uint64_t(1) << shift_) != d_) ++shift_;
  }
  std::uint64_t divisor() const { return d_; }
  std::uint64_t quotient(std::uint64_t x) const { return pow2_ ? x >> shift_ : x / d_; }
  std::uint64_t remainder(std::uint64_t x) const { return pow2_ ? x & (d_ - 1) : x % d_; }

 private:
  std::uint64_t d_;
  bool pow2_ = false;
  unsigned shift_ = 0;
};

}  // namespace flynn

#include "flynn/gmma/matrix_descriptor.h"

#include "flynn/common/format.h"

namespace flynn {

namespace {
unsigned swizzle_code(swizzle_mode m) {
  switch (m) {
    case swizzle_mode::b128: return 1;
    case swizzle_mode::b64: return 2;
    case swizzle_mode::b32: return 3;
    default: return 0;
  }
}
constexpr std::uint64_t field14 = 0x3fff;
}  // namespace

std::uint64_t matrix_descriptor::encode() const {
  return (std::uint64_t(start_address >> 4) & field14) | ((std::uint64_t(leading_byte_offset >> 4) & field14) << 16) |
         ((std::uint64_t(stride_byte_offset >> 4) & field14) << 32) | (std::uint64_t(base_offset & 7) << 49) |
         (std::uint64_t(swizzle_code(swizzle)) << 62);
}

std::string matrix_descriptor::decode(std::uint64_t bits, matrix_descriptor& out) {
  const std::uint64_t used = field14 | (field14 << 16) | (field14 << 32) | (std::uint64_t(7) << 49) | (std::uint64_t(3) << 62);
  if (bits & ~used) return "descriptor " + hex(bits) + ": reserved bits " + hex(bits & ~used) + " set";
  out.start_address = static_cast<std::uint32_t>((bits & field14) << 4);
  out.leading_byte_offset = static_cast<std::uint32_t>(((bits >> 16) & field14) << 4);
  out.stride_byte_offset = static_cast<std::uint32_t>(((bits >> 32) & field14) << 4);
  out.base_offset = static_cast<unsigned>((bits >> 49) & 7);
  static const swizzle_mode modes[] = {swizzle_mode::none, swizzle_mode::b128, swizzle_mode::b64, swizzle_mode::b32};
  out.swizzle = modes[(bits >> 62) & 3];
  return {};
}

std::string matrix_descriptor::validate() const {
  auto field = [](const char* name, std::uint32_t v) -> std::string {
    if (v % 16) return std::string(name) + " = " + std::to_string(v) + ": expected a multiple of 16 bytes";
    if ((v >> 4) > field14) return std::string(name) + " = " + std::to_string(v) + ": expected less than 256 KiB";
    return {};
  };
  for (const auto& e : {field("start address", start_address), field("leading byte offset", leading_byte_offset),
                        field("stride byte offset", stride_byte_offset)})
    if (!e.empty()) return e;
  if (base_offset > 7) return "base offset = " + std::to_string(base_offset) + ": expected 0 .. 7";
  // A swizzled operand starts on a pattern boundary unless the base offset says otherwise,
  // and its core-matrix rows must fit the swizzle span.
  if (swizzle != swizzle_mode::none) {
    const unsigned span = swizzle_span(swizzle);
    // The swizzle XORs address bits, so an operand may start a K offset into the first row
    // of a pattern (how successive K slices of one tile are addressed), but no further.
    if (base_offset == 0 && start_address % (span * 8) >= span)
      return "start address " + hex(start_address) + ": expected to lie in the first " + std::to_string(span) +
             "-byte row of a " + std::to_string(span * 8) + "-byte-aligned " + to_string(swizzle) +
             " swizzle pattern (or a base offset)";
    if (stride_byte_offset % span != 0)
      return "stride byte offset = " + std::to_string(stride_byte_offset) + ": expected a multiple of the " +
             std::to_string(span) + "-byte swizzle row";
  }
  return {};
}

}  // namespace flynn

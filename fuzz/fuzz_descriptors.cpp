// libFuzzer target: the wgmma matrix-descriptor decoder and validator with the operand
// address function, and the TMA tensor-descriptor validator with its sizes and swizzle.
#include <cstdint>
#include <cstring>

#include "flynn/gmma/wgmma.h"
#include "flynn/tma/tma_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return 0;
  std::uint64_t bits = 0;
  std::memcpy(&bits, data, 8);
  flynn::matrix_descriptor m;
  if (flynn::matrix_descriptor::decode(bits, m).empty() && m.validate().empty()) {
    if (m.encode() != bits) __builtin_trap();  // a valid descriptor round-trips
    for (unsigned row = 0; row < 256; row += 7)
      for (unsigned k = 0; k < 16; ++k) (void)flynn::wgmma_operand_address(m, row, k);
  }
  // The rest: a tensor descriptor, field by field.
  data += 8;
  size -= 8;
  auto take = [&](std::uint64_t& v, std::size_t n) {
    v = 0;
    if (size < n) return;
    std::memcpy(&v, data, n);
    data += n;
    size -= n;
  };
  flynn::tensor_descriptor d;
  std::uint64_t v = 0;
  take(v, 1);
  d.rank = static_cast<unsigned>(v % 8);
  take(v, 1);
  d.elem_bytes = static_cast<unsigned>(v % 16);
  take(v, 1);
  d.swizzle = static_cast<flynn::swizzle_mode>(v % 4);
  take(d.global_base, 8);
  for (unsigned i = 0; i < 5; ++i) {
    take(d.dims[i], 8);
    take(d.strides[i], 8);
    take(v, 4);
    d.box[i] = static_cast<std::uint32_t>(v);
  }
  if (d.validate().empty()) {
    (void)d.box_bytes();
    for (std::uint64_t off = 0; off < 4096; off += 48) (void)flynn::swizzle_offset(off, d.swizzle);
  }
  return 0;
}

// libsystemc refers to sc_main; libFuzzer (or replay_main.cpp) provides main, and nothing
// here elaborates SystemC.
extern "C" int sc_main(int, char*[]) { return 0; }

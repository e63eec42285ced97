// The traffic generator's request sequence (traffic_cursor: each stream's addresses, sizes
// and data, seeded) and the golden replay of a run's reads from it.
#include "flynn/traffic/traffic_generator.h"

#include <algorithm>
#include <cstring>

namespace flynn {

namespace {
std::uint64_t mix64(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

// ---------------------------------------------------------------------------- cursor

traffic_cursor::traffic_cursor(const traffic_generator_params& p) : p_(p) {}

std::uint64_t traffic_cursor::offset(std::int64_t delta) const {
  const traffic_stream& st = stream();
  if (st.range_bytes == 0) return st.base + static_cast<std::uint64_t>(delta);
  // delta modulo the range, in [0, range): one division, none for a range of a power of two.
  if (delta >= 0) return st.base + range_.remainder(static_cast<std::uint64_t>(delta));
  const std::uint64_t m = range_.remainder(std::uint64_t(0) - static_cast<std::uint64_t>(delta));
  return st.base + (m ? st.range_bytes - m : 0);
}

bool traffic_cursor::next() {
  if (started_) {
    ++i_;
    ++serial_;
  }
  started_ = true;
  while (s_ < p_.streams.size()) {
    const traffic_stream& st = p_.streams[s_];
    const std::uint64_t n = st.kind == stream_kind::indexed && st.count == 0
                                ? st.indices.size()
                                : st.count;
    if (i_ < n) break;
    ++s_;
    i_ = 0;
  }
  if (s_ >= p_.streams.size()) return false;
  const traffic_stream& st = stream();
  if (range_stream_ != s_) {
    range_ = fixed_divisor(st.range_bytes);
    range_stream_ = s_;
  }
  switch (st.kind) {
    case stream_kind::linear:
      // Two's-complement wrap-around (unsigned arithmetic) for huge strides.
      addr_ = offset(static_cast<std::int64_t>(i_ * static_cast<std::uint64_t>(st.stride)));
      break;
    case stream_kind::indexed:
      addr_ = st.base + st.indices[i_ % st.indices.size()] * st.size;
      break;
    case stream_kind::random: {
      const std::uint64_t slots = st.range_bytes / st.size;
      addr_ = st.base + (mix64(st.seed ^ mix64(i_)) % slots) * st.size;
      break;
    }
  }
  if (st.lanes) {
    lanes_.lanes = st.lanes;
    lanes_.lane_bytes = st.size;
    lanes_.active_mask = first_lanes(st.lanes);
    for (unsigned l = 0; l < st.lanes; ++l)
      lanes_.address[l] =
          st.base + swizzle_offset(addr_ - st.base + l * static_cast<std::uint64_t>(st.lane_stride), st.swizzle);
  }
  addr_ = st.base + swizzle_offset(addr_ - st.base, st.swizzle);
  return true;
}

void traffic_cursor::fill_data(unsigned char* dst) const {
  const std::size_t n = length();
  for (std::size_t b = 0; b < n; b += 8) {
    const std::uint64_t v = mix64(p_.data_seed ^ mix64(serial_ * 4096 + b / 8));
    if (n - b >= 8) {  // a whole word: a fixed count of byte stores, merged by the compiler
      for (std::size_t k = 0; k < 8; ++k) dst[b + k] = static_cast<unsigned char>(v >> (8 * k));
      continue;
    }
    for (std::size_t k = 0; b + k < n; ++k) dst[b + k] = static_cast<unsigned char>(v >> (8 * k));
  }
}

void traffic_cursor::footprint(issue_plan::footprint& f) const {
  f.write = stream().write;
  // A range past the top of the address space is clipped there.
  auto end = [](std::uint64_t a, std::uint64_t n) { return a + n < a ? UINT64_MAX : a + n; };
  if (!multi_lane()) {
    f.lo = addr_;
    f.hi = end(addr_, length());
    return;
  }
  for (unsigned l = 0; l < lanes_.lanes; ++l)
    if (lanes_.active(l))
      f.ranges.push_back({lanes_.address[l], end(lanes_.address[l], lanes_.lane_bytes)});
}

// (Eight bytes a step, little endian, then the bytes left one by one: a multiply per step.)
std::uint64_t read_digest(std::uint64_t serial, const unsigned char* data, std::size_t len) {
  std::uint64_t h = 0xcbf29ce484222325ull ^ len;
  std::size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    std::uint64_t w = 0;
    for (unsigned k = 0; k < 8; ++k) w |= std::uint64_t(data[i + k]) << (8 * k);  // (one load, merged)
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  for (; i < len; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return mix64(h ^ serial * 0xd6e8feb86659fd93ull);
}

// Golden model: a flat byte array, each request applied whole, in issue order. Lanes
// apply in lane order (for writes of several lanes to one word, the highest lane wins).
// Issue order is the only order there is to model: requests that overlap, one of them a
// write, are never in flight together (issue_plan), so a target cannot reorder them.
std::uint64_t traffic_golden_replay(const traffic_generator_params& p,
                                    std::vector<unsigned char>& image) {
  traffic_cursor c(p);
  std::vector<unsigned char> buf;
  std::uint64_t sum = 0;
  while (c.next()) {
    const std::size_t n = c.length();
    buf.assign(n, 0);
    const bool wr = c.stream().write;
    if (wr) c.fill_data(buf.data());
    auto apply = [&](std::uint64_t a, unsigned char* d, std::size_t len) {
      if (a >= image.size() || len > image.size() - a) return;  // faults are not replayed
      if (wr)
        std::memcpy(&image[a], d, len);
      else
        std::memcpy(d, &image[a], len);
    };
    if (c.multi_lane()) {
      const auto& lx = c.lanes();
      for (unsigned l = 0; l < lx.lanes; ++l)
        apply(lx.address[l], buf.data() + std::size_t(l) * lx.lane_bytes, lx.lane_bytes);
    } else {
      apply(c.address(), buf.data(), n);
    }
    if (!wr) sum += read_digest(c.index(), buf.data(), n);
  }
  return sum;
}

}  // namespace flynn

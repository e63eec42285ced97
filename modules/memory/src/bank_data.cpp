// The banked memory's data path: the data a request moves at the cycle the timing core
// (bank_timing.cpp) gives each word, writes queued for cycles still ahead of simulated time,
// and the race checks of reads against writes landing earlier.
#include <algorithm>
#include <cstring>
#include <tuple>

#include "banked_memory_ports.h"
#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "flynn/tlm/atomic_extension.h"
#include "flynn/tlm/lanes_extension.h"
#include "flynn/tlm/wavefront_extension.h"

namespace flynn {

// Data moves word by word at the cycle of the wavefront that carries the word: a write
// takes effect then, a read samples the word as it is then. Writes for a cycle still ahead of
// simulated time (an LT initiator running ahead) wait in `pending_` and reads for later
// cycles see them; a read for an earlier cycle does not.
void banked_memory::move_data(tlm::tlm_generic_payload& gp, const request_ext& x, unsigned port, bool answer_later) {
  const bool rd = gp.is_read();
  unsigned char* d = gp.get_data_ptr();
  const unsigned wb = p_.word_bytes;
  // A single-port memory serves its requests in order: the bytes move at once, as a block.
  // It queues no writes either, so it needs neither the current cycle nor to land any.
  const bool in_order = ports_.size() == 1;
  const std::uint64_t now = in_order ? 0 : to_cycles(flynn::sim_now());
  if (!in_order) commit_until(now);
  auto one = [&](std::uint64_t a, unsigned char* buf, std::size_t n) {
    if (in_order) {
      if (rd) std::memcpy(buf, &data_[a], n);
      else std::memcpy(&data_[a], buf, n);
      return;
    }
    for (std::uint64_t w = word_.quotient(a), last = word_.quotient(a + n - 1); w <= last; ++w) {
      const std::uint64_t lo = std::max(a, w * wb), hi = std::min(a + n, (w + 1) * wb);
      unsigned char* b = buf + (lo - a);
      const std::uint64_t when = one_wavefront_ ? passes_[0] : word_cycle(w);
      if (rd) {
        std::memcpy(b, &data_[lo], hi - lo);
        if (!pending_.empty() && pending_.first(w) != pending_.none) overlay(w, when, lo, hi, b);
        if (answer_later) {
          new_watches_.emplace_back(w, watch_.add(w, read_watch{when, lo, hi, b}));
        } else if (p_.lt_race_fault && when >= now) {
          lt_reads_.remove_if(w, [now](const lt_read& r) { return r.cycle < now; });  // past: cannot race
          lt_reads_.add(w, lt_read{when, now, port});
        }
      } else {
        write_word(w, when, lo, hi, b, port, now);
      }
    }
  };
  std::uint64_t moved = 0;
  if (auto* ax = x.atomic) {  // (admit checked it: lanes of 4-byte elements)
    // Each lane's element is read, modified and written at the cycle of the wavefront that
    // carries its word; the old element goes back in the lane's place.
    ax->acknowledged = true;
    lanes_extension& lx = *x.lanes;
    for (unsigned l = 0; l < lx.lanes; ++l) {
      if (!lx.active(l)) continue;
      const std::uint64_t a = lx.address[l], w = word_.quotient(a);
      unsigned char* b = d + std::size_t(l) * 4;
      std::uint32_t old = 0;
      const std::uint32_t operand = ax->operand[l];
      const std::uint64_t when = in_order ? now : one_wavefront_ ? passes_[0] : word_cycle(w);
      std::memcpy(&old, &data_[a], 4);
      if (!in_order && !pending_.empty() && pending_.first(w) != pending_.none)
        overlay(w, when, a, a + 4, reinterpret_cast<unsigned char*>(&old));
      const std::uint32_t now_value = ax->apply(old, operand);
      std::memcpy(b, &old, 4);
      if (in_order) std::memcpy(&data_[a], &now_value, 4);
      else write_word(w, when, a, a + 4, reinterpret_cast<const unsigned char*>(&now_value), port, now);
      ++atomics_;
      moved += 4;
    }
    lx.acknowledged = true;
    ++reads_;  // (a read that also writes: counted once, as a read, its bytes both ways)
    bytes_read_ += moved;
    bytes_written_ += moved;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (auto* lx = x.lanes; lx && in_order && range_.second != 0) {
    // The active lanes are one run at consecutive addresses (reserve found): one block.
    lx->acknowledged = true;  // the lanes were honoured (initiators check this)
    const unsigned first_lane = static_cast<unsigned>(__builtin_ctz(lx->active_mask & first_lanes(lx->lanes)));
    one(range_.first, d + std::size_t(first_lane) * lx->lane_bytes, range_.second);
    moved = range_.second;
  } else if (lx) {
    lx->acknowledged = true;  // the lanes were honoured (initiators check this)
    const unsigned lb = lx->lane_bytes;
    for (unsigned l = 0; l < lx->lanes; ++l)
      if (lx->active(l)) {
        // In order, a run of active lanes at consecutive addresses moves as one block.
        unsigned k = l + 1;
        if (in_order)
          while (k < lx->lanes && lx->active(k) && lx->address[k] == lx->address[k - 1] + lb) ++k;
        one(lx->address[l], d + std::size_t(l) * lb, std::size_t(k - l) * lb);
        moved += std::uint64_t(k - l) * lb;
        l = k - 1;
      }
  } else {
    one(gp.get_address(), d, gp.get_data_length());
    moved = gp.get_data_length();
  }
  if (rd) {
    ++reads_;
    bytes_read_ += moved;
  } else {
    ++writes_;
    bytes_written_ += moved;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

// The cycle at which the last request reserved (of several wavefronts) moves word w; 0 for a
// word it does not move.
std::uint64_t banked_memory::word_cycle(std::uint64_t w) const {
  if (!when_flat_.empty()) {
    const std::uint64_t i = w - when_base_;  // (a word below when_base_ wraps: beyond the table)
    return i < when_flat_.size() ? when_flat_[i] : 0;
  }
  if (word_when_.empty()) return 0;
  const auto it = std::lower_bound(word_when_.cbegin(), word_when_.cend(), std::make_pair(w, std::uint64_t(0)));
  return it != word_when_.cend() && it->first == w ? it->second : 0;
}

// Bytes [lo, hi) of word w, written at cycle `when` (`now`: the current cycle): at once when
// that cycle has come and no earlier write to the word waits, else queued.
void banked_memory::write_word(std::uint64_t w, std::uint64_t when, std::uint64_t lo, std::uint64_t hi,
                               const unsigned char* src, unsigned port, std::uint64_t now) {
  if (!lt_reads_.empty()) check_lt_reads(w, when, port, now);
  if (when <= now && (pending_.empty() || pending_.first(w) == pending_.none)) {
    std::memcpy(&data_[lo], src, hi - lo);
    if (!watch_.empty()) refresh_watchers(w, when);
    return;
  }
  if (dmi_granted_) invalidate_dmi();  // a DMI pointer would not see this write until it lands
  const std::uint32_t slot = pending_.add(w);
  pending_write& pw = pending_[slot];
  pw.cycle = when;
  pw.seq = write_seq_++;
  pw.addr = lo;
  pw.len = static_cast<unsigned>(hi - lo);
  if (pw.len <= pw.small.size())
    std::memcpy(pw.small.data(), src, pw.len);
  else
    pw.large.assign(src, src + pw.len);
  commit_order_.add(when, {w, slot});
  if (!watch_.empty()) refresh_watchers(w, when);
}

// A write to word w landing at cycle `when`, granted after an LT read that reads the word at
// that cycle or later: the read was answered when it was granted and cannot see the write,
// which the hardware's read would return. The write was made before the read completed, so
// nothing in the program orders the two: a race, reported as a simulated fault naming both.
// (An AT read is answered at its response and sees the write: see refresh_watchers.)
void banked_memory::check_lt_reads(std::uint64_t w, std::uint64_t when, unsigned port, std::uint64_t now) {
  // The latest of the racing reads is reported (the word's reads come newest first).
  std::uint32_t racing = lt_reads_.none;
  for (std::uint32_t s = lt_reads_.first(w); s != lt_reads_.none && racing == lt_reads_.none; s = lt_reads_.next(s)) {
    const lt_read& r = lt_reads_[s];
    // (A read of a past cycle cannot race: no later write lands before it.)
    if (r.cycle >= now && r.cycle >= when && r.port != port) racing = s;
  }
  if (racing != lt_reads_.none && race_.empty()) {
    const lt_read& r = lt_reads_[racing];
    race_ = "race on the word at " + hex(w * p_.word_bytes) + ": a read through " + ports_[r.port]->socket->name() +
          " (granted at cycle " + std::to_string(r.granted) + ") reads it at cycle " + std::to_string(r.cycle) +
          ", and a write through " + ports_[port]->socket->name() + " granted after it lands at cycle " +
          std::to_string(when) + ", no later: the write was made before the read completed, so nothing orders "
          "the two. The read was a b_transport call, answered when granted, so it cannot return the written value "
          "the hardware would (an AT read would)";
    race_ev_.notify(sc_core::SC_ZERO_TIME);  // reported from a thread (this may run in the arbiter method)
  }
}

// A write to word w landing at cycle `when`, granted after AT reads that read the word at
// that cycle or later and are not answered yet: their bytes are read again as the word is
// at their cycles. (The array holds the writes of cycles up to now, and every write a read
// can see lands at the read's cycle or earlier, so it is the array plus the queued writes
// up to the read's cycle.)
void banked_memory::refresh_watchers(std::uint64_t w, std::uint64_t when) {
  for (std::uint32_t s = watch_.first(w); s != watch_.none; s = watch_.next(s)) {
    const read_watch& r = watch_[s];
    if (r.cycle < when) continue;
    std::memcpy(r.dst, &data_[r.lo], r.hi - r.lo);
    overlay(w, r.cycle, r.lo, r.hi, r.dst);
  }
}

// Removes a read's watch records (its data are final) and keeps the emptied list's capacity.
void banked_memory::unwatch(watch_list& records) {
  for (const auto& [w, slot] : records) watch_.remove(w, slot);
  records.clear();
  spare_watch_lists_.push_back(std::move(records));
}

// A read of bytes [lo, hi) of word w at cycle `when` sees the queued writes up to then, in
// (cycle, order) order.
void banked_memory::overlay(std::uint64_t w, std::uint64_t when, std::uint64_t lo, std::uint64_t hi,
                            unsigned char* dst) const {
  std::uint32_t s = pending_.first(w);
  if (s == pending_.none) return;
  std::vector<const pending_write*>& seen = overlay_scratch_;
  seen.clear();
  for (; s != pending_.none; s = pending_.next(s))
    if (pending_[s].cycle <= when) seen.push_back(&pending_[s]);
  std::sort(seen.begin(), seen.end(), [](const pending_write* x, const pending_write* y) {
    return std::tie(x->cycle, x->seq) < std::tie(y->cycle, y->seq);
  });
  for (const pending_write* pw : seen) {
    const std::uint64_t a = std::max(lo, pw->addr), b = std::min(hi, pw->addr + pw->len);
    if (a < b) std::memcpy(dst + (a - lo), pw->bytes() + (a - pw->addr), b - a);
  }
}

// Lands the queued writes of cycles up to `cycle` in the array, in (cycle, order) order.
void banked_memory::commit_until(std::uint64_t cycle) const {
  commit_order_.take_through(cycle, [this](const landing& l) {
    const pending_write& pw = pending_[l.slot];
    std::memcpy(&data_[pw.addr], pw.bytes(), pw.len);
    pending_.remove(l.word, l.slot);
  });
}

}  // namespace flynn

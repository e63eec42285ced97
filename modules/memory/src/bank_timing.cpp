// The banked memory's timing core: when a request arrives and is admitted, and which banks
// and port cycles it reserves (wavefronts, conflicts). The data it moves at those cycles are
// in bank_data.cpp.
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

// ---------------------------------------------------------------------------- timing core

std::uint64_t banked_memory::arrival_cycle(const sc_core::sc_time& delay) const {
  return to_cycles_ceil(flynn::sim_now() + delay);  // a request between edges is taken at the next edge
}

banked_memory::request_ext banked_memory::extensions_of(tlm::tlm_generic_payload& gp) {
  return {gp.get_extension<atomic_extension>(), gp.get_extension<lanes_extension>()};
}

bool banked_memory::admit(tlm::tlm_generic_payload& gp, const port_state& ps, const request_ext& x) const {
  const auto cmd = gp.get_command();
  if ((cmd == tlm::TLM_READ_COMMAND && ps.kind == port_kind::store) ||
      (cmd == tlm::TLM_WRITE_COMMAND && ps.kind == port_kind::load)) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return false;
  }
  if (gp.get_byte_enable_ptr() != nullptr) {
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  const std::uint64_t len = gp.get_data_length();
  if (gp.get_streaming_width() < len) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  if (len == 0 || gp.get_data_ptr() == nullptr) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return false;
  }
  // An atomic request: a read whose lanes name 4-byte elements, each inside one word.
  if (x.atomic) {
    const auto* lx = x.lanes;
    if (ps.kind != port_kind::shared) {  // it reads and writes: a one-way port refuses it
      gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return false;
    }
    if (cmd != tlm::TLM_READ_COMMAND || !lx || lx->lane_bytes != 4 || p_.word_bytes < 4) {
      gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return false;
    }
    for (unsigned l = 0; l < lx->lanes && l < lanes_extension::max_lanes; ++l)
      if (lx->active(l) && lx->address[l] % 4) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return false;
      }
  }
  if (const auto* lx = x.lanes) {
    if (lx->lanes == 0 || lx->lanes > lanes_extension::max_lanes || lx->lane_bytes == 0 ||
        len != std::uint64_t(lx->lanes) * lx->lane_bytes) {
      gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return false;
    }
    // A lane is out of range when its address is beyond size_bytes - lane_bytes: it is
    // enough to look at the highest active address.
    std::uint64_t highest = 0;
    for (unsigned l = 0; l < lx->lanes; ++l)
      highest = std::max(highest, lx->active(l) ? lx->address[l] : 0);
    if (lx->active_mask & first_lanes(lx->lanes) &&
        (highest >= p_.size_bytes || lx->lane_bytes > p_.size_bytes - highest)) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return false;
    }
    return true;
  }
  const std::uint64_t a = gp.get_address();
  if (a >= p_.size_bytes || len > p_.size_bytes - a) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  return true;
}

// The usual request: its words are one run of consecutive words (one range, or lanes at
// consecutive addresses) in distinct banks. Then it is one wavefront over those banks, and
// wave_banks_ lists them (one per word); false for any other request (collect_words).
bool banked_memory::one_range_banks(tlm::tlm_generic_payload& gp, const lanes_extension* lx) {
  range_ = {0, 0};
  std::uint64_t a = gp.get_address(), len = gp.get_data_length();
  if (lx) {
    const std::uint32_t m = lx->active_mask & first_lanes(lx->lanes);
    if (m == 0) return false;
    // The active lanes must be one run l .. k-1 at consecutive addresses.
    const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
    const std::uint32_t run = m >> l;
    if (run & (run + 1)) return false;  // a gap in the active lanes
    const unsigned k = l + set_bits(run);
    bool consecutive = true;
    for (unsigned i = l + 1; i < k; ++i) consecutive &= lx->address[i] == lx->address[i - 1] + lx->lane_bytes;
    if (!consecutive) return false;
    a = lx->address[l];
    len = std::uint64_t(k - l) * lx->lane_bytes;
  }
  const std::uint64_t first = word_.quotient(a), n = word_.quotient(a + len - 1) - first + 1;
  range_ = {a, len};  // (one range: move_data may move it as one block)
  if (n > p_.banks) return false;
  wave_words_ = n;
  if (p_.banks <= 64) {  // the banks as a mask; distinct: as many bits as words
    if (mapping_->run_mask(first, n, wave_mask_)) return true;
    wave_banks_.resize(n);
    mapping_->banks_of(first, n, wave_banks_.data());
    wave_mask_ = 0;
    for (const unsigned b : wave_banks_) wave_mask_ |= std::uint64_t(1) << b;
    return static_cast<std::uint64_t>(__builtin_popcountll(wave_mask_)) == n;
  }
  wave_banks_.resize(n);
  mapping_->banks_of(first, n, wave_banks_.data());
  if (++bank_stamp_ == 0) {  // (wrapped: start the marks afresh)
    std::fill(bank_seen_.begin(), bank_seen_.end(), 0);
    bank_stamp_ = 1;
  }
  for (const unsigned b : wave_banks_) {
    if (bank_seen_[b] == bank_stamp_) return false;
    bank_seen_[b] = bank_stamp_;
  }
  return true;
}

void banked_memory::collect_words(tlm::tlm_generic_payload& gp, const lanes_extension* lx) {
  scratch_.clear();
  bool ordered = true;  // (bank, word) strictly increasing so far: nothing to sort or merge
  auto add_range = [&](std::uint64_t a, std::uint64_t len) {
    const std::uint64_t first = word_.quotient(a), n = word_.quotient(a + len - 1) - first + 1;
    bank_scratch_.resize(n);
    mapping_->banks_of(first, n, bank_scratch_.data());
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::pair<unsigned, std::uint64_t> x(bank_scratch_[i], first + i);
      if (ordered && !scratch_.empty() && !(scratch_.back() < x)) ordered = false;
      scratch_.push_back(x);
    }
  };
  if (lx) {
    for (unsigned l = 0; l < lx->lanes; ++l)
      if (lx->active(l)) {  // a run of active lanes at consecutive addresses is one range
        unsigned k = l + 1;
        while (k < lx->lanes && lx->active(k) && lx->address[k] == lx->address[k - 1] + lx->lane_bytes) ++k;
        add_range(lx->address[l], std::uint64_t(k - l) * lx->lane_bytes);
        l = k - 1;
      }
  } else {
    add_range(gp.get_address(), gp.get_data_length());
  }
  if (!ordered) sort_words();
}

// Sorts scratch_ by (bank, word) and drops repeated words (lanes reading the same word share
// one access: a broadcast): the words are spread into their banks, then each bank's few are
// put in order.
void banked_memory::sort_words() {
  bank_counts_.assign(p_.banks + 1, 0);
  for (const auto& bw : scratch_) ++bank_counts_[bw.first + 1];
  for (unsigned b = 0; b < p_.banks; ++b) bank_counts_[b + 1] += bank_counts_[b];
  sorted_.resize(scratch_.size());
  for (const auto& bw : scratch_) sorted_[bank_counts_[bw.first]++] = bw;  // (counts now hold each bank's end)
  std::size_t out = 0, begin = 0;
  for (unsigned b = 0; b < p_.banks; ++b) {
    const std::size_t end = bank_counts_[b];
    // Insertion sort of the bank's words (a handful, mostly in order already).
    for (std::size_t i = begin + 1; i < end; ++i)
      for (std::size_t j = i; j > begin && sorted_[j].second < sorted_[j - 1].second; --j) std::swap(sorted_[j], sorted_[j - 1]);
    for (std::size_t i = begin; i < end; ++i)
      if (i == begin || sorted_[i].second != sorted_[i - 1].second) scratch_[out++] = sorted_[i];
    begin = end;
  }
  scratch_.resize(out);
}

// Wavefront j carries the j-th distinct word of every bank the request touches. A
// wavefront issues one cycle after the previous one at the earliest and only when each of
// its banks is free for the bank's busy time; data is back `latency` cycles after the last
// wavefront issued. A port serves one request at a time: the request holds it from the
// cycle it is taken to its last wavefront. Banks and ports keep occupancy calendars, so a
// request is delayed only by what occupies them at its own cycles (see the arbitration
// rule in docs/modules/banked_memory.md).
banked_memory::timing banked_memory::reserve(port_state& ps, tlm::tlm_generic_payload& gp,
                                             const lanes_extension* lx, std::uint64_t arrival, unsigned latency) {
  if (p_.ideal) return reserve_ideal(ps, gp, arrival);
  const bool direct = one_range_banks(gp, lx);
  if (!direct) collect_words(gp, lx);
  const std::size_t group = p_.multiported_banks ? ps.adapter.index : 0;
  const std::size_t bank_base = group * p_.banks;
  const std::uint64_t busy = p_.busy_cycles();
  forget_past();

  const std::size_t max_run = plan_waves(direct);
  // The one wavefront's banks, f(bank) each (by mask with at most 64 banks).
  const bool every_bank = p_.banks <= 64 && wave_mask_ == all_banks_;  // (a whole-width request)
  const auto each_wave_bank = [this, every_bank](auto f) {
    if (every_bank) {  // one loop
      for (unsigned b = 0; b < p_.banks; ++b) f(b);
    } else if (p_.banks <= 64) {
      for (std::uint64_t m = wave_mask_; m; m &= m - 1) f(static_cast<unsigned>(__builtin_ctzll(m)));
    } else {
      for (const unsigned b : wave_banks_) f(b);
    }
  };
  const std::size_t words = max_run == 1 ? wave_words_ : scratch_.size();
  // One wavefront: the end of the latest booking of its banks (from then on all are free).
  std::uint64_t banks_free_at = 0;
  if (max_run == 1 && every_bank) {
    banks_free_at = group_end_[group];
  } else if (max_run == 1) {
    banks_free_at = full_end_[group];
    each_wave_bank([&](unsigned b) { banks_free_at = std::max(banks_free_at, bank_end_[bank_base + b]); });
  }
  if (max_run != 1) book_waves();  // (the calendars are asked below)

  // The wavefront schedule if the port is taken at t0: each pass at the first cycle after
  // the previous one at which all of its banks are free (a bank's own earlier passes in this
  // request included, as they are not booked yet).
  auto schedule = [&](std::uint64_t t0) {
    passes_.resize(max_run);  // (each pass is set below before it is read)
    if (max_run == 1) {  // one word per bank (the usual case): one wavefront, every run one word
      std::uint64_t when = t0;
      if (when < banks_free_at) book_waves();  // (the calendars are asked)
      for (std::uint64_t before = UINT64_MAX; when < banks_free_at && before != when;) {
        before = when;
        each_wave_bank([&](unsigned b) { when = banks_[bank_base + b].first_free(when, busy); });
      }
      return passes_[0] = when;
    }
    std::uint64_t prev = 0;
    for (std::size_t pass = 0; pass < max_run; ++pass) {
      std::uint64_t when = pass == 0 ? t0 : prev + 1;
      for (std::uint64_t before = UINT64_MAX; before != when;) {  // until every bank is free at `when`
        before = when;
        for (std::size_t r = 0; r + 1 < runs_.size(); ++r) {
          if (runs_[r] + pass >= runs_[r + 1]) continue;
          when = banks_[bank_base + scratch_[runs_[r]].first].first_free(when, busy);
          if (pass > 0) when = std::max(when, passes_[pass - 1] + busy);  // its word of the previous pass
        }
      }
      passes_[pass] = prev = when;
    }
    return prev;  // the last wavefront
  };
  // The port: the first cycle from `arrival` at which it is free for the whole request.
  std::uint64_t t0 = ps.calendar.first_free(arrival, 1), last = schedule(t0);
  for (std::uint64_t at; (at = ps.calendar.first_free(t0, last + 1 - t0)) != t0;) {
    t0 = at;
    last = schedule(t0);
  }
  // Port stall: cycles the port was still issuing an earlier request's extra wavefronts.
  // (Waiting in line one request per cycle, or behind a request stalled on a bank, is the
  // bank's stall, counted there.) The same for LT and AT traffic.
  std::uint64_t prev_first = 0;
  std::uint64_t ready = arrival;
  if (ps.calendar.previous(t0, prev_first)) ready = std::max(arrival, prev_first + 1);
  if (t0 > ready) port_stall_ += t0 - ready;

  if (max_run == 1) {  // every word in the one wavefront
    const std::uint64_t when = passes_[0];
    if (when > t0) conflicts_ += wave_words_;
    // After everything its banks have booked and over at most 64 banks (the usual case):
    // one booking for all of them, put in their calendars only when one is asked.
    if (when >= banks_free_at && p_.banks <= 64) {
      waves_.push_back({when, when + busy, wave_mask_, bank_base});
      if (every_bank)
        full_end_[group] = when + busy;  // (the group's latest end: no bank's is later)
      else
        each_wave_bank([&](unsigned b) { bank_end_[bank_base + b] = when + busy; });
      each_wave_bank([&](unsigned b) { ++bank_accesses_[b]; });
    } else {
      book_waves();
      each_wave_bank([&](unsigned b) {
        banks_[bank_base + b].book(when, when + busy);
        bank_end_[bank_base + b] = std::max(bank_end_[bank_base + b], when + busy);
        ++bank_accesses_[b];
      });
    }
    group_end_[group] = std::max(group_end_[group], when + busy);
    if (tracing_) each_wave_bank([&](unsigned b) { record(bank_trace_[b], when, when + busy); });
  }
  // A conflict is a word access later than the fewest passes allow: the request's distinct
  // words need ceil(words / banks) passes whatever the mapping (pass p then at t0 + p * busy);
  // a word in a pass beyond those, or in a pass its banks delayed, waited for a bank.
  // (One wavefront has at most a word per bank: one pass, without a division.)
  const std::size_t min_passes = max_run == 1 ? 1 : std::max<std::size_t>(1, (words + p_.banks - 1) / p_.banks);
  if (max_run > 1) book_passes(max_run, min_passes, t0, group, busy);
  return served(ps, gp, arrival, t0, last, max_run, words, min_passes, latency);
}

// The request's wavefronts (the most words of one bank). scratch_ is sorted by bank: runs_
// marks where each bank's words begin. With one word per bank (the usual case, and every
// request one_range_banks served directly) there is one wavefront over the banks in
// wave_banks_ and wave_mask_: runs_ is not needed.
std::size_t banked_memory::plan_waves(bool direct) {
  std::size_t max_run = direct ? 1 : scratch_.empty() ? 0 : 1;
  for (std::size_t i = 1; !direct && i < scratch_.size() && max_run == 1; ++i)
    if (scratch_[i].first == scratch_[i - 1].first) max_run = 0;
  if (!direct && max_run == 1) {
    wave_banks_.clear();
    wave_mask_ = 0;
    for (const auto& bw : scratch_) wave_banks_.push_back(bw.first);
    for (const unsigned b : wave_banks_) wave_mask_ |= p_.banks <= 64 ? std::uint64_t(1) << b : 0;
    wave_words_ = wave_banks_.size();
  }
  if (max_run != 1) {
    runs_.clear();
    for (std::size_t i = 0; i < scratch_.size(); ++i)
      if (i == 0 || scratch_[i].first != scratch_[i - 1].first) runs_.push_back(i);
    runs_.push_back(scratch_.size());
    for (std::size_t r = 0; r + 1 < runs_.size(); ++r)
      max_run = std::max(max_run, runs_[r + 1] - runs_[r]);
  }
  return max_run;
}

// reserve for an ideal memory: no latency, no bank or port limits, every word at the
// arrival cycle.
banked_memory::timing banked_memory::reserve_ideal(port_state& ps, tlm::tlm_generic_payload& gp, std::uint64_t arrival) {
  passes_.assign(1, arrival);
  one_wavefront_ = true;
  word_when_.clear();
  when_flat_.clear();
  ++wavefronts_;
  ++port_requests_[ps.adapter.index];
  first_cycle_ = std::min(first_cycle_, arrival);
  last_cycle_ = std::max(last_cycle_, arrival);
  if (auto* served = gp.get_extension<wavefront_extension>()) served->wavefronts = 1;
  return {arrival, arrival};
}

// The banks of a request of several wavefronts (passes_ scheduled from t0), booked pass by
// pass; a word later than the fewest passes allow, or in a pass its banks delayed, is a
// conflict.
void banked_memory::book_passes(std::size_t max_run, std::size_t min_passes, std::uint64_t t0, std::size_t group,
                                std::uint64_t busy) {
  const std::size_t bank_base = group * p_.banks;
  for (std::size_t pass = 0; pass < max_run; ++pass) {
    const std::uint64_t when = passes_[pass];
    for (std::size_t r = 0; r + 1 < runs_.size(); ++r) {
      if (runs_[r] + pass >= runs_[r + 1]) continue;
      const unsigned bank = scratch_[runs_[r]].first;
      occupancy_calendar& cal = banks_[bank_base + bank];
      if (pass >= min_passes || when > t0 + pass * busy) ++conflicts_;
      cal.book(when, when + busy);
      bank_end_[bank_base + bank] = std::max(bank_end_[bank_base + bank], when + busy);
      group_end_[group] = std::max(group_end_[group], when + busy);
      ++bank_accesses_[bank];
      if (tracing_) record(bank_trace_[bank], when, when + busy);
    }
  }
}

// A reserved request's accounting: the cycle each word is accessed, its wavefronts, the
// port's booking from t0 to its last wavefront, its trace, timeline span and debug line;
// returns its first wavefront and its completion.
banked_memory::timing banked_memory::served(port_state& ps, tlm::tlm_generic_payload& gp, std::uint64_t arrival,
                                            std::uint64_t t0, std::uint64_t last, std::size_t max_run,
                                            std::size_t words, std::size_t min_passes, unsigned latency) {
  const std::uint64_t busy = p_.busy_cycles();
  // The cycle each word is accessed, for moving the data then (a single-port memory moves
  // it at once: its requests are served in order).
  // (One wavefront: every word at its cycle.)
  word_when_.clear();
  when_flat_.clear();
  one_wavefront_ = max_run == 1;
  if (ports_.size() > 1 && !one_wavefront_) {
    std::uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& bw : scratch_) {
      lo = std::min(lo, bw.second);
      hi = std::max(hi, bw.second);
    }
    const bool flat = hi - lo < 4 * scratch_.size() + 64;  // (words close together: a table by word)
    if (flat) {
      when_base_ = lo;
      when_flat_.assign(hi - lo + 1, 0);
    }
    for (std::size_t r = 0; r + 1 < runs_.size(); ++r)
      for (std::size_t i = runs_[r]; i < runs_[r + 1]; ++i)
        if (flat) when_flat_[scratch_[i].second - lo] = passes_[i - runs_[r]];
        else word_when_.emplace_back(scratch_[i].second, passes_[i - runs_[r]]);
    if (!flat) std::sort(word_when_.begin(), word_when_.end());
  }
  const std::uint64_t first = max_run ? passes_[0] : t0;
  wavefronts_ += max_run;
  if (auto* served = gp.get_extension<wavefront_extension>())  // the initiator counts wavefronts
    served->wavefronts = static_cast<unsigned>(max_run);
  word_accesses_ += words;
  const std::uint64_t done = last + latency;
  bank_stall_ += last - (t0 + (min_passes - 1) * busy);  // beyond the fewest passes, back to back
  ps.calendar.book(t0, last + 1, first);
  first_cycle_ = std::min(first_cycle_, first);
  last_cycle_ = std::max(last_cycle_, last);
  ++port_requests_[ps.adapter.index];
  if (tracing_) record(port_trace_[ps.adapter.index], t0, last + 1);
  if (timeline_)
    timeline_->span(name(), "port" + std::to_string(ps.adapter.index),
                    std::string(gp.is_read() ? "read " : "write ") + std::to_string(gp.get_data_length()) + " B",
                    ++spans_, to_time(arrival), to_time(done));
  if (debugging(debug_mem)) debug_request(ps.adapter.index, gp, arrival, words, max_run, first, done);
  return {first, done};
}

// A Mem debug line for a request (out of line: the timing path stays as it is).
void banked_memory::debug_request(std::size_t port, const tlm::tlm_generic_payload& gp, std::uint64_t arrival,
                                  std::uint64_t words, std::uint64_t wavefronts, std::uint64_t first,
                                  std::uint64_t done) const {
  std::string what = "port" + std::to_string(port) + " " + (gp.is_read() ? "read " : "write ") + hex(gp.get_address()) +
                     " " + std::to_string(gp.get_data_length()) + " B";
  if (const auto* lx = gp.get_extension<lanes_extension>())
    what += " lanes " + std::to_string(lx->lanes) + " x " + std::to_string(lx->lane_bytes) + " B mask " +
            hex(lx->active_mask);
  debug(debug_mem, arrival,
        what + ": " + std::to_string(words) + " words in " + std::to_string(wavefronts) + " wavefronts from cycle " +
            std::to_string(first) + ", data at " + std::to_string(done) + " (latency " + std::to_string(done - arrival) +
            ")");
}

// The one-wavefront bookings not in the bank calendars yet go there.
void banked_memory::book_waves() {
  for (const wave& w : waves_)
    for (std::uint64_t m = w.banks; m; m &= m - 1)
      banks_[w.bank_base + static_cast<unsigned>(__builtin_ctzll(m))].book(w.from, w.to);
  waves_.clear();
}

// Bookings that ended before the current cycle can no longer delay anyone: requests arrive
// at the current cycle or later.
void banked_memory::forget_past() {
  if (++since_forget_ < 256) return;
  since_forget_ = 0;
  const std::uint64_t now = std::max(to_cycles(flynn::sim_now()), served_alone_until_);
  for (auto& b : banks_) b.forget_before(now);
  waves_.erase(std::remove_if(waves_.begin(), waves_.end(), [now](const wave& w) { return w.to <= now; }), waves_.end());
  for (auto& ps : ports_) ps->calendar.forget_before(now);
  if (lt_reads_.size() > lt_reads_sweep_at_) {  // (each word's are also dropped when it gets a new one)
    lt_reads_.remove_all_if([now](const lt_read& r) { return r.cycle < now; });
    lt_reads_sweep_at_ = 2 * lt_reads_.size() + 4096;
  }
}

}  // namespace flynn

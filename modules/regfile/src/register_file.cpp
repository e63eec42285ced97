#include "flynn/regfile/register_file.h"

#include <algorithm>
#include <cstring>

namespace flynn {

param_footprint register_file_params::footprint() const {
  return {1024 * std::uint64_t(banks) + 64 * std::uint64_t(result_queue), 0};  // bank queues, result queue
}

register_file::register_file(const sc_core::sc_module_name& name, const params& p)
    : module(name, p.clock_ns), port("port"), operands("operands"), p_(p), busy_(p.banks) {
  port.register_b_transport(this, &register_file::b_transport);
  operands.bind(*this);
  SC_METHOD(land);
  sensitive << land_ev_;
  dont_initialize();
}

// The first cycle at or after t in which `bank` is free; reserves it.
std::uint64_t register_file::reserve(bank_slots& b, std::uint64_t t) {
  t = std::max(t, 64 * b.first_word);  // pruned cycles count as taken
  for (;; ++t) {
    const std::uint64_t w = t / 64 - b.first_word, bit = std::uint64_t(1) << (t % 64);
    if (w >= b.words.size()) b.words.resize(w + 1, 0);
    if (!(b.words[w] & bit)) {
      b.words[w] |= bit;
      return t;
    }
  }
}

void register_file::forget(bank_slots& b, std::uint64_t before, std::size_t signal) {
  std::size_t n = 0;
  while (n < b.words.size() && 64 * (b.first_word + n + 1) <= before) ++n;
  show(b, n, signal);
  b.words.erase(b.words.begin(), b.words.begin() + static_cast<std::ptrdiff_t>(n));
  b.first_word += n;
}

void register_file::show(const bank_slots& b, std::size_t words, std::size_t signal) {
  if (signal >= busy_sig_.size() || !busy_sig_[signal].enabled()) return;
  for (std::size_t k = 0; k < words && k < b.words.size(); ++k)
    for (unsigned bit = 0; bit < 64; ++bit) {
      const auto v = static_cast<std::uint8_t>((b.words[k] >> bit) & 1u);
      if (v == shown_[signal]) continue;
      busy_sig_[signal].set(to_time(64 * (b.first_word + k) + bit), v);
      shown_[signal] = v;
    }
}

void register_file::finish() {
  finish_writes();
  for (unsigned k = 0; k < p_.banks; ++k) show(busy_[k], busy_[k].words.size(), k);
  show(crossbar_, crossbar_.words.size(), p_.banks);
}

void register_file::attach_trace(trace_sink& sink) {
  busy_sig_.resize(p_.banks + 1);
  shown_.assign(p_.banks + 1, 0);
  for (unsigned k = 0; k < p_.banks; ++k) busy_sig_[k].attach(&sink, name(), "bank" + std::to_string(k) + "_busy", 1);
  if (p_.crossbar_bytes_per_cycle) busy_sig_[p_.banks].attach(&sink, name(), "crossbar_busy", 1);
}

// Forgets reservations far behind the latest request (no request arrives that late).
void register_file::prune(std::uint64_t t) {
  constexpr std::uint64_t keep = 1u << 16;
  horizon_ = std::max(horizon_, t);
  if (horizon_ < keep) return;
  const std::uint64_t old = horizon_ - keep;
  for (unsigned k = 0; k < p_.banks; ++k) forget(busy_[k], old, k);
  forget(crossbar_, old, p_.banks);
  while (queue_head_ < queue_.size() && queue_[queue_head_].enter < old) ++queue_head_;
  if (queue_head_ > 64 && queue_head_ * 2 > queue_.size()) {
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(queue_head_));
    queue_head_ = 0;
  }
}

void register_file::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  register_access_extension* x = nullptr;
  gp.get_extension(x);
  const bool write = gp.get_command() == tlm::TLM_WRITE_COMMAND;
  if (!x || x->registers.empty() || (!write && gp.get_command() != tlm::TLM_READ_COMMAND) ||
      gp.get_data_length() != x->registers.size() * warp_register_bytes || !gp.get_data_ptr()) {
    gp.set_response_status(x ? tlm::TLM_BURST_ERROR_RESPONSE : tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  unsigned char* data = gp.get_data_ptr();
  const std::uint64_t arrive = to_cycles_ceil(flynn::sim_now() + delay);
  std::uint64_t done = arrive;
  prune(arrive);
  if (p_.ideal) {  // every access completes at its arrival
    for (std::size_t k = 0; k < x->registers.size() && !write; ++k) read_register(*x, k, arrive, data);
    if (write) {
      ++write_requests_;
      writes_ += x->registers.size();
      land_at(*x, data, gp.get_data_length(), arrive);
    } else {
      ++read_requests_;
      reads_ += x->registers.size();
    }
    delay = to_time(arrive) - flynn::sim_now();
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  const unsigned* regs = x->registers.data();
  if (write) {
    done = write_timing(regs, x->registers.size(), arrive);
    land_at(*x, data, gp.get_data_length(), done);  // the values land when the request completes
  } else {
    done = read_timing(regs, x->registers.size(), arrive,
                       [&](std::size_t k, std::uint64_t slot) { read_register(*x, k, slot, data); });
  }
  delay = to_time(done) - flynn::sim_now();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

template <class F>
std::uint64_t register_file::read_timing(const unsigned* regs, std::size_t n, std::uint64_t arrive, F at_slot) {
  ++read_requests_;
  std::uint64_t first_read = UINT64_MAX, last_read = arrive;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint64_t slot = reserve(regs[k] % p_.banks, arrive);
    conflict_cycles_ += slot - arrive;
    first_read = std::min(first_read, slot);
    last_read = std::max(last_read, slot + 1);
    ++reads_;
    at_slot(k, slot);
  }
  std::uint64_t done = last_read + p_.crossbar_latency;
  if (p_.crossbar_bytes_per_cycle && n) {  // the values cross in whole cycles of the crossbar from the first read on
    const std::uint64_t bytes = std::uint64_t(n) * warp_register_bytes;
    const std::uint64_t cycles = (bytes + p_.crossbar_bytes_per_cycle - 1) / p_.crossbar_bytes_per_cycle;
    std::uint64_t t = first_read, last = first_read;
    for (std::uint64_t k = 0; k < cycles; ++k) {
      last = reserve(crossbar_, t);
      t = last + 1;
    }
    crossbar_cycles_ += cycles;
    const std::uint64_t crossed = last + 1 + p_.crossbar_latency;
    if (crossed > done) crossbar_wait_ += crossed - done;
    done = std::max(done, crossed);
  }
  return done;
}

// Each register takes a result-queue entry from its arrival until its bank accepts it; with
// the queue full it waits for the first entry to leave.
std::uint64_t register_file::write_timing(const unsigned* regs, std::size_t n, std::uint64_t arrive) {
  ++write_requests_;
  std::uint64_t done = arrive;
  for (std::size_t k = 0; k < n; ++k) {
    std::uint64_t t = arrive;
    for (;;) {
      unsigned occupied = 0;
      std::uint64_t first_leave = UINT64_MAX;
      // Only entries that entered within the longest stay so far can still be queued at t.
      const std::uint64_t since = t > longest_ ? t - longest_ : 0;
      for (auto it = std::lower_bound(queue_.begin() + static_cast<std::ptrdiff_t>(queue_head_), queue_.end(), since,
                                      [](const queue_entry& e, std::uint64_t c) { return e.enter < c; });
           it != queue_.end() && it->enter <= t; ++it)
        if (it->leave > t) {
          ++occupied;
          first_leave = std::min(first_leave, it->leave);
        }
      if (occupied < p_.result_queue) break;
      queue_full_cycles_ += first_leave - t;
      t = first_leave;
    }
    const std::uint64_t slot = reserve(regs[k] % p_.banks, t);
    conflict_cycles_ += slot - t;
    if (queue_.empty() || queue_.back().enter <= t)  // the usual case: in time order
      queue_.push_back({t, slot + 1});
    else
      queue_.insert(std::upper_bound(queue_.begin() + static_cast<std::ptrdiff_t>(queue_head_), queue_.end(), t,
                                     [](std::uint64_t c, const queue_entry& e) { return c < e.enter; }),
                    {t, slot + 1});
    longest_ = std::max(longest_, slot + 1 - t);
    done = std::max(done, slot + 1);
    ++writes_;
  }
  return done;
}

std::uint64_t register_file::read_operands(const unsigned* regs, std::size_t n, std::uint64_t t) {
  prune(t);
  operand_reads_ += n;
  if (p_.ideal) {
    ++read_requests_;
    reads_ += n;
    return t;
  }
  // (the core's pipeline latencies include an uncontended read: one bank cycle and the crossbar)
  const std::uint64_t at = read_timing(regs, n, t, [](std::size_t, std::uint64_t) {});
  return at - 1 - p_.crossbar_latency;
}

std::uint64_t register_file::write_results(const unsigned* regs, std::size_t n, std::uint64_t t) {
  prune(t);
  result_writes_ += n;
  if (p_.ideal) {
    ++write_requests_;
    writes_ += n;
    return t;
  }
  return write_timing(regs, n, t) - 1;  // (an uncontended write takes the bank in cycle t)
}

// A write's values land at `cycle`: at once if it has come, else they wait for it.
void register_file::land_at(const register_access_extension& x, const unsigned char* data, unsigned length,
                            std::uint64_t cycle) {
  std::unique_ptr<pending_write> wp;
  if (spare_.empty()) {
    wp = std::make_unique<pending_write>();
  } else {
    wp = std::move(spare_.back());
    spare_.pop_back();
  }
  pending_write& w = *wp;
  w.cycle = cycle;
  w.seq = write_seq_++;
  w.lanes = x.lanes;
  w.stride = x.register_stride;
  w.registers = x.registers;
  w.data.assign(data, data + length);
  if (to_time(cycle) <= flynn::sim_now()) {
    apply(w);
    spare_.push_back(std::move(wp));
    return;
  }
  // Only a write that waits is read through (overlay): its register index is made here.
  w.position.clear();
  if (!w.registers.empty()) {
    const auto [lo, hi] = std::minmax_element(w.registers.begin(), w.registers.end());
    w.lowest = *lo;
    w.position.assign(std::size_t(*hi - *lo) + 1, -1);
    // (a register named twice: the later value wins, as when the write lands)
    for (std::size_t j = 0; j < w.registers.size(); ++j) w.position[w.registers[j] - w.lowest] = std::int32_t(j);
  }
  const auto at = std::upper_bound(pending_.begin(), pending_.end(), cycle,
                                   [](std::uint64_t c, const std::unique_ptr<pending_write>& p) { return c < p->cycle; });
  const bool first = at == pending_.begin();
  index_pending(w);
  pending_.insert(at, std::move(wp));
  if (first) schedule_landing();
}

// Enters w in the lists of the registers it names (once each, however often it names one):
// after the writes of its cycle or earlier, as it is the latest write made.
void register_file::index_pending(const pending_write& w) {
  for (std::size_t j = 0; j < w.registers.size(); ++j) {
    const unsigned r = w.registers[j];
    if (w.find(r) != std::int32_t(j)) continue;  // (named again later)
    if (r >= by_register_.size()) by_register_.resize(std::size_t(r) + 1);
    auto& list = by_register_[r];
    const auto at = std::upper_bound(list.begin(), list.end(), w.cycle,
                                     [](std::uint64_t c, const pending_write* p) { return c < p->cycle; });
    list.insert(at, &w);
  }
}

// Takes the earliest pending write out of its registers' lists, where it is the first.
void register_file::unindex_pending(const pending_write& w) {
  for (std::size_t j = 0; j < w.registers.size(); ++j) {
    const unsigned r = w.registers[j];
    if (w.find(r) != std::int32_t(j)) continue;
    auto& list = by_register_[r];
    list.erase(list.begin());
  }
}

void register_file::apply(const pending_write& w) {
  for (std::size_t k = 0; k < w.registers.size(); ++k)
    for (unsigned l = 0; l < warp_lanes; ++l)
      if (w.lanes[l])
        std::memcpy(&w.lanes[l][std::size_t(w.registers[k]) * w.stride],
                    &w.data[warp_register_bytes * k + lane_register_bytes * l], lane_register_bytes);
}

// Wakes just before the first pending write's cycle (one time resolution earlier), so that
// every process at that cycle, the warps' own reads included, sees the values.
void register_file::schedule_landing() {
  if (pending_.empty()) return;
  const sc_core::sc_time at = to_time(pending_.front()->cycle), now = flynn::sim_now();
  const sc_core::sc_time before = at - sc_core::sc_get_time_resolution();
  land_ev_.cancel();
  land_ev_.notify(before > now ? before - now : sc_core::SC_ZERO_TIME);
}

void register_file::land() {
  const sc_core::sc_time horizon = flynn::sim_now() + sc_core::sc_get_time_resolution();
  while (!pending_.empty() && to_time(pending_.front()->cycle) <= horizon) {
    apply(*pending_.front());
    unindex_pending(*pending_.front());
    spare_.push_back(std::move(pending_.front()));
    pending_.pop_front();
  }
  schedule_landing();
}

void register_file::finish_writes() {
  for (auto& w : pending_) {
    apply(*w);
    spare_.push_back(std::move(w));
  }
  pending_.clear();
  for (auto& list : by_register_) list.clear();
}

// Register k of the request into its row of `data`, as its bank reads it at `slot`.
void register_file::read_register(const register_access_extension& x, std::size_t k, std::uint64_t slot,
                                  unsigned char* data) const {
  unsigned char* row = data + warp_register_bytes * k;
  for (unsigned l = 0; l < warp_lanes; ++l)
    if (x.lanes[l])
      std::memcpy(row + lane_register_bytes * l, &x.lanes[l][std::size_t(x.registers[k]) * x.register_stride],
                  lane_register_bytes);
  const unsigned reg = x.registers[k];
  if (reg < by_register_.size() && !by_register_[reg].empty()) overlay(x, k, slot, row);
}

void register_file::overlay(const register_access_extension& x, std::size_t k, std::uint64_t slot,
                            unsigned char* row) const {
  const unsigned reg = x.registers[k];
  const bool every_lane = std::all_of(x.lanes.begin(), x.lanes.end(), [](const std::uint32_t* p) { return p; });
  for (const pending_write* p : by_register_[reg]) {
    const pending_write& w = *p;
    if (w.cycle > slot) break;
    if (w.stride != x.register_stride) continue;
    const int j = w.find(reg);
    if (every_lane && w.lanes == x.lanes) {  // the same threads in the same lanes: the whole row
      std::memcpy(row, &w.data[warp_register_bytes * std::size_t(j)], warp_register_bytes);
      continue;
    }
    for (unsigned l = 0; l < warp_lanes; ++l)
      if (x.lanes[l] && w.lanes[l] == x.lanes[l])
        std::memcpy(row + lane_register_bytes * l, &w.data[warp_register_bytes * std::size_t(j) + lane_register_bytes * l],
                    lane_register_bytes);
  }
}

}  // namespace flynn

// DRAM timing stage: address mapping, per-pseudo-channel queues, the device's timing
// constraints and refresh, and the hand-off of each request to the data array at the cycle
// its data moves.
#include "flynn/memory/dram.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "flynn/common/bits.h"

namespace flynn {

// ---------------------------------------------------------------------------- parameters

param_footprint dram_params::footprint() const {
  // A calendar per bank and a queue per pseudo-channel.
  const std::uint64_t pcs = std::uint64_t(channels) * pseudo_channels;
  return {pcs * (64 * std::uint64_t(bank_groups) * banks + 256 * std::uint64_t(queue_depth) + 256), 0};
}

std::vector<param_issue> dram_params::check() const {
  std::vector<param_issue> r;
  require_power_of_two(r, "row_bytes", row_bytes);
  require_power_of_two(r, "burst_bytes", burst_bytes);
  require_power_of_two(r, "interleave_bytes", interleave_bytes);
  if (interleave_bytes < burst_bytes)
    r.push_back({"interleave_bytes", "at least burst_bytes (" + std::to_string(burst_bytes) + ")",
                 std::to_string(interleave_bytes)});
  if (interleave_bytes > row_bytes)
    r.push_back({"interleave_bytes", "at most row_bytes (" + std::to_string(row_bytes) + ")",
                 std::to_string(interleave_bytes)});
  if (refresh && tRFC >= tREFI)
    r.push_back({"tRFC", "less than tREFI (" + std::to_string(tREFI) + ")", std::to_string(tRFC)});
  return r;
}

// ---------------------------------------------------------------------------- construction

dram::dram(const sc_core::sc_module_name& name, const params& p)
    : timing_stage(name, p.clock_ns, p.ports), p_(p) {
  throw_if_invalid("dram", p_.check());
  set_ideal(p_.ideal, false);
  channels_.resize(p_.pseudo_channels_total());
  const unsigned pcs = p_.pseudo_channels_total();
  for (unsigned c = 0; c < pcs; ++c) {
    channel_state& ch = channels_[c];
    ch.banks.resize(std::size_t(p_.bank_groups) * p_.banks);
    ch.group_act.assign(p_.bank_groups, 0);
    ch.group_col.assign(p_.bank_groups, 0);
    // Refreshes staggered over the pseudo-channels: the c-th first at tREFI x (c + 1) / pcs.
    ch.next_refresh = std::uint64_t(p_.tREFI) * (c + 1) / pcs;
  }
  pc_bursts_.resize(pcs);
}

dram::location dram::locate(std::uint64_t a) const {
  std::uint64_t unit = a / p_.interleave_bytes;
  location l{};
  const unsigned pcs = p_.pseudo_channels_total();
  l.pc = static_cast<unsigned>(unit % pcs);
  unit /= pcs;
  l.bank_group = static_cast<unsigned>(unit % p_.bank_groups);
  unit /= p_.bank_groups;
  l.bank = static_cast<unsigned>(unit % p_.banks);
  unit /= p_.banks;
  l.row = unit / (p_.row_bytes / p_.interleave_bytes);
  return l;
}

// ---------------------------------------------------------------------------- scheduling

// The bursts of a request (each burst_bytes-aligned block it touches, in address order, once),
// then each on its pseudo-channel: the request enters every queue it uses once each has room
// (at most queue_depth requests between entry and completion; END_REQ then), its commands
// follow the front end, and it completes with its last burst's data.
void dram::schedule(request& r) {
  tlm::tlm_generic_payload& gp = *r.gp;
  const bool write = is_write(gp);
  const std::uint64_t bb = p_.burst_bytes;
  blocks_of(gp, bb, blocks_);
  (write ? writes_ : reads_) += 1;
  bytes_ += gp.get_data_length();
  // Entry (END_REQ): once every queue the request uses has room; its commands follow the
  // front end.
  std::uint64_t entry = r.arrival;
  used_.clear();
  for (const std::uint64_t b : blocks_) {
    const unsigned pc = locate(b * bb).pc;
    if (std::find(used_.begin(), used_.end(), pc) != used_.end()) continue;
    used_.push_back(pc);
    auto& q = channels_[pc].done;  // (completions of the requests in the queue, in order)
    q.erase(q.begin(), q.upper_bound(r.arrival));
    if (q.size() >= p_.queue_depth)
      entry = std::max(entry, *std::next(q.begin(), static_cast<std::ptrdiff_t>(q.size() - p_.queue_depth)));
  }
  queue_wait_ += entry - r.arrival;
  const std::uint64_t first = entry + p_.frontend_latency;
  std::uint64_t done = first;
  for (const std::uint64_t b : blocks_) {
    const location l = locate(b * bb);
    done = std::max(done, access(l.pc, l, write, first));
  }
  for (const unsigned pc : used_) channels_[pc].done.insert(done);
  if (!r.lt) end_req_at(r, entry);
  forward_at(r, done);
}

// The data array has answered at cycle `at`: the response goes up after the back end.
void dram::answered(request& r, std::uint64_t at) {
  latency_sum_ += at + p_.backend_latency - r.arrival;
  respond_at(r, at + p_.backend_latency);
}

// Refreshes of pseudo-channel c that start by cycle `until`: each precharges every bank
// (their rows close) and keeps them from activating for tRFC.
void dram::apply_refreshes(channel_state& c, std::uint64_t until) {
  if (!p_.refresh) return;
  while (c.next_refresh <= until) {
    // (It starts once every open bank may precharge: tRAS, tRTP and tWR hold.)
    std::uint64_t start = c.next_refresh;
    for (const bank_state& b : c.banks)
      if (b.open_row >= 0) start = std::max(start, b.ready_pre);
    const std::uint64_t end = start + p_.tRFC;
    for (bank_state& b : c.banks) {
      if (b.open_row >= 0) ++precharges_;
      b.open_row = -1;
      b.ready_act = std::max(b.ready_act, end);
    }
    ++refreshes_;
    c.next_refresh += p_.tREFI;
  }
}

// One column access of pseudo-channel `pc` at location `l`, not before cycle `earliest`, after
// every command scheduled before it (in-order per pseudo-channel); returns the cycle its data
// has moved.
std::uint64_t dram::access(unsigned pc, const location& l, bool write, std::uint64_t earliest) {
  channel_state& c = channels_[pc];
  bank_state& b = c.banks[std::size_t(l.bank_group) * p_.banks + l.bank];
  ++bursts_;
  ++pc_bursts_[pc];
  const unsigned lead = write ? p_.tCWL : p_.tCL;
  std::uint64_t act = 0, col = 0;
  bool hit = false;
  for (;;) {  // (a refresh that starts before the command closes the rows: look again)
    apply_refreshes(c, earliest);
    hit = b.open_row == static_cast<std::int64_t>(l.row);
    std::uint64_t ready_col = b.ready_col;
    if (!hit) {
      act = std::max(earliest, b.ready_act);
      if (b.open_row >= 0) act = std::max(act, std::max(earliest, b.ready_pre) + p_.tRP);
      if (c.any_act) act = std::max(act, c.last_act + p_.tRRD_S);
      if (c.group_act[l.bank_group]) act = std::max(act, c.group_act[l.bank_group] - 1 + p_.tRRD_L);
      if (c.acts_seen >= 4) act = std::max(act, c.acts[0] + p_.tFAW);
      ready_col = act + p_.tRCD;
    }
    // The column command: after the bank's row is open, tCCD after the last one (tCCD_L in
    // the same bank group), and early enough that its burst follows the last on the data bus.
    col = std::max(earliest, ready_col);
    if (c.any_col) col = std::max(col, c.last_col + p_.tCCD_S);
    if (c.group_col[l.bank_group]) col = std::max(col, c.group_col[l.bank_group] - 1 + p_.tCCD_L);
    if (c.bus_free > col + lead) col = c.bus_free - lead;
    if (p_.refresh && c.next_refresh <= col) {
      apply_refreshes(c, col);
      continue;
    }
    break;
  }
  if (hit) {
    ++row_hits_;
  } else {
    if (b.open_row >= 0) {
      ++row_conflicts_;
      ++precharges_;
    } else {
      ++row_misses_;
    }
    ++activates_;
    if (!act_sig_.empty()) act_sig_[pc].set(to_time(act), std::size_t(l.bank_group) * p_.banks + l.bank);
    b.open_row = static_cast<std::int64_t>(l.row);
    b.act_at = act;
    b.ready_col = act + p_.tRCD;
    b.ready_pre = act + p_.tRAS;
    c.last_act = act;
    c.any_act = true;
    c.group_act[l.bank_group] = act + 1;  // (0: none yet)
    if (c.acts_seen < 4) c.acts[c.acts_seen++] = act;
    else {
      std::rotate(c.acts.begin(), c.acts.begin() + 1, c.acts.end());
      c.acts[3] = act;
    }
  }
  const std::uint64_t data_end = col + lead + p_.tBL;
  c.last_col = col;
  c.any_col = true;
  c.group_col[l.bank_group] = col + 1;  // (0: none yet)
  c.bus_free = data_end;
  bus_cycles_ += p_.tBL;
  if (!burst_sig_.empty()) burst_sig_[pc].set(to_time(data_end), pc_bursts_[pc].value());
  const std::uint64_t pre_ok = write ? data_end + p_.tWR : col + p_.tRTP;
  b.ready_pre = std::max(b.ready_pre, pre_ok);
  if (p_.policy == page_policy::closed) {  // auto-precharge
    ++precharges_;
    b.open_row = -1;
    b.ready_act = std::max(b.ready_act, b.ready_pre + p_.tRP);
  }
  return data_end;
}

// ---------------------------------------------------------------------------- the rest

void dram::attach_trace(trace_sink& sink) {
  in_flight_sig_.attach(&sink, name(), "requests_in_flight", 16);
  act_sig_.resize(channels_.size());
  burst_sig_.resize(channels_.size());
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    act_sig_[c].attach(&sink, name(), "pc" + std::to_string(c) + "_act_bank", 8);
    burst_sig_[c].attach(&sink, name(), "pc" + std::to_string(c) + "_bursts", 32);
  }
}


}  // namespace flynn

// The banked memory's direct memory interface (DMI grants and invalidation), its debug
// transport and backdoor (peek, poke), and its latency setter.
#include "flynn/memory/banked_memory.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <sstream>
#include <tuple>

#include "banked_memory_ports.h"
#include "flynn/common/format.h"
#include "flynn/tlm/response_bound_extension.h"
#include "flynn/tlm/wavefront_extension.h"

namespace flynn {

// ---------------------------------------------------------------------------- DMI, debug

bool banked_memory::get_direct_mem_ptr(unsigned port, tlm::tlm_generic_payload& gp,
                                       tlm::tlm_dmi& dmi) {
  if (!p_.dmi) return false;
  const port_kind kind = ports_[port]->kind;
  const bool wants_write = gp.get_command() == tlm::TLM_WRITE_COMMAND;
  if (gp.get_address() >= p_.size_bytes) {  // no memory there: no grant (the range is what is known to be absent)
    dmi.set_start_address(p_.size_bytes);
    dmi.set_end_address(~sc_dt::uint64(0));
    dmi.allow_none();
    return false;
  }
  // A one-way port grants only its own direction; a request for the other one is refused.
  if ((kind == port_kind::load && wants_write) || (kind == port_kind::store && !wants_write)) {
    dmi.set_start_address(0);
    dmi.set_end_address(p_.size_bytes - 1);
    dmi.allow_none();
    return false;
  }
  // DMI stays coherent with the timed path: the array behind the pointer holds every write
  // whose cycle has come, and no write waits for a later cycle (a pointer would miss it, and
  // a write through the pointer would be overwritten when it lands). While writes wait the
  // grant is refused for the requested address (the initiator may ask again once time has
  // passed); a write queued after a grant invalidates every pointer (see write_word).
  commit_until(to_cycles(flynn::sim_now()));
  if (!pending_.empty()) {
    dmi.set_start_address(gp.get_address());
    dmi.set_end_address(gp.get_address());
    dmi.allow_none();
    return false;
  }
  dmi_granted_ = true;
  dmi.set_dmi_ptr(data_.data());
  dmi.set_start_address(0);
  dmi.set_end_address(p_.size_bytes - 1);
  switch (kind) {
    case port_kind::shared: dmi.allow_read_write(); break;
    case port_kind::load: dmi.allow_read(); break;
    case port_kind::store: dmi.allow_write(); break;
  }
  dmi.set_read_latency(to_time(p_.latency));
  dmi.set_write_latency(to_time(p_.latency));
  return true;
}

void banked_memory::invalidate_dmi() {
  dmi_granted_ = false;
  for (auto& ps : ports_) (*ps->socket)->invalidate_direct_mem_ptr(0, ~sc_dt::uint64(0));
}

// Requests that arrived before the call keep the latency they arrived with (an AT request
// has been promised its response no earlier than arrival + that latency).
void banked_memory::set_latency(unsigned cycles_) {
  p_.latency = cycles_;
  invalidate_dmi();
}

unsigned banked_memory::transport_dbg(tlm::tlm_generic_payload& gp) {
  ++dbg_;
  const std::uint64_t a = gp.get_address();
  if (a >= p_.size_bytes || gp.get_data_ptr() == nullptr || gp.get_data_length() == 0) return 0;
  const std::size_t n = static_cast<std::size_t>(
      std::min<std::uint64_t>(gp.get_data_length(), p_.size_bytes - a));
  // Debug access sees the contents once every write made so far has landed, and moves no
  // timed write: a read overlays the queued writes on the array; a write goes into the array
  // and into the bytes of the queued writes it overlaps (it is the latest write of them all),
  // so a timed read of an earlier cycle still sees what it would have seen.
  unsigned char* d = gp.get_data_ptr();
  if (gp.is_read()) {
    peek(a, d, n);
  } else if (gp.is_write()) {
    std::memcpy(&data_[a], d, n);
    if (!pending_.empty())
      for (std::uint64_t w = word_.quotient(a), last = word_.quotient(a + n - 1); w <= last; ++w)
        for (std::uint32_t s = pending_.first(w); s != pending_.none; s = pending_.next(s)) {
          pending_write& pw = pending_[s];
          unsigned char* bytes = pw.len <= pw.small.size() ? pw.small.data() : pw.large.data();
          const std::uint64_t x = std::max(a, pw.addr), y = std::min<std::uint64_t>(a + n, pw.addr + pw.len);
          if (x < y) std::memcpy(bytes + (x - pw.addr), d + (x - a), y - x);
        }
  } else {
    return 0;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return static_cast<unsigned>(n);
}

void banked_memory::peek(std::uint64_t addr, unsigned char* dst, std::size_t len) const {
  // The contents once every write made so far has landed (queued writes overlaid, none moved).
  const std::size_t n = std::min<std::size_t>(len, data_.size() - addr);
  std::memcpy(dst, &data_.at(addr), n);
  if (pending_.empty() || n == 0) return;
  for (std::uint64_t w = word_.quotient(addr), last = word_.quotient(addr + n - 1); w <= last; ++w) {
    const std::uint64_t lo = std::max<std::uint64_t>(addr, w * p_.word_bytes),
                        hi = std::min<std::uint64_t>(addr + n, (w + 1) * p_.word_bytes);
    overlay(w, UINT64_MAX, lo, hi, dst + (lo - addr));
  }
}

void banked_memory::poke(std::uint64_t addr, const unsigned char* src, std::size_t len) {
  std::memcpy(&data_.at(addr), src, std::min<std::size_t>(len, data_.size() - addr));
}

}  // namespace flynn

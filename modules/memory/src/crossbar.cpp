// The crossbar: address hashing to outputs, link bandwidth both ways, latency and the far
// partition's extra latency.
#include "flynn/memory/crossbar.h"

#include <algorithm>

namespace flynn {

param_footprint crossbar_params::footprint() const {
  return {2048 * (std::uint64_t(ports) + outputs), 0};  // calendars and sockets per link
}

std::vector<param_issue> crossbar_params::check() const {
  std::vector<param_issue> r;
  require_power_of_two(r, "interleave_bytes", interleave_bytes);
  if (hash == slice_hash::xor_fold && (outputs & (outputs - 1)))
    r.push_back({"outputs", "a power of two with hash xor", std::to_string(outputs)});
  if (partitions > ports || partitions > outputs)
    r.push_back({"partitions", "at most ports (" + std::to_string(ports) + ") and outputs (" + std::to_string(outputs) + ")",
                 std::to_string(partitions)});
  return r;
}

crossbar::crossbar(const sc_core::sc_module_name& name, const params& p)
    : timing_stage(name, p.clock_ns, p.ports, p.outputs), p_(p) {
  throw_if_invalid("crossbar", p_.check());
  set_ideal(p_.ideal, false);
  while ((1u << hash_bits_) < p_.outputs) ++hash_bits_;
  in_link_.resize(p_.ports);
  back_in_link_.resize(p_.ports);
  out_link_.resize(p_.outputs);
  back_out_link_.resize(p_.outputs);
  per_output_.resize(p_.outputs);
}

// Bookings that end before the current cycle can no longer matter: every request still to
// come reaches a link at or after it.
void crossbar::forget(std::uint64_t now) {
  for (auto* links : {&in_link_, &out_link_, &back_in_link_, &back_out_link_})
    for (auto& l : *links) l.forget_before(now);
}

void crossbar::attach_trace(trace_sink& sink) { in_flight_sig_.attach(&sink, name(), "requests_in_flight", 16); }

unsigned crossbar::output_of(std::uint64_t address) const {
  std::uint64_t unit = address / p_.interleave_bytes;
  if (p_.outputs == 1) return 0;
  if (p_.hash == slice_hash::modulo) return static_cast<unsigned>(unit % p_.outputs);
  std::uint64_t h = 0;
  for (; unit; unit >>= hash_bits_) h ^= unit & ((std::uint64_t(1) << hash_bits_) - 1);
  return static_cast<unsigned>(h);
}

bool crossbar::far(unsigned port, unsigned output) const {
  return port * p_.partitions / p_.ports != output * p_.partitions / p_.outputs;
}

// The request crosses its input link, the crossbar (and the partition boundary) and its
// output link, each link one request at a time at bytes_per_cycle (a write's data, else a
// header cycle); END_REQ once it is on its input link. Each link keeps an occupancy
// calendar: requests from near and far inputs reach an output link out of time order, and
// each takes the first free stretch at its own cycle.
void crossbar::schedule(request& r) {
  const unsigned o = route(*r.gp);
  blocks_of(*r.gp, p_.interleave_bytes, blocks_);
  for (const std::uint64_t b : blocks_)
    if (output_of(b * p_.interleave_bytes) != o) {
      fault("a request (" + std::to_string(r.gp->get_data_length()) + " bytes at " + std::to_string(r.gp->get_address()) +
            ") spans outputs " + std::to_string(o) + " and " + std::to_string(output_of(b * p_.interleave_bytes)) +
            ": the crossbar routes a request whole (keep requests within interleave_bytes)");
      break;
    }
  const bool is_far = far(r.port, o);
  ++requests_;
  ++per_output_[o];
  if (is_far) ++far_requests_;
  const std::uint64_t occ = is_write(*r.gp) ? cycles_for(r.gp->get_data_length()) : 1;
  const std::uint64_t in_start = in_link_[r.port].first_free(r.arrival, occ);
  in_link_[r.port].book(in_start, in_start + occ);
  const std::uint64_t reach = in_start + p_.latency + (is_far ? p_.far_latency : 0);
  const std::uint64_t out_start = out_link_[o].first_free(reach, occ);
  out_link_[o].book(out_start, out_start + occ);
  forget(r.arrival);
  link_wait_ += (in_start - r.arrival) + (out_start - reach);
  if (!r.lt) end_req_at(r, in_start);
  forward_at(r, out_start + occ);
}

// The response crosses back: the output's link, the crossbar, the input's link (a read's
// data, else a header cycle).
void crossbar::answered(request& r, std::uint64_t at) {
  const unsigned o = r.out;
  const bool is_far = far(r.port, o);
  const std::uint64_t occ = is_write(*r.gp) ? 1 : cycles_for(r.gp->get_data_length());
  const std::uint64_t out_start = back_out_link_[o].first_free(at, occ);
  back_out_link_[o].book(out_start, out_start + occ);
  const std::uint64_t reach = out_start + p_.latency + (is_far ? p_.far_latency : 0);
  const std::uint64_t in_start = back_in_link_[r.port].first_free(reach, occ);
  back_in_link_[r.port].book(in_start, in_start + occ);
  link_wait_ += (out_start - at) + (in_start - reach);
  const std::uint64_t done = in_start + occ;
  latency_sum_ += done - r.arrival;
  ++responses_;
  respond_at(r, done);
}

}  // namespace flynn

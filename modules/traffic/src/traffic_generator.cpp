#include "flynn/traffic/traffic_generator.h"

#include "flynn/common/format.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <sstream>

namespace flynn {

namespace {
std::uint64_t mix64(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

// ---------------------------------------------------------------------------- parameters

void traffic_stream::visit(param_visitor& v) {
  param_enum(v, {"kind", "", "linear (base + i * stride), indexed or random addresses"}, kind,
             {{stream_kind::linear, "linear"}, {stream_kind::indexed, "indexed"},
              {stream_kind::random, "random"}});
  param(v, {"write", "", "stores instead of loads"}, write);
  param(v, {"base", "B", "base address"}, base);
  param(v, {"stride", "B", "linear: address step between requests (may be negative)"}, stride);
  param(v, {"count", "requests", "number of requests (indexed: 0 = once over the indices)"},
        count);
  param(v, {"size", "B", "bytes per request, or per lane of a multi-lane request"}, size, 1,
        4096);
  param(v, {"lanes", "", "0: plain requests; 1..32: multi-lane requests with this many lanes"},
        lanes, 0, lanes_extension::max_lanes);
  param(v, {"lane_stride", "B", "address step between lanes (0: all lanes on one word)"},
        lane_stride);
  param(v, {"range_bytes", "B", "linear: offsets wrap modulo this (0: no wrap); random: range"},
        range_bytes);
  param(v, {"indices", "elements", "indexed: element indices, address = base + index * size"},
        indices);
  param(v, {"seed", "", "random: address seed"}, seed);
  param_enum(v, {"swizzle", "", "shared-memory layout of the offsets from base: none, 32B, 64B or 128B swizzle"},
             swizzle,
             {{swizzle_mode::none, "none"}, {swizzle_mode::b32, "32B"}, {swizzle_mode::b64, "64B"},
              {swizzle_mode::b128, "128B"}});
}

std::vector<param_issue> traffic_stream::check(const std::string& prefix) const {
  std::vector<param_issue> r;
  if (kind == stream_kind::indexed && indices.empty())
    r.push_back({prefix + "indices", "a non-empty list for an indexed stream", "[]"});
  if (kind == stream_kind::random && range_bytes < size)
    r.push_back({prefix + "range_bytes", "at least size (" + std::to_string(size) +
                                             ") for a random stream",
                 std::to_string(range_bytes)});
  if (kind != stream_kind::indexed && count == 0)
    r.push_back({prefix + "count", "at least 1", "0"});
  if (range_bytes > (std::uint64_t(1) << 40))
    r.push_back({prefix + "range_bytes", "at most 2^40", std::to_string(range_bytes)});
  return r;
}

void traffic_generator_params::visit(param_visitor& v) {
  param(v, {"at", "", "use the 4-phase AT protocol (false: LT with temporal decoupling)"}, at);
  param(v, {"issue_interval", "cycles", "cycles between consecutive request issues"},
        issue_interval, 1, 1 << 20);
  param(v, {"max_outstanding", "requests", "requests in flight at most"}, max_outstanding, 1,
        1 << 20);
  param(v, {"quantum", "cycles", "LT: temporal decoupling quantum"}, quantum, 1, 1u << 30);
  param(v, {"start_cycle", "cycles", "cycle of the first issue"}, start_cycle);
  param(v, {"data_seed", "", "seed of the written data pattern"}, data_seed);
  param(v, {"histogram_bucket", "cycles", "latency histogram bucket width"}, histogram_bucket,
        1, 1 << 20);
  param(v, {"histogram_buckets", "", "latency histogram buckets (plus one overflow)"},
        histogram_buckets, 1, 4096);
  param(v, {"streams", "", "request streams, played one after the other"}, streams);
  param(v, {"clock_ns", "ns", "clock period"}, clock_ns, 1e-3, 1e6);
}

std::vector<param_issue> traffic_generator_params::check() const {
  std::vector<param_issue> r;
  if (streams.empty()) r.push_back({"streams", "at least one stream", "[]"});
  if (start_cycle > 1000000000000ull)
    r.push_back({"start_cycle", "at most 1e12", std::to_string(start_cycle)});
  std::uint64_t largest = 0;
  for (const auto& s : streams) largest = std::max<std::uint64_t>(largest, std::uint64_t(s.size) * (s.lanes ? s.lanes : 1));
  if (at && largest * max_outstanding > (std::uint64_t(64) << 20))
    r.push_back({"max_outstanding", "at most 64 MiB of AT request buffers (max_outstanding x largest request)",
                 std::to_string(max_outstanding) + " x " + std::to_string(largest) + " B"});
  for (std::size_t i = 0; i < streams.size(); ++i) {
    auto s = streams[i].check("streams[" + std::to_string(i) + "].");
    r.insert(r.end(), s.begin(), s.end());
  }
  return r;
}

// ---------------------------------------------------------------------------- cursor

traffic_cursor::traffic_cursor(const traffic_generator_params& p) : p_(p) {}

std::uint64_t traffic_cursor::offset(std::int64_t delta) const {
  const traffic_stream& st = stream();
  if (st.range_bytes == 0) return st.base + static_cast<std::uint64_t>(delta);
  const std::int64_t r = static_cast<std::int64_t>(st.range_bytes);
  return st.base + static_cast<std::uint64_t>(((delta % r) + r) % r);
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
    lanes_.active_mask = st.lanes == 32 ? 0xffffffffu : ((1u << st.lanes) - 1);
    for (unsigned l = 0; l < st.lanes; ++l)
      lanes_.address[l] =
          st.base + swizzle_offset(addr_ - st.base + l * static_cast<std::uint64_t>(st.lane_stride), st.swizzle);
  }
  addr_ = st.base + swizzle_offset(addr_ - st.base, st.swizzle);
  return true;
}

std::size_t traffic_cursor::length() const {
  const traffic_stream& st = stream();
  return std::size_t(st.size) * (st.lanes ? st.lanes : 1);
}

void traffic_cursor::fill_data(unsigned char* dst) const {
  const std::size_t n = length();
  for (std::size_t b = 0; b < n; b += 8) {
    const std::uint64_t v = mix64(p_.data_seed ^ mix64(serial_ * 4096 + b / 8));
    for (std::size_t k = 0; k < 8 && b + k < n; ++k)
      dst[b + k] = static_cast<unsigned char>(v >> (8 * k));
  }
}

std::uint64_t read_digest(std::uint64_t serial, const unsigned char* data, std::size_t len) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < len; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return mix64(h ^ mix64(serial));
}

// Golden model: a flat byte array, each request applied whole, in issue order. Lanes
// apply in lane order (for writes of several lanes to one word, the highest lane wins).
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

// ---------------------------------------------------------------------------- module

traffic_generator::traffic_generator(const sc_core::sc_module_name& name, const params& p)
    : module(name, p.clock_ns), out("out"), p_(p),
      pool_([&p] {
        std::size_t m = 8;
        for (const auto& s : p.streams) m = std::max<std::size_t>(m, s.size * (s.lanes ? s.lanes : 1));
        return m;
      }()),
      latency_(p.histogram_bucket, p.histogram_buckets) {
  throw_if_invalid("traffic_generator", p_.check());
  out.bind(*this);
  if (p_.at)
    sc_core::sc_spawn([this] { run_at(); }, "run");
  else
    sc_core::sc_spawn([this] { run_lt(); }, "run");

  stats_.add("requests", completed_, "requests", "requests completed");
  stats_.add("reads", reads_, "requests", "read requests completed");
  stats_.add("writes", writes_, "requests", "write requests completed");
  stats_.add("bytes", bytes_, "B", "bytes transferred");
  stats_.add("latency", latency_, "cycles", "request issue to response, per request");
  stats_.add_real(
      "bandwidth", [this] {
        if (!completed_.value()) return 0.0;
        return double(bytes_.value()) / double(last_done_ - first_issue_);
      },
      "B/cycle", "bytes per cycle from the first issue to the last response");
  stats_.add_real(
      "requests_per_cycle", [this] {
        if (!completed_.value()) return 0.0;
        return double(completed_.value()) / double(last_done_ - first_issue_);
      },
      "requests/cycle", "requests per cycle from the first issue to the last response");
}

traffic_generator::~traffic_generator() = default;

std::string traffic_generator::pending_work() const {
  if (done_) return {};
  auto describe = [](const tlm::tlm_generic_payload& gp, const inflight& f) {
    std::ostringstream o;
    o << "request " << f.serial << " (" << (gp.is_write() ? "WRITE" : "READ") << " 0x" << std::hex
      << gp.get_address() << std::dec << ", " << gp.get_data_length() << " bytes) issued at cycle " << f.issued;
    return o.str();
  };
  std::string s = std::to_string(completed_.value()) + " requests completed, " + std::to_string(outstanding_) +
                  " awaiting a response";
  const std::pair<tlm::tlm_generic_payload* const, inflight>* oldest = nullptr;
  for (const auto& e : inflight_)
    if (!oldest || e.second.serial < oldest->second.serial) oldest = &e;
  if (oldest) s += "; the oldest: " + describe(*oldest->first, oldest->second);
  for (const auto& e : inflight_)
    if (req_in_progress_ && e.first == req_waiting_) s += "; END_REQ never came for " + describe(*e.first, e.second);
  return s;
}


void traffic_generator::setup(tlm::tlm_generic_payload& gp, unsigned char* buf,
                              lanes_extension& ext, const traffic_cursor& c) {
  const bool wr = c.stream().write;
  gp.set_command(wr ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_data_ptr(buf);
  gp.set_data_length(static_cast<unsigned>(c.length()));
  gp.set_streaming_width(static_cast<unsigned>(c.length()));
  gp.set_byte_enable_ptr(nullptr);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  if (c.multi_lane()) {
    ext = c.lanes();
    gp.set_address(ext.address[0]);
    gp.set_extension(&ext);
  } else {
    gp.set_address(c.address());
  }
  if (wr) c.fill_data(buf);
}

void traffic_generator::complete(tlm::tlm_generic_payload& gp, std::uint64_t serial,
                                 std::uint64_t issued, std::uint64_t done) {
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
    const std::string addr = hex(gp.get_address());
    fault("request " + std::to_string(serial) + " (" + (gp.is_write() ? "write" : "read") +
          " of " + std::to_string(gp.get_data_length()) + " B at " + addr + ", cycle " +
          std::to_string(issued) + ") failed: " + gp.get_response_string());
    return;
  }
  ++completed_;
  if (gp.is_read()) {
    ++reads_;
    read_sum_ += read_digest(serial, gp.get_data_ptr(), gp.get_data_length());
  } else {
    ++writes_;
  }
  bytes_ += gp.get_data_length();
  latency_.sample(done - issued);
  first_issue_ = std::min(first_issue_, issued);
  last_done_ = std::max(last_done_, done);
}

// LT: requests go out at their planned cycle through b_transport with the offset as the
// annotated delay; the thread only synchronises once the offset passes the quantum. The
// plan is the one the AT initiator follows, so both see the same cycles.
void traffic_generator::run_lt() {
  traffic_cursor c(p_);
  tlm::tlm_generic_payload gp;
  std::vector<unsigned char> buf(pool_.capacity());
  lanes_extension ext;
  std::priority_queue<std::uint64_t, std::vector<std::uint64_t>, std::greater<>> pending;
  std::uint64_t plan = p_.start_cycle;
  while (c.next()) {
    while (!pending.empty() && pending.top() <= plan) pending.pop();
    if (pending.size() >= p_.max_outstanding) {
      plan = std::max(plan, pending.top());
      pending.pop();
    }
    setup(gp, buf.data(), ext, c);
    sc_core::sc_time delay = cycles(plan) - sc_core::sc_time_stamp();
    tracked_b_transport(out, gp, delay);
    const std::uint64_t done = to_cycles_ceil(sc_core::sc_time_stamp() + delay);
    gp.clear_extension(&ext);
    complete(gp, c.index(), plan, done);
    pending.push(done);
    plan += p_.issue_interval;
    if (cycles(plan) - sc_core::sc_time_stamp() >= cycles(p_.quantum))
      wait(cycles(plan) - sc_core::sc_time_stamp());
  }
  if (cycles(last_done_) > sc_core::sc_time_stamp()) wait(cycles(last_done_) - sc_core::sc_time_stamp());
  done_ = true;
}

// AT: one request in the request phase at a time (END_REQ back-pressure), at most
// max_outstanding awaiting their responses. The plan is computed exactly as in LT: a
// request counts against the limit until the cycle of its response, so the issue cycles
// do not depend on when the thread happens to learn about responses.
void traffic_generator::run_at() {
  traffic_cursor c(p_);
  std::uint64_t plan = p_.start_cycle;
  unsigned unretired = 0;  // issued and not yet known to be complete at `plan`
  while (c.next()) {
    while (true) {
      while (!responded_.empty() && responded_.top() <= plan) {
        responded_.pop();
        --unretired;
      }
      if (unretired < p_.max_outstanding) break;
      if (!responded_.empty()) {  // responses arrive in completion order: this is the earliest
        plan = std::max(plan, responded_.top());
        continue;
      }
      wait(resp_ev_);
    }
    while (req_in_progress_) wait(end_req_ev_);
    if (cycles(plan) > sc_core::sc_time_stamp()) wait(cycles(plan) - sc_core::sc_time_stamp());
    tlm::tlm_generic_payload* gp = pool_.allocate();
    inflight& f = inflight_[gp];
    f.serial = c.index();
    f.issued = plan;
    setup(*gp, pool_.buffer(gp), f.ext, c);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    ++outstanding_;
    ++unretired;
    const tlm::tlm_sync_enum r = out->nb_transport_fw(*gp, ph, d);
    if (r == tlm::TLM_ACCEPTED) {
      req_in_progress_ = true;
      req_waiting_ = gp;
    } else if (r == tlm::TLM_UPDATED && ph == tlm::END_REQ) {
      if (d > sc_core::SC_ZERO_TIME) wait(d);  // END_REQ takes effect after the delay
    } else if (r == tlm::TLM_COMPLETED) {
      gp->clear_extension(&f.ext);
      response(*gp, to_cycles_ceil(sc_core::sc_time_stamp() + d));
    } else if (r == tlm::TLM_UPDATED && ph == tlm::BEGIN_RESP) {
      fault("early BEGIN_RESP on the return path is not supported");
    }
    plan += p_.issue_interval;
  }
  while (outstanding_ > 0) wait(resp_ev_);
  done_ = true;
}

void traffic_generator::response(tlm::tlm_generic_payload& gp, std::uint64_t done) {
  auto it = inflight_.find(&gp);
  if (it == inflight_.end()) {
    fault("response for a transaction that is not in flight");
    return;
  }
  gp.clear_extension(&it->second.ext);
  complete(gp, it->second.serial, it->second.issued, done);
  inflight_.erase(it);
  --outstanding_;
  responded_.push(done);
  resp_ev_.notify(sc_core::SC_ZERO_TIME);
  gp.release();
}

tlm::tlm_sync_enum traffic_generator::nb_transport_bw(tlm::tlm_generic_payload& gp,
                                                      tlm::tlm_phase& ph,
                                                      sc_core::sc_time& d) {
  if (ph == tlm::END_REQ) {
    req_in_progress_ = false;
    req_waiting_ = nullptr;
    end_req_ev_.notify(d);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    if (req_in_progress_ && req_waiting_ == &gp) {  // BEGIN_RESP implies END_REQ of its own request only
      req_in_progress_ = false;
      req_waiting_ = nullptr;
      end_req_ev_.notify(d);
    }
    response(gp, to_cycles_ceil(sc_core::sc_time_stamp() + d));
    return tlm::TLM_COMPLETED;
  }
  fault("nb_transport_bw: unexpected phase " + std::string(ph.get_name()));
  return tlm::TLM_COMPLETED;
}

}  // namespace flynn

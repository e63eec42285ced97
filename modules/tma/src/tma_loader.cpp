#include "flynn/tma/tma_loader.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "flynn/common/format.h"
#include "flynn/tlm/begin_request.h"

namespace flynn {

std::string tensor_descriptor::validate() const {
  if (rank < 1 || rank > 5) return "rank = " + std::to_string(rank) + ": expected 1 .. 5";
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8)
    return "element size = " + std::to_string(elem_bytes) + ": expected 1, 2, 4 or 8 bytes";
  if (global_base % 16) return "global address " + hex(global_base) + ": expected a multiple of 16";
  for (unsigned d = 0; d < rank; ++d) {
    if (dims[d] == 0 || dims[d] > (std::uint64_t(1) << 32))
      return "dims[" + std::to_string(d) + "] = " + std::to_string(dims[d]) + ": expected 1 .. 2^32";
    if (box[d] == 0 || box[d] > 256) return "box[" + std::to_string(d) + "] = " + std::to_string(box[d]) + ": expected 1 .. 256";
    if (d >= 1 && (strides[d] == 0 || strides[d] % 16))
      return "strides[" + std::to_string(d) + "] = " + std::to_string(strides[d]) + ": expected a non-zero multiple of 16 bytes";
  }
  if (row_bytes() % 16) return "box[0] x element size = " + std::to_string(row_bytes()) + " bytes: expected a multiple of 16";
  if (swizzle != swizzle_mode::none && row_bytes() > swizzle_span(swizzle))
    return "box row of " + std::to_string(row_bytes()) + " bytes does not fit the " + to_string(swizzle) +
           " swizzle (at most " + std::to_string(swizzle_span(swizzle)) + " bytes)";
  return {};
}

std::uint64_t tensor_descriptor::box_bytes() const {
  std::uint64_t n = elem_bytes;
  for (unsigned d = 0; d < rank; ++d) n *= box[d];
  return n;
}

void tma_loader_params::visit(param_visitor& v) {
  param(v, {"issue_interval", "cycles", "cycles between row requests to global memory"}, issue_interval, 1, 1 << 20);
  param(v, {"issue_latency", "cycles",
             "per-copy issue cost: from the copy's start (the tma.load) to its first row request (descriptor "
             "fetch and decode, address generation, request formation)"},
        issue_latency, 0, 1 << 20);
  param(v, {"clock_ns", "ns", "clock period"}, clock_ns, 1e-3, 1e6);
}

tma_loader::tma_loader(const sc_core::sc_module_name& name, const params& p)
    : module(name, p.clock_ns), global("global"), shared("shared"), link("tma"), p_(p) {
  global.bind(*this);
  shared.bind(*this);
  link.bind(*this);
  SC_THREAD(writer);
  SC_THREAD(reader);
  stats_.add("copies", copies_, "copies", "bulk tensor copies");
  stats_.add("rows", rows_, "rows", "box rows moved");
  stats_.add("bytes", bytes_, "B", "bytes written to shared memory (zero fill included)");
  stats_.add("stores", stores_, "copies", "bulk tensor copies from shared to global memory");
  stats_.add("bytes_stored", bytes_stored_, "B", "bytes written to global memory by stores");
  stats_.add("oob_bytes", oob_bytes_, "B", "bytes outside the tensor, filled with zeros");
  stats_.add("global_requests", global_requests_, "requests", "global-memory read bursts");
  stats_.add_real(
      "mean_copy_latency",
      [this] { return copies_landed_.value() ? double(copy_latency_.value()) / double(copies_landed_.value()) : 0.0; },
      "cycles", "mean cycles from a load's issue by the warp to its last row written to shared memory");
  stats_.add("shared_requests", shared_requests_, "requests", "shared-memory writes (multi-lane when swizzled)");
}

std::string tma_loader::transfer(tlm::tlm_initiator_socket<32>& s, tlm::tlm_command cmd, std::uint64_t addr,
                                 unsigned char* data, unsigned len, std::uint64_t at, std::uint64_t& done,
                                 const std::vector<std::uint64_t>* lane_addrs) {
  const transport_result r =
      lane_addrs ? transport_lanes(s, cmd, *lane_addrs, data, len, at) : transport(s, cmd, addr, data, len, at);
  const auto access = [&] {
    return std::string(&s == &global ? "global " : "shared ") + (cmd == tlm::TLM_READ_COMMAND ? "read" : "write") +
           " at " + hex(addr);
  };
  if (!r.ok()) return access() + ": " + r.response_string();
  if (r.lanes_ignored)
    return access() + ": the target ignored the lanes extension (swizzled rows need a lanes-aware memory such as "
                      "banked_memory)";
  done = r.done;
  return {};
}

std::string tma_loader::load(const tensor_descriptor& d, const std::array<std::int64_t, 5>& coords,
                             std::uint64_t smem_addr, tx_barrier& bar, std::uint64_t start) {
  if (const std::string e = d.validate(); !e.empty()) return "invalid tensor descriptor: " + e;
  if (d.swizzle != swizzle_mode::none && smem_addr % 1024)
    return "shared address " + hex(smem_addr) + ": expected 1024-byte alignment for a swizzled layout";
  if (smem_addr % 16) return "shared address " + hex(smem_addr) + ": expected 16-byte alignment";
  ++copies_;
  const std::uint64_t row = d.row_bytes();
  std::uint64_t rows = 1;
  for (unsigned k = 1; k < d.rank; ++k) rows *= d.box[k];
  std::uint64_t t = std::max(start + p_.issue_latency, next_issue_);
  const std::uint64_t first_row = t;
  std::array<std::uint32_t, 5> idx{};  // box index of the current row, dims 1..rank-1
  for (std::uint64_t r = 0; r < rows; ++r, t += p_.issue_interval) {
    // Global coordinates of this row; rows outside the tensor are all zeros.
    bool inside = true;
    std::uint64_t addr = d.global_base;
    for (unsigned k = 1; k < d.rank; ++k) {
      const std::int64_t x = coords[k] + idx[k];
      if (x < 0 || static_cast<std::uint64_t>(x) >= d.dims[k]) inside = false;
      else addr += static_cast<std::uint64_t>(x) * d.strides[k];
    }
    // The row is read from global memory at cycle t by the reader, and goes to shared
    // memory at its offset in the box, through the swizzle, when it lands (the writer).
    row_read rr;
    rr.t = t;
    const std::int64_t lo = std::max<std::int64_t>(coords[0], 0);
    const std::int64_t hi = std::min<std::int64_t>(coords[0] + d.box[0], static_cast<std::int64_t>(d.dims[0]));
    if (inside && lo < hi) {
      rr.off = static_cast<std::uint64_t>(lo - coords[0]) * d.elem_bytes;
      rr.len = static_cast<unsigned>((hi - lo) * d.elem_bytes);
      rr.addr = addr + static_cast<std::uint64_t>(lo) * d.elem_bytes;
    }
    oob_bytes_ += row - rr.len;
    in_flight_[t] += static_cast<std::int64_t>(row);
    landing_row& lr = rr.row;
    lr.smem_addr = smem_addr + r * row;
    if (d.swizzle != swizzle_mode::none)
      for (std::uint64_t c = 0; c < row; c += 16) lr.chunks.push_back(smem_addr + swizzle_offset(r * row + c, d.swizzle));
    lr.data.assign(row, 0);
    lr.bar = &bar;
    lr.copy = copies_.value();
    to_read_.push_back(std::move(rr));
    for (unsigned k = 1; k < d.rank; ++k) {  // next row: odometer over the box dimensions
      if (++idx[k] < d.box[k]) break;
      idx[k] = 0;
    }
  }
  next_issue_ = t;
  loads_[copies_.value()] = {first_row, rows, start};
  to_read_ev_.notify(sc_core::SC_ZERO_TIME);
  if (debugging(debug_tma))
    debug(debug_tma, start,
          "load " + std::to_string(copies_.value()) + ": " + std::to_string(rows) + " rows of " + std::to_string(row) +
              " B from global " + hex(d.global_base) + " to shared " + hex(smem_addr) + ", first row at cycle " +
              std::to_string(first_row));
  if (log_enabled(sc_core::SC_HIGH))
    log(sc_core::SC_HIGH, "load of " + std::to_string(rows * row) + " bytes to shared " + hex(smem_addr) + ": rows from cycle " +
                              std::to_string(first_row));
  return {};
}

void tma_loader::writer() {
  for (;;) {
    while (landing_.empty()) wait(landing_ev_);
    landing_row& lr = landing_.front();
    wait_until(lr.at);
    const std::uint64_t at = std::max(lr.at, to_cycles_ceil(sc_core::sc_time_stamp()));
    const auto row = static_cast<unsigned>(lr.data.size());
    std::uint64_t done = at;
    if (auto e = transfer(shared, tlm::TLM_WRITE_COMMAND, lr.chunks.empty() ? lr.smem_addr : lr.chunks.front(),
                          lr.data.data(), row, at, done, lr.chunks.empty() ? nullptr : &lr.chunks);
        !e.empty()) {
      fault("load #" + std::to_string(lr.copy) + ": " + e);
      return;
    }
    ++shared_requests_;
    ++rows_;
    bytes_ += row;
    busy_until_ = std::max(busy_until_, done);
    in_flight_[done] -= static_cast<std::int64_t>(row);
    if (auto e = lr.bar->complete_tx(row, done); !e.empty()) {
      fault("load #" + std::to_string(lr.copy) + ": barrier: " + e);
      return;
    }
    const std::uint64_t copy = lr.copy;
    landing_.pop_front();
    load_progress& lp = loads_.at(copy);
    if (--lp.rows_left == 0) {  // the copy's last row
      ++copies_landed_;
      copy_latency_ += done - lp.issued;
      if (timeline_) timeline_->span(name(), "tma.load", "load", copy, to_time(lp.first_row), to_time(done));
      loads_.erase(copy);
    }
    progress_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

// Global reads of the rows, each at its cycle, as AT requests (one BEGIN_REQ at a time: the
// next goes out once the previous one's END_REQ has come). The memory grants them in
// simulated-time order with everyone else's and answers with the data as they are at the
// cycles it reads them; the row is handed to the writer when the response comes. Rows
// wholly outside the tensor read nothing and land at their cycle.
void tma_loader::reader() {
  for (;;) {
    while (to_read_.empty()) wait(to_read_ev_);
    const sc_core::sc_time when = to_time(to_read_.front().t);
    if (when > sc_core::sc_time_stamp()) wait(when - sc_core::sc_time_stamp());
    while (request_open_) wait(end_req_ev_);
    if (request_phase_end_ > sc_core::sc_time_stamp()) wait(request_phase_end_ - sc_core::sc_time_stamp());
    row_read rr = std::move(to_read_.front());
    to_read_.pop_front();
    if (rr.store) {
      store_row(rr);
      continue;
    }
    if (rr.len == 0) {
      rr.row.at = to_cycles_ceil(sc_core::sc_time_stamp());
      land(std::move(rr.row));
      continue;
    }
    tlm::tlm_generic_payload* gp = pool_.allocate();
    gp->set_command(tlm::TLM_READ_COMMAND);
    gp->set_address(rr.addr);
    gp->set_data_ptr(rr.row.data.data() + rr.off);
    gp->set_data_length(rr.len);
    gp->set_streaming_width(rr.len);
    gp->set_byte_enable_ptr(nullptr);
    gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    reading_.emplace(gp, std::move(rr));
    ++global_requests_;
    request_open_ = gp;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const begin_request_answer a = begin_request(global, *gp, delay, end_resp_owed_);
    if (a == begin_request_answer::request_open) continue;
    if (request_open_ == gp) request_open_ = nullptr;
    request_phase_end_ = sc_core::sc_time_stamp() + delay;  // the next BEGIN_REQ not before the annotated END_REQ
    if (a == begin_request_answer::illegal) fault("BEGIN_REQ answered TLM_UPDATED with a phase other than END_REQ or BEGIN_RESP");
    if (a == begin_request_answer::responded) row_read_done(gp, sc_core::sc_time_stamp() + delay);
  }
}

tlm::tlm_sync_enum tma_loader::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& delay) {
  if (reading_.count(&gp) == 0) {
    fault(std::string("nb_transport_bw ") + ph.get_name() + " for a transaction not in flight");
    return tlm::TLM_COMPLETED;
  }
  if (ph == tlm::END_REQ || ph == tlm::BEGIN_RESP) {
    if (request_open_ == &gp) {  // BEGIN_RESP is an implicit END_REQ
      request_open_ = nullptr;
      request_phase_end_ = sc_core::sc_time_stamp() + delay;
      end_req_ev_.notify();
    }
    if (ph == tlm::END_REQ) return tlm::TLM_ACCEPTED;
    row_read_done(&gp, sc_core::sc_time_stamp() + delay);
    return tlm::TLM_COMPLETED;  // no END_RESP needed
  }
  fault(std::string("nb_transport_bw: unexpected phase ") + ph.get_name());
  return tlm::TLM_COMPLETED;
}

// A row's global read has its response: the row lands then (the writer takes it on).
void tma_loader::row_read_done(tlm::tlm_generic_payload* gp, const sc_core::sc_time& at) {
  auto node = reading_.extract(gp);
  row_read& rr = node.mapped();
  if (gp->get_response_status() != tlm::TLM_OK_RESPONSE) {
    fault("load #" + std::to_string(rr.row.copy) + ": global read at " + hex(rr.addr) + ": " + gp->get_response_string());
    gp->release();
    return;
  }
  gp->release();
  rr.row.at = to_cycles_ceil(at);
  land(std::move(rr.row));
}

void tma_loader::land(landing_row&& row) {
  landing_.push_back(std::move(row));
  landing_ev_.notify(sc_core::SC_ZERO_TIME);
}

bool tma_loader::writing_to(std::uint64_t lo, std::uint64_t hi) const {
  const auto overlaps = [lo, hi](const landing_row& r) { return r.smem_addr < hi && r.smem_addr + r.data.size() > lo; };
  for (const landing_row& r : landing_)
    if (overlaps(r)) return true;
  for (const row_read& r : to_read_)
    if (!r.store && overlaps(r.row)) return true;
  for (const auto& [gp, r] : reading_)
    if (overlaps(r.row)) return true;
  return false;
}

std::string tma_loader::pending_work() const {
  if (!in_progress()) return {};
  std::string s;
  if (request_open_) {
    const row_read& r = reading_.at(request_open_);
    s = "load #" + std::to_string(r.row.copy) + ": global READ " + hex(r.addr) + " (" + std::to_string(r.len) +
        " bytes) through " + global.name() + ": END_REQ never came; ";
  } else if (!reading_.empty()) {
    s = std::to_string(reading_.size()) + " global reads awaiting their response; ";
  }
  std::size_t store_rows = 0;
  for (const row_read& r : to_read_) store_rows += r.store != 0;
  const std::size_t rows = landing_.size() + to_read_.size() - store_rows + reading_.size();
  if (rows)
    s += std::to_string(rows) + " rows of load #" + std::to_string(loads_.begin()->first) +
         (loads_.size() > 1 ? " and later loads" : "") + " still to land";
  if (store_rows)
    s += std::string(rows ? "; " : "") + std::to_string(store_rows) + " rows of store #" +
         std::to_string(stores_finished_ + 1) + (store_first_row_.size() > 1 ? " and later stores" : "") +
         " still to write";
  return s;
}

std::string tma_loader::store(const tensor_descriptor& d, const std::array<std::int64_t, 5>& coords,
                              std::uint64_t smem_addr, std::uint64_t start, std::uint64_t& id) {
  if (const std::string e = d.validate(); !e.empty()) return "invalid tensor descriptor: " + e;
  if (d.swizzle != swizzle_mode::none && smem_addr % 1024)
    return "shared address " + hex(smem_addr) + ": expected 1024-byte alignment for a swizzled layout";
  if (smem_addr % 16) return "shared address " + hex(smem_addr) + ": expected 16-byte alignment";
  ++stores_;
  id = stores_.value();
  const std::uint64_t row = d.row_bytes();
  std::uint64_t rows = 1;
  for (unsigned k = 1; k < d.rank; ++k) rows *= d.box[k];
  std::uint64_t t = std::max(start + p_.issue_latency, next_issue_);
  store_first_row_[id] = {t, rows * row};
  std::array<std::uint32_t, 5> idx{};
  for (std::uint64_t r = 0; r < rows; ++r, t += p_.issue_interval) {
    // The row is read from shared memory (through the swizzle) at cycle t, and the part inside
    // the tensor written to global memory when the read is back (the reader does both).
    row_read rr;
    rr.t = t;
    rr.store = id;
    rr.last = r + 1 == rows;
    const std::uint64_t box_off = r * row;
    rr.row.smem_addr = smem_addr + box_off;
    if (d.swizzle != swizzle_mode::none)
      for (std::uint64_t c = 0; c < row; c += 16) rr.row.chunks.push_back(smem_addr + swizzle_offset(box_off + c, d.swizzle));
    rr.row.data.assign(row, 0);
    rr.row.copy = id;
    bool inside = true;
    std::uint64_t addr = d.global_base;
    for (unsigned k = 1; k < d.rank; ++k) {
      const std::int64_t x = coords[k] + idx[k];
      if (x < 0 || static_cast<std::uint64_t>(x) >= d.dims[k]) inside = false;
      else addr += static_cast<std::uint64_t>(x) * d.strides[k];
    }
    const std::int64_t lo = std::max<std::int64_t>(coords[0], 0);
    const std::int64_t hi = std::min<std::int64_t>(coords[0] + d.box[0], static_cast<std::int64_t>(d.dims[0]));
    if (inside && lo < hi) {  // elements outside the tensor are not written
      rr.off = static_cast<std::uint64_t>(lo - coords[0]) * d.elem_bytes;
      rr.len = static_cast<unsigned>((hi - lo) * d.elem_bytes);
      rr.addr = addr + static_cast<std::uint64_t>(lo) * d.elem_bytes;
    }
    in_flight_[t] += static_cast<std::int64_t>(row);
    to_read_.push_back(std::move(rr));
    for (unsigned k = 1; k < d.rank; ++k) {
      if (++idx[k] < d.box[k]) break;
      idx[k] = 0;
    }
  }
  store_done_[id] = 0;
  next_issue_ = t;
  to_read_ev_.notify(sc_core::SC_ZERO_TIME);
  return {};
}

// A store's row at its cycle: read from shared memory, then its part inside the tensor written
// to global memory when the read's data are back (LT, each call for its cycle).
void tma_loader::store_row(row_read& rr) {
  const std::uint64_t t = to_cycles_ceil(sc_core::sc_time_stamp());
  const auto row = static_cast<unsigned>(rr.row.data.size());
  std::uint64_t read = t;
  if (auto e = transfer(shared, tlm::TLM_READ_COMMAND, rr.row.chunks.empty() ? rr.row.smem_addr : rr.row.chunks.front(),
                        rr.row.data.data(), row, t, read, rr.row.chunks.empty() ? nullptr : &rr.row.chunks);
      !e.empty()) {
    fault("store #" + std::to_string(rr.store) + ": " + e);
    return;
  }
  ++shared_requests_;
  std::uint64_t written = read;
  if (rr.len) {
    if (auto e = transfer(global, tlm::TLM_WRITE_COMMAND, rr.addr, rr.row.data.data() + rr.off, rr.len, read, written);
        !e.empty()) {
      fault("store #" + std::to_string(rr.store) + ": " + e);
      return;
    }
    ++global_requests_;
    bytes_stored_ += rr.len;
  }
  in_flight_[written] -= static_cast<std::int64_t>(row);
  ++rows_;
  std::uint64_t& done = store_done_[rr.store];
  done = std::max({done, written, t});
  busy_until_ = std::max(busy_until_, written);
  if (rr.last) {
    stores_finished_ = rr.store;
    if (timeline_)
      timeline_->span(name(), "tma.store", "store " + std::to_string(store_first_row_[rr.store].second) + " B", rr.store,
                      to_time(store_first_row_[rr.store].first), to_time(done));
    store_first_row_.erase(rr.store);
    progress_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

std::uint64_t tma_loader::store_done(std::uint64_t id) const {
  if (id > stores_finished_) return unknown_store;
  const auto it = store_done_.find(id);
  return it == store_done_.end() ? 0 : it->second;
}

void tma_loader::finish() {
  std::int64_t level = 0;
  for (const auto& [at, delta] : in_flight_) {
    level += delta;
    bytes_in_flight_.set(to_time(at), static_cast<std::uint64_t>(level));
  }
}

void tma_loader::attach_trace(trace_sink& sink) {
  bytes_in_flight_.attach(&sink, name(), "bytes_in_flight", 32);
  if (sink.wants_timeline()) timeline_ = &sink;
}

}  // namespace flynn

#include "flynn/tma/tma_loader.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "flynn/common/format.h"
#include "flynn/tlm/begin_request.h"
#include "flynn/tlm/payload.h"

namespace flynn {

namespace {
// The global address of the box row at index idx (dims 1..rank-1) of a box at `coords`;
// `inside` false when the row lies outside the tensor (its elements are all zeros).
std::uint64_t row_address(const tensor_descriptor& d, const std::array<std::int64_t, 5>& coords,
                          const std::array<std::uint32_t, 5>& idx, bool& inside) {
  std::uint64_t addr = d.global_base;
  for (unsigned k = 1; k < d.rank; ++k) {
    const std::int64_t x = coords[k] + idx[k];
    if (x < 0 || static_cast<std::uint64_t>(x) >= d.dims[k]) inside = false;
    else addr += static_cast<std::uint64_t>(x) * d.strides[k];
  }
  return addr;
}
}  // namespace

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

tma_loader::tma_loader(const sc_core::sc_module_name& name, const params& p)
    : module(name, p.clock_ns), global("global"), shared("shared"), link("tma"), p_(p) {
  global.bind(*this);
  shared.bind(*this);
  link.bind(*this);
  SC_THREAD(writer);
  SC_THREAD(reader);
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
  // The unit takes the copy once it is free (the previous copy's last row request generated)
  // and is busy issue_latency cycles with its descriptor before the first row request.
  std::uint64_t t = p_.ideal ? start : std::max(start, next_issue_) + p_.issue_latency;
  const std::uint64_t first_row = t;
  const unsigned interval = p_.ideal ? 0 : p_.issue_interval;
  std::array<std::uint32_t, 5> idx{};  // box index of the current row, dims 1..rank-1
  for (std::uint64_t r = 0; r < rows; ++r, t += interval) {
    // Global coordinates of this row; rows outside the tensor are all zeros.
    bool inside = true;
    const std::uint64_t addr = row_address(d, coords, idx, inside);
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
  if (!p_.ideal) next_issue_ = t;
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
    const std::uint64_t at = std::max(lr.at, to_cycles_ceil(flynn::sim_now()));
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
    while (to_read_.empty() && to_write_.empty()) wait(to_read_ev_);
    // The earliest of the next row to read and the next store write whose data are back.
    const bool write = !to_write_.empty() && (to_read_.empty() || to_write_.begin()->first <= to_read_.front().t);
    const sc_core::sc_time when = to_time(write ? to_write_.begin()->first : to_read_.front().t);
    if (when > flynn::sim_now()) {
      wait(when - flynn::sim_now(), to_read_ev_);
      continue;  // (a row for an earlier cycle may have come meanwhile: choose again)
    }
    if (write || !to_read_.front().store) {  // a global request: one BEGIN_REQ at a time
      if (request_open_) {
        wait(end_req_ev_);
        continue;
      }
      if (request_phase_end_ > flynn::sim_now()) {
        wait(request_phase_end_ - flynn::sim_now());
        continue;
      }
    }
    if (write) {
      row_read rr = std::move(to_write_.begin()->second);
      to_write_.erase(to_write_.begin());
      send_global(std::move(rr), tlm::TLM_WRITE_COMMAND);
      continue;
    }
    row_read rr = std::move(to_read_.front());
    to_read_.pop_front();
    if (rr.store) {
      store_row(rr);
      continue;
    }
    if (rr.len == 0) {
      rr.row.at = to_cycles_ceil(flynn::sim_now());
      land(std::move(rr.row));
      continue;
    }
    send_global(std::move(rr), tlm::TLM_READ_COMMAND);
  }
}

// A row's global request (a load's read, a store's write) as an AT request now; it stays in
// reading_ until its response.
void tma_loader::send_global(row_read&& rr, tlm::tlm_command cmd) {
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  tlm::tlm_generic_payload* gp = pool_.allocate();
  prepare_payload(*gp, cmd, rr.addr, rr.row.data.data() + rr.off, rr.len);  // (the row's buffer moves with it)
  reading_.emplace(gp, std::move(rr));
  ++global_requests_;
  request_open_ = gp;
  const begin_request_answer a = begin_request(global, *gp, delay, end_resp_owed_);
  if (a == begin_request_answer::request_open) return;
  if (request_open_ == gp) request_open_ = nullptr;
  request_phase_end_ = flynn::sim_now() + delay;  // the next BEGIN_REQ not before the annotated END_REQ
  if (a == begin_request_answer::illegal) fault("BEGIN_REQ answered TLM_UPDATED with a phase other than END_REQ or BEGIN_RESP");
  if (a == begin_request_answer::responded) row_read_done(gp, flynn::sim_now() + delay);
}

tlm::tlm_sync_enum tma_loader::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& delay) {
  if (reading_.count(&gp) == 0) {
    fault(std::string("nb_transport_bw ") + ph.get_name() + " for a transaction not in flight");
    return tlm::TLM_COMPLETED;
  }
  if (ph == tlm::END_REQ || ph == tlm::BEGIN_RESP) {
    if (request_open_ == &gp) {  // BEGIN_RESP is an implicit END_REQ
      request_open_ = nullptr;
      request_phase_end_ = flynn::sim_now() + delay;
      end_req_ev_.notify();
    }
    if (ph == tlm::END_REQ) return tlm::TLM_ACCEPTED;
    row_read_done(&gp, flynn::sim_now() + delay);
    return tlm::TLM_COMPLETED;  // no END_RESP needed
  }
  fault(std::string("nb_transport_bw: unexpected phase ") + ph.get_name());
  return tlm::TLM_COMPLETED;
}

// A row's global request has its response: a load's row lands then (the writer takes it
// on); a store's row is in global memory.
void tma_loader::row_read_done(tlm::tlm_generic_payload* gp, const sc_core::sc_time& at) {
  auto node = reading_.extract(gp);
  row_read& rr = node.mapped();
  if (gp->get_response_status() != tlm::TLM_OK_RESPONSE) {
    fault((rr.store ? "store #" : "load #") + std::to_string(rr.row.copy) + ": global " +
          (rr.store ? "write" : "read") + " at " + hex(rr.addr) + ": " + gp->get_response_string());
    gp->release();
    return;
  }
  gp->release();
  if (rr.store) {
    row_written(rr, to_cycles_ceil(at));
    return;
  }
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
    if (!r.store && overlaps(r.row)) return true;
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
  std::size_t load_reads = 0;
  for (const auto& [gp, r] : reading_) load_reads += r.store == 0;
  const std::size_t rows = landing_.size() + to_read_.size() - store_rows + load_reads;
  if (rows)
    s += std::to_string(rows) + " rows of load #" + std::to_string(loads_.begin()->first) +
         (loads_.size() > 1 ? " and later loads" : "") + " still to land";
  std::size_t writing = 0;
  for (const auto& [gp, r] : reading_) writing += r.store != 0;
  store_rows += writing + to_write_.size();
  if (store_rows)
    s += std::string(rows ? "; " : "") + std::to_string(store_rows) + " rows of store #" +
         std::to_string(stores_finished_ + 1) + (store_progress_.size() > 1 ? " and later stores" : "") +
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
  std::uint64_t t = p_.ideal ? start : std::max(start, next_issue_) + p_.issue_latency;  // (an occupancy, as for loads)
  store_progress_[id] = {t, rows * row, rows};
  const unsigned interval = p_.ideal ? 0 : p_.issue_interval;
  std::array<std::uint32_t, 5> idx{};
  for (std::uint64_t r = 0; r < rows; ++r, t += interval) {
    // The row is read from shared memory (through the swizzle) at cycle t, and the part inside
    // the tensor written to global memory when the read is back (the reader does both).
    row_read rr;
    rr.t = t;
    rr.store = id;
    const std::uint64_t box_off = r * row;
    rr.row.smem_addr = smem_addr + box_off;
    if (d.swizzle != swizzle_mode::none)
      for (std::uint64_t c = 0; c < row; c += 16) rr.row.chunks.push_back(smem_addr + swizzle_offset(box_off + c, d.swizzle));
    rr.row.data.assign(row, 0);
    rr.row.copy = id;
    bool inside = true;
    const std::uint64_t addr = row_address(d, coords, idx, inside);
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
  if (!p_.ideal) next_issue_ = t;
  to_read_ev_.notify(sc_core::SC_ZERO_TIME);
  return {};
}

// A store's row at its cycle: read from shared memory (LT: the memory answers with the data
// as they are at the cycle it reads them), then its part inside the tensor queued for the
// reader to send to global memory as an AT write at the cycle the read's data are back. No
// write is waited for: the reader goes on with the next rows while the writes travel.
void tma_loader::store_row(row_read& rr) {
  const std::uint64_t t = to_cycles_ceil(flynn::sim_now());
  const auto row = static_cast<unsigned>(rr.row.data.size());
  std::uint64_t read = t;
  if (auto e = transfer(shared, tlm::TLM_READ_COMMAND, rr.row.chunks.empty() ? rr.row.smem_addr : rr.row.chunks.front(),
                        rr.row.data.data(), row, t, read, rr.row.chunks.empty() ? nullptr : &rr.row.chunks);
      !e.empty()) {
    fault("store #" + std::to_string(rr.store) + ": " + e);
    return;
  }
  ++shared_requests_;
  if (rr.len == 0) {  // wholly outside the tensor: nothing to write
    row_written(rr, read);
    return;
  }
  bytes_stored_ += rr.len;
  to_write_.emplace(read, std::move(rr));  // the reader sends it at `read`
}

// A store's row is written (its global write answered at `written`, or nothing to write):
// the store is done when its last row is, and stores finish in order.
void tma_loader::row_written(row_read& rr, std::uint64_t written) {
  const auto row = static_cast<std::int64_t>(rr.row.data.size());
  in_flight_[written] -= row;
  ++rows_;
  std::uint64_t& done = store_done_[rr.store];
  done = std::max(done, written);
  busy_until_ = std::max(busy_until_, written);
  store_progress& sp = store_progress_.at(rr.store);
  if (--sp.rows_left) return;
  // Stores finish in order: the next unfinished ones whose rows are all written.
  for (auto it = store_progress_.begin(); it != store_progress_.end() && it->second.rows_left == 0;) {
    const std::uint64_t id = it->first;
    stores_finished_ = id;
    if (timeline_)
      timeline_->span(name(), "tma.store", "store " + std::to_string(it->second.bytes) + " B", id,
                      to_time(it->second.first_row), to_time(store_done_[id]));
    it = store_progress_.erase(it);
  }
  progress_ev_.notify(sc_core::SC_ZERO_TIME);
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

#include "flynn/gmma/gmma_unit.h"

#include <algorithm>
#include <cstring>

#include "flynn/common/format.h"
#include "flynn/regfile/register_file.h"
#include "flynn/tensor/tensor_core.h"
#include "flynn/tlm/wavefront_extension.h"

namespace flynn {

std::vector<param_issue> gmma_unit_params::check() const {
  std::vector<param_issue> r;
  if (column_group % 8) r.push_back({"column_group", "a multiple of 8 columns", std::to_string(column_group)});
  return r;
}

gmma_unit::gmma_unit(const sc_core::sc_module_name& name, const params& p)
    : lt_initiator(name, p.clock_ns), smem("smem"), link("gmma"), p_(p) {
  throw_if_invalid("gmma_unit", p_.check());
  smem.bind(*this);
  for (unsigned w = 0; w < p_.warps; ++w) {
    tc.push_back(std::make_unique<tlm::tlm_initiator_socket<32>>(("tc" + std::to_string(w)).c_str()));
    tc.back()->bind(*this);
    rf.push_back(std::make_unique<tlm::tlm_initiator_socket<32>>(("rf" + std::to_string(w)).c_str()));
    rf.back()->bind(*this);
  }
  link.bind(*this);
  tc_end_.assign(p_.warps, 0);
  SC_THREAD(worker);
}

std::string gmma_unit::pending_work() const {
  std::string w = waiting();
  if (!w.empty()) w = "wgmma start barrier: " + w;
  if (!ready_.empty())
    w += (w.empty() ? "" : "; ") + std::to_string(ready_.size()) + " wgmma started, the first of " +
         ready_.front().parts[0].where;
  return w;
}

std::string gmma_unit::waiting() const {
  std::string s;
  for (const auto& [group, q] : open_)
    for (const auto& g : q) {
      std::string who;
      for (unsigned w = 0; w < p_.warps; ++w)
        if (g.present[w]) who += (who.empty() ? "" : ", ") + std::to_string(w);
      s += (s.empty() ? "" : "; ") + std::string("warpgroup ") + std::to_string(group) + ": warps " + who + " of " +
           std::to_string(p_.warps) + " arrived";
      for (unsigned w = 0; w < p_.warps; ++w)
        if (g.present[w]) {
          s += " (" + g.parts[w].where + ")";
          break;
        }
    }
  return s;
}

bool gmma_unit::completion(std::uint64_t id, std::uint64_t& cycle) const {
  if (id >= completion_.size() || completion_[id] < 0) return false;
  cycle = static_cast<std::uint64_t>(completion_[id]);
  return true;
}

// Decodes and checks the descriptors and that every operand byte lies in the block's window.
std::string gmma_unit::check_operands(const wgmma_request& r) const {
  auto check = [&](const char* which, std::uint64_t bits, unsigned rows) -> std::string {
    matrix_descriptor d;
    std::string e = matrix_descriptor::decode(bits, d);
    if (e.empty()) e = d.validate();
    if (e.empty())
      for (unsigned row = 0; row < rows && e.empty(); ++row)
        for (unsigned kb = 0; kb < wgmma_row_bytes; kb += wgmma_chunk_bytes) {
          const std::uint64_t a = wgmma_operand_address(d, row, kb);
          if (a + wgmma_chunk_bytes > r.smem_bytes) {
            e = "row " + std::to_string(row) + " lies at shared address " + hex(a) + ", outside the block's " +
                std::to_string(r.smem_bytes) + " bytes";
            break;
          }
        }
    return e.empty() ? e : std::string(which) + " descriptor " + hex(bits) + ": " + e;
  };
  if (!r.a_in_registers)
    if (auto e = check("A", r.a_desc, wgmma_m); !e.empty()) return e;
  return check("B", r.b_desc, r.n);
}

std::string gmma_unit::issue(const wgmma_request& r, std::uint64_t t, std::uint64_t& id) {
  if (r.warp_in_group >= p_.warps)
    return "wgmma from warp " + std::to_string(r.warp_in_group) + " of a warpgroup, the GMMA unit serves " +
           std::to_string(p_.warps) + " warps";
  if (auto e = check_operands(r); !e.empty()) return e;
  auto& q = open_[r.group];
  auto it = std::find_if(q.begin(), q.end(), [&](const gathering& g) { return !g.present[r.warp_in_group]; });
  if (it == q.end()) {
    q.emplace_back();
    it = std::prev(q.end());
    it->parts.resize(p_.warps);
    it->present.assign(p_.warps, false);
    it->ids.resize(p_.warps);
    it->arrived.resize(p_.warps);
  }
  gathering& g = *it;
  for (unsigned w = 0; w < p_.warps; ++w) {
    const wgmma_request& other = g.parts[w];
    if (g.present[w] && (other.n != r.n || other.type != r.type || other.a_in_registers != r.a_in_registers ||
                    other.accumulate != r.accumulate || other.b_desc != r.b_desc ||
                    (!r.a_in_registers && other.a_desc != r.a_desc)))
      return "the warps of the warpgroup issued different wgmma instructions: this one and " + other.where;
  }
  id = completion_.size();
  completion_.push_back(-1);
  g.parts[r.warp_in_group] = r;
  g.present[r.warp_in_group] = true;
  g.ids[r.warp_in_group] = id;
  g.arrived[r.warp_in_group] = t;
  ++g.count;
  ++hw_instructions_;
  if (g.count < p_.warps || it != q.begin()) return {};
  // Complete groups go to the worker in arrival order; it moves their data at the cycles
  // the state machine says (operand reads sample shared memory then, not now).
  while (!q.empty() && q.front().count == p_.warps) {
    ready_.push_back(std::move(q.front()));
    q.pop_front();
  }
  if (q.empty()) open_.erase(r.group);
  work_ev_.notify(sc_core::SC_ZERO_TIME);
  return {};
}

// The worker runs each MMA at the cycles it models and never goes back: a request for a
// cycle that has passed is made now (the port it goes to was busy until now in any case).
void gmma_unit::worker() {
  for (;;) {
    while (ready_.empty()) wait(work_ev_);
    if (std::string e = run(ready_.front()); !e.empty()) {
      fault("wgmma of " + ready_.front().parts[0].where + ": " + e);
      return;
    }
    ready_.pop_front();
    progress_ev_.notify(sc_core::SC_ZERO_TIME);  // completions became known
  }
}

std::string gmma_unit::read_chunks(const std::vector<std::uint64_t>& addrs, std::uint64_t at, unsigned char* out,
                                   std::uint64_t& landed) {
  wavefront_extension served;  // the memory says how many wavefronts the read took
  wait_until(at);  // the read samples shared memory at its own cycle
  const transport_result r = transport_lanes(smem, tlm::TLM_READ_COMMAND, addrs, out,
                                             static_cast<unsigned>(addrs.size()) * wgmma_chunk_bytes, at, &served);
  ++smem_requests_;
  smem_wavefronts_ += served.wavefronts;
  if (!r.ok()) return "shared read at " + hex(addrs.front()) + ": " + r.response_string();
  if (r.lanes_ignored)
    return "shared read at " + hex(addrs.front()) + ": the target ignored the lanes extension (operand reads need a "
           "lanes-aware shared memory such as banked_memory)";
  landed = r.done;
  return {};
}

// Reads or writes warp registers `regs` of warp part `r` through sub-partition w's register
// file; `data` is register-major (warp_register_bytes per register).
std::string gmma_unit::registers(unsigned w, bool write, const std::array<std::uint32_t*, warp_lanes>& lanes,
                                 unsigned stride, const std::vector<unsigned>& regs, std::uint64_t at,
                                 std::vector<unsigned char>& data, std::uint64_t& done) {
  register_access_extension& x = reg_access_;
  x.lanes = lanes;
  x.register_stride = stride;
  x.registers.assign(regs.begin(), regs.end());
  data.resize(x.registers.size() * warp_register_bytes);
  const transport_result res = transport(*rf[w], write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, 0,
                                         data.data(), static_cast<unsigned>(data.size()), at, &x);
  if (!res.ok()) return "register file " + std::to_string(w) + ": " + res.response_string();
  done = res.done;
  return {};
}

// The idle cycles of tensor core w from its last block's end to `start`, each given to the
// cause that held the next block then: before the MMA's first warp arrived, that warp's last
// wait (while it waited) or its other instructions; then the start barrier, the operand
// reads and the accumulators, in the MMA's order of events.
void gmma_unit::count_idle(unsigned w, std::uint64_t start, std::uint64_t end, const idle_marks& m) {
  std::uint64_t p = tc_end_[w];
  tc_end_[w] = std::max(tc_end_[w], end);
  if (start <= p) return;
  const auto upto = [&](std::uint64_t to, stat_counter& c) {
    to = std::min(std::max(to, p), start);
    c += to - p;
    p = to;
  };
  if (m.wait_kind != 0) {
    upto(std::min(m.wait_from, m.first), idle_issue_);
    upto(std::min(m.wait_to, m.first), m.wait_kind == 1 ? idle_stage_ : m.wait_kind == 2 ? idle_group_ : idle_other_wait_);
  }
  upto(m.first, idle_issue_);
  upto(m.last, idle_barrier_);
  upto(m.operands, idle_operands_);
  upto(start, idle_accumulators_);
}

// mma.sync: the operand collector reads A, B and C (10 warp registers) through the
// sub-partition's register file at the issue cycle; the tensor core runs the 16 x 8 x 16
// block when they are in and its earlier work is done; D goes back through the register
// file's result queue. (Called from the SIMT core's process: the register file and the
// tensor core answer at once with the cycles they model.)
std::string gmma_unit::mma_sync(const mma_sync_request& r, std::uint64_t t, std::uint64_t& done) {
  if (r.sub_partition >= p_.warps)
    return "mma.sync from sub-partition " + std::to_string(r.sub_partition) + ", the GMMA unit's register files and "
           "tensor cores serve " + std::to_string(p_.warps);
  const unsigned w = r.sub_partition;
  std::vector<unsigned> regs;
  for (unsigned i = 0; i < 4; ++i) regs.push_back(r.a_reg + i);
  for (unsigned i = 0; i < 2; ++i) regs.push_back(r.b_reg + i);
  for (unsigned i = 0; i < 4; ++i) regs.push_back(r.c_reg + i);
  std::uint64_t ready = t;
  if (auto e = registers(w, false, r.lanes, r.register_stride, regs, t, sync_in_, ready); !e.empty())
    return "mma.sync operands: " + e;
  rf_read_bytes_ += 6 * warp_register_bytes;
  rf_acc_read_bytes_ += 4 * warp_register_bytes;
  // A row-major (16 rows of 32 bytes), B column by column (8 columns of 32 bytes), C and D
  // row-major fp32.
  sync_a_.assign(std::size_t(mma_sync_m) * wgmma_row_bytes, 0);
  sync_b_.assign(std::size_t(mma_sync_n) * wgmma_row_bytes, 0);
  sync_tile_.assign(std::size_t(mma_sync_m) * mma_sync_n, 0.0f);
  const auto lane_word = [&](unsigned k, unsigned l) { return &sync_in_[warp_register_bytes * k + lane_register_bytes * l]; };
  for (unsigned l = 0; l < warp_lanes; ++l) {
    const unsigned g = l / 4, c = 2 * (l % 4);
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row = 0, col = 0;
      wgmma_a_position(l, i, row, col);
      std::memcpy(&sync_a_[row * wgmma_row_bytes + col * wgmma_element_bytes], lane_word(i, l), lane_register_bytes);
    }
    for (unsigned i = 0; i < 2; ++i)  // rows c + 8i and + 1 of column g: adjacent in the column
      std::memcpy(&sync_b_[g * wgmma_row_bytes + (c + 8 * i) * wgmma_element_bytes], lane_word(4 + i, l), lane_register_bytes);
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row = 0, col = 0;
      wgmma_d_position(l, i, row, col);
      std::memcpy(&sync_tile_[row * mma_sync_n + col], lane_word(6 + i, l), lane_register_bytes);
    }
  }
  mma_step_extension x;
  x.set_block(mma_sync_m, mma_sync_n, mma_sync_k, r.type, r.type, sync_a_.data(), sync_b_.data(), sync_tile_.data());
  const transport_result math = transport(*tc[w], tlm::TLM_IGNORE_COMMAND, 0, nullptr, 0, ready, &x);
  ++tc_blocks_;
  if (!math.ok()) return "mma.sync: tensor core " + std::to_string(w) + ": " + math.response_string();
  idle_marks marks;
  marks.first = marks.last = t;
  marks.operands = ready;
  count_idle(w, x.start, x.end, marks);
  sync_out_.assign(4 * warp_register_bytes, 0);
  for (unsigned l = 0; l < warp_lanes; ++l)
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row = 0, col = 0;
      wgmma_d_position(l, i, row, col);
      std::memcpy(&sync_out_[warp_register_bytes * i + lane_register_bytes * l], &sync_tile_[row * mma_sync_n + col],
                  lane_register_bytes);
    }
  regs.assign({r.d_reg, r.d_reg + 1, r.d_reg + 2, r.d_reg + 3});
  if (auto e = registers(w, true, r.lanes, r.register_stride, regs, math.done, sync_out_, done); !e.empty())
    return "mma.sync D: " + e;
  rf_write_bytes_ += sync_out_.size();
  ++sync_mmas_;
  sync_fmas_ += std::uint64_t(mma_sync_m) * mma_sync_n * mma_sync_k;
  sync_first_ = std::min(sync_first_, t);
  sync_last_ = std::max(sync_last_, done);
  return {};
}

std::string gmma_unit::run(gathering& g) {
  const wgmma_request& r0 = g.parts[0];
  const unsigned n = r0.n, warps = p_.warps, cg = p_.column_group;
  const std::uint64_t last = *std::max_element(g.arrived.begin(), g.arrived.end());
  const auto first_it = std::min_element(g.arrived.begin(), g.arrived.end());
  const std::uint64_t first = *first_it;
  idle_marks marks;  // (the first warp to arrive: its last wait before it did)
  marks.first = first;
  marks.last = last;
  marks.wait_kind = g.parts[static_cast<std::size_t>(first_it - g.arrived.begin())].wait_kind;
  marks.wait_from = g.parts[static_cast<std::size_t>(first_it - g.arrived.begin())].wait_from;
  marks.wait_to = g.parts[static_cast<std::size_t>(first_it - g.arrived.begin())].wait_to;
  start_wait_ += last - first;
  ++wgmmas_;
  const unsigned kk = wgmma_k_of(r0.type);  // K: 32 bytes of each operand row
  fmas_ += std::uint64_t(warps) * wgmma_warp_rows * n * kk;
  const std::uint64_t start = last + p_.start_latency;
  std::uint64_t t = start;  // request issue cycle: when an operand buffer is free
  if (p_.operand_buffers > 1 && math_starts_.size() >= p_.operand_buffers - 1)
    t = std::max(t, math_starts_[math_starts_.size() - (p_.operand_buffers - 1)]);
  else if (p_.operand_buffers == 1 && last_end_ > 0)
    t = std::max(t, last_end_);

  // 2. A slices: warp w's rows 16w .. 16w+15, row-major, 32 bytes (K elements) a row.
  std::vector<std::vector<unsigned char>> a(warps, std::vector<unsigned char>(wgmma_warp_rows * wgmma_row_bytes));
  std::vector<std::uint64_t> a_ready(warps, t);
  if (auto e = read_a(g, t, a, a_ready); !e.empty()) return e;
  matrix_descriptor bd;
  matrix_descriptor::decode(r0.b_desc, bd);
  // 3. and 4. B column groups, read once and multicast (group q holds columns cg*q ..
  // cg*q+cg-1, K-major), each followed by its math on every warp's datapath and the D
  // write-back: the reads go out in cycle order while the math of earlier groups runs.
  const unsigned groups = n / cg + (n % cg ? 1 : 0);
  // A read carries at most a lanes_extension's lanes of chunks: this many B columns.
  const unsigned columns_per_read = lanes_extension::max_lanes * wgmma_chunk_bytes / wgmma_row_bytes;
  std::vector<std::vector<unsigned char>> b(groups);
  std::vector<std::uint64_t> b_ready(groups);
  std::uint64_t math_start = UINT64_MAX, end = 0;
  std::vector<std::uint64_t> part_done(warps, 0), group_start(groups, 0);
  std::vector<std::uint64_t> addrs;
  for (unsigned q = 0; q < groups; ++q) {
    const unsigned cols = std::min(cg, n - q * cg);
    b[q].resize(std::size_t(cols) * wgmma_row_bytes);
    for (unsigned c0 = 0; c0 < cols; c0 += columns_per_read) {
      addrs.clear();
      for (unsigned c = c0; c < std::min(cols, c0 + columns_per_read); ++c)
        for (unsigned kb = 0; kb < wgmma_row_bytes; kb += wgmma_chunk_bytes)
          addrs.push_back(r0.smem_base + wgmma_operand_address(bd, q * cg + c, kb));
      std::uint64_t landed = t;  // (the chunks land in the group's columns c0 ... in order)
      if (auto e = read_chunks(addrs, t++, &b[q][std::size_t(c0) * wgmma_row_bytes], landed); !e.empty())
        return "wgmma B: " + e;
      b_ready[q] = std::max(b_ready[q], landed);
    }
    b_smem_bytes_ += std::uint64_t(cols) * wgmma_row_bytes;
    b_multicast_bytes_ += std::uint64_t(cols) * wgmma_row_bytes * warps;
    for (unsigned w = 0; w < warps; ++w) {
      const std::uint64_t ready = std::max(a_ready[w], b_ready[q]);
      std::uint64_t started = ready;
      if (auto e = warp_math(g, w, q, cols, a[w], b[q], ready, marks, math_start, started, part_done[w]); !e.empty())
        return e;
      if (w == 0) group_start[q] = started;
    }
  }
  for (unsigned w = 0; w < warps; ++w) {
    completion_[g.ids[w]] = static_cast<std::int64_t>(part_done[w]);  // the part's barrier
    end = std::max(end, part_done[w]);
  }
  trace_phases(wgmmas_.value(), {first, start, math_start, end}, g.arrived, group_start, part_done);
  report(r0, {first, last, t, start, math_start, end});
  return {};
}

// The unit's signals follow one MMA at a time, the oldest in flight: MMA `id` from its first
// warp's arrival, or from the cycle after the previous MMA's end signal if that is later, to
// its own end signal; then idle (all 0) unless the next MMA follows on. The worker runs MMAs
// in order, so each is traced once its cycles are known; one that ends no later than the MMA
// before it is not shown. `at`: first warp arrived, operand fetch, math, end signal;
// `arrived`, `parts`: the warps' arrivals and their parts' completions; `groups`: when
// sub-partition 0 starts each B column group.
void gmma_unit::trace_phases(std::uint64_t id, const std::array<std::uint64_t, 4>& at,
                             std::vector<std::uint64_t> arrived, const std::vector<std::uint64_t>& groups,
                             std::vector<std::uint64_t> parts) {
  if (!state_.enabled()) return;
  const std::uint64_t from = std::max(at[0], shown_until_), end = at[3];
  if (from > end) return;
  shown_until_ = end + 1;
  using changes = std::vector<std::pair<std::uint64_t, std::uint64_t>>;  // (cycle, value), in time order
  // A signal steps through its changes; those up to `from` show as the value at it, and of
  // changes at one cycle the last counts.
  const auto steps = [&](trace_signal& sig, const changes& c) {
    std::uint64_t v = 0;
    for (const auto& [cycle, value] : c)
      if (cycle <= from) v = value;
    sig.set(to_time(from), v);
    for (std::size_t k = 0; k < c.size(); ++k)
      if (c[k].first > from && (k + 1 == c.size() || c[k + 1].first != c[k].first)) sig.set(to_time(c[k].first), c[k].second);
  };
  const auto counted = [](std::vector<std::uint64_t> cycles) {  // how many of `cycles` have passed
    std::sort(cycles.begin(), cycles.end());
    changes c;
    for (std::size_t k = 0; k < cycles.size(); ++k) c.emplace_back(cycles[k], k + 1);
    return c;
  };
  mma_id_.set(to_time(from), id);
  steps(state_, {{at[0], 1}, {at[1], 2}, {at[2], 3}, {at[3], 4}});
  steps(arrived_sig_, counted(std::move(arrived)));
  changes g;
  for (std::size_t q = 0; q < groups.size(); ++q) g.emplace_back(groups[q], q);
  std::stable_sort(g.begin(), g.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  steps(group_sig_, g);
  steps(parts_done_, counted(std::move(parts)));
  for (trace_signal* sig : {&state_, &mma_id_, &arrived_sig_, &group_sig_, &parts_done_}) sig->set(to_time(end + 1), 0);
}

void gmma_unit::attach_trace(trace_sink& sink) {
  if (sink.wants_timeline()) timeline_ = &sink;
  state_.attach(&sink, name(), "state", 3);
  mma_id_.attach(&sink, name(), "mma_id", 32);
  arrived_sig_.attach(&sink, name(), "start_barrier_arrived", 4);
  group_sig_.attach(&sink, name(), "b_column_group", 8);
  parts_done_.attach(&sink, name(), "parts_done", 4);
}

}  // namespace flynn

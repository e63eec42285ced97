// The GMMA unit's steps of one warpgroup MMA (gmma_unit::run): each warp's A slice, each
// warp's math on a column group with its accumulators, and the MMA's report.
#include "flynn/gmma/gmma_unit.h"
#include <algorithm>
#include <cstring>
#include "flynn/common/format.h"
#include "flynn/regfile/register_file.h"
#include "flynn/tensor/tensor_core.h"
#include "flynn/tlm/wavefront_extension.h"

namespace flynn {

// Step 2: each warp's A slice (warp w's rows 16w .. 16w+15, row-major, K elements a row)
// from its registers (.rs) or from shared memory through its descriptor; the requests go out
// from cycle t on (t moves past them), a_ready[w] the cycle warp w's slice is in.
std::string gmma_unit::read_a(const gathering& g, std::uint64_t& t, std::vector<std::vector<unsigned char>>& a,
                              std::vector<std::uint64_t>& a_ready) {
  const wgmma_request& r0 = g.parts[0];
  matrix_descriptor ad;
  if (!r0.a_in_registers) matrix_descriptor::decode(r0.a_desc, ad);
  for (unsigned w = 0; w < p_.warps; ++w) {
    const wgmma_request& r = g.parts[w];
    if (r.a_in_registers) {
      std::vector<unsigned> a_regs;
      for (unsigned i = 0; i < wgmma_a_registers; ++i) a_regs.push_back(r.a_reg + i);
      std::vector<unsigned char> data;
      if (auto e = registers(w, false, r, a_regs, t, data, a_ready[w]); !e.empty()) return "wgmma A: " + e;
      for (unsigned l = 0; l < warp_lanes; ++l)
        for (unsigned i = 0; i < wgmma_a_registers; ++i) {
          unsigned row = 0, col = 0;
          wgmma_a_position(l, i, row, col);
          // (the pair of 16-bit elements, low half first, at columns col and col + 1)
          std::memcpy(&a[w][row * wgmma_row_bytes + col * wgmma_element_bytes],
                      &data[warp_register_bytes * i + lane_register_bytes * l], lane_register_bytes);
        }
      rf_read_bytes_ += wgmma_a_registers * warp_register_bytes;
    } else {
      std::vector<std::uint64_t> addrs;
      for (unsigned row = 0; row < wgmma_warp_rows; ++row)
        for (unsigned kb = 0; kb < wgmma_row_bytes; kb += wgmma_chunk_bytes)
          addrs.push_back(r.smem_base + wgmma_operand_address(ad, wgmma_warp_rows * w + row, kb));
      std::vector<unsigned char> buf(addrs.size() * wgmma_chunk_bytes);
      if (auto e = read_chunks(addrs, t++, buf.data(), a_ready[w]); !e.empty()) return "wgmma A: " + e;
      std::memcpy(a[w].data(), buf.data(), a[w].size());
      a_smem_bytes_ += wgmma_warp_rows * wgmma_row_bytes;
    }
  }
  return {};
}

// The tile positions of the column group's accumulator registers first .. first + count - 1
// (columns col0 .. col0 + cols - 1 of the warp's D), for every lane.
const std::vector<std::uint32_t>& gmma_unit::d_layout(unsigned first, unsigned count, unsigned cols, unsigned col0) {
  std::vector<std::uint32_t>& at = d_layouts_[{first, count, cols, col0}];
  if (at.empty())
    for (unsigned k = 0; k < count; ++k)
      for (unsigned l = 0; l < warp_lanes; ++l) {
        unsigned row = 0, col = 0;
        wgmma_d_position(l, first + k, row, col);
        at.push_back(row * cols + (col - col0));
      }
  return at;
}

// Step 4 for warp w and column group q (`cols` columns): C from the accumulators (once an
// earlier MMA's D has landed in them), the math on the warp's tensor core from cycle
// `ready` (its operands in), and D back into the accumulators through the register file.
// started: the cycle the math could start at; done: the latest cycle the warp's D landed.
std::string gmma_unit::warp_math(const gathering& g, unsigned w, unsigned q, unsigned cols,
                                 const std::vector<unsigned char>& a, const std::vector<unsigned char>& b,
                                 std::uint64_t ready, idle_marks& marks, std::uint64_t& math_start,
                                 std::uint64_t& started, std::uint64_t& done) {
  const wgmma_request& r = g.parts[w];
  const wgmma_request& r0 = g.parts[0];
  const unsigned cg = p_.column_group, kk = wgmma_k_of(r0.type);
  std::vector<float>& tile = tile_;
  std::vector<unsigned char>& data = data_;
  // The group's accumulator registers: 4 per 8 columns (register 4j + k holds columns of chunk j).
  std::vector<unsigned>& regs = acc_regs_;
  regs.clear();
  for (unsigned i = q * cg / 2; i < (q * cg + cols) / 2; ++i) regs.push_back(r.acc_reg + i);
  marks.operands = ready;
  // (C, when accumulating, fills every element of the tile when the registers cover it: d_layout)
  if (r.accumulate && regs.size() * warp_lanes == std::size_t(wgmma_warp_rows) * cols)
    tile.resize(std::size_t(wgmma_warp_rows) * cols);
  else tile.assign(std::size_t(wgmma_warp_rows) * cols, 0.0f);
  auto& written_at = acc_written_[{r.group, w}];  // accumulator register -> cycle its last D lands
  if (!regs.empty() && written_at.size() <= *std::max_element(regs.begin(), regs.end()))
    written_at.resize(std::size_t(*std::max_element(regs.begin(), regs.end())) + 1, 0);
  if (r.accumulate) {  // C from the accumulators, once an earlier MMA's D has landed in them
    std::uint64_t dep = 0;
    for (unsigned reg : regs) dep = std::max(dep, written_at[reg]);
    if (dep > ready) {
      accumulator_wait_ += dep - ready;
      ready = dep;
    }
    std::uint64_t c_ready = ready;
    if (auto e = registers(w, false, r, regs, ready, data, c_ready); !e.empty()) return "wgmma C: " + e;
    ready = c_ready;
    rf_acc_read_bytes_ += data.size();
    const std::vector<std::uint32_t>& at = d_layout(q * cg / 2, static_cast<unsigned>(regs.size()), cols, q * cg);
    for (std::size_t i = 0; i < at.size(); ++i)  // (register k, lane l) at i = k * warp_lanes + l
      std::memcpy(&tile[at[i]], &data[lane_register_bytes * i], lane_register_bytes);
  }
  mma_step_extension x;
  x.set_block(wgmma_warp_rows, cols, kk, r0.type, r0.b_type, a.data(), b.data(), tile.data());
  math_start = std::min(math_start, ready);
  started = ready;
  const transport_result math = transport(*tc[w], tlm::TLM_IGNORE_COMMAND, 0, nullptr, 0, ready, &x);
  ++tc_blocks_;
  if (!math.ok()) return "tensor core " + std::to_string(w) + ": " + math.response_string();
  count_idle(w, x.start, x.end, marks);
  // D back into the accumulators through the register file's result queue.
  data.resize(regs.size() * warp_register_bytes);  // (every byte written below)
  const std::vector<std::uint32_t>& at = d_layout(q * cg / 2, static_cast<unsigned>(regs.size()), cols, q * cg);
  for (std::size_t i = 0; i < at.size(); ++i)
    std::memcpy(&data[lane_register_bytes * i], &tile[at[i]], lane_register_bytes);
  std::uint64_t written = 0;
  if (auto e = registers(w, true, r, regs, math.done, data, written); !e.empty())
    return "wgmma D: " + e;
  done = std::max(done, written);
  for (unsigned reg : regs) written_at[reg] = written;
  rf_write_bytes_ += data.size();
  return {};
}

// An MMA's phases in the debug lines, the log and the timeline, and what the next one
// needs of it: at = {first and last warp arrived, operand requests from, start, math
// start, end}.
void gmma_unit::report(const wgmma_request& r0, const std::array<std::uint64_t, 6>& at) {
  const auto [first, last, t, start, math_start, end] = at;
  const unsigned n = r0.n, warps = p_.warps, kk = wgmma_k_of(r0.type);
  if (debugging(debug_gmma))
    debug(debug_gmma, first,
          "wgmma m64n" + std::to_string(n) + "k16 of warpgroup " + std::to_string(r0.group) + ": warps arrived " +
              std::to_string(first) + " .. " + std::to_string(last) + ", operands from " + std::to_string(t) +
              ", math from " + std::to_string(math_start) + ", end " + std::to_string(end));
  if (log_enabled(sc_core::SC_HIGH))
    log(sc_core::SC_HIGH, "wgmma m64n" + std::to_string(n) + "k16 of warpgroup " + std::to_string(r0.group) +
                              ": warps arrived " + std::to_string(first) + " .. " + std::to_string(last) +
                              ", operands from " + std::to_string(t) + ", math from " + std::to_string(math_start) +
                              ", end " + std::to_string(end));
  if (trace_sink* tl = timeline_) {
    const std::uint64_t id = wgmmas_.value();
    const std::string what = "wgmma m64n" + std::to_string(n) + "k16 #" + std::to_string(id);
    tl->span(name(), "gmma.start_barrier", what, id, to_time(first), to_time(last));
    tl->span(name(), "gmma.operands", what, id, to_time(start), to_time(std::max(start, math_start)));
    tl->span(name(), "gmma.math", what, id, to_time(math_start), to_time(end));
  }
  math_starts_.push_back(math_start);
  while (math_starts_.size() > p_.operand_buffers) math_starts_.pop_front();
  if (wgmmas_.value() == 1) {
    first_end_ = end;
    if (trace_sink* sink = state_.sink()) {  // a waveform view of this first MMA
      const std::vector<std::string> scopes{name()};  // this unit's signals first, then the rest
      sink->add_view({"gmma", "one wgmma from the start barrier (marker A) to the end signal (marker B)", scopes,
                      to_time(first), to_time(end)});
    }
  }
  else
    fmas_after_first_ += std::uint64_t(warps) * wgmma_warp_rows * n * kk;
  last_end_ = end;
}

}  // namespace flynn

#include "flynn/gmma/mma_engine.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "flynn/common/format.h"
#include "flynn/tlm/wavefront_extension.h"

namespace flynn {

param_footprint mma_engine_params::footprint() const {
  // A and B (2-byte elements), C and D (4-byte), and the units' operand slices.
  const std::uint64_t mk = std::uint64_t(m) * k, kn = std::uint64_t(k) * n, mn = std::uint64_t(m) * n;
  return {2 * mk + 2 * kn + 8 * mn + 4 * (mk + kn), 0};
}

std::vector<param_issue> mma_engine_params::check() const {
  std::vector<param_issue> r;
  if (scope_threads != 8 && scope_threads != 32 && scope_threads != 128)
    r.push_back({"scope_threads", "8, 32 or 128", std::to_string(scope_threads)});
  else if (scope_threads > warp_lanes * sub_partitions)
    r.push_back({"scope_threads", "at most the warpgroup's " + std::to_string(warp_lanes * sub_partitions) + " threads",
                 std::to_string(scope_threads)});
  if (m % sub_partitions) r.push_back({"m", "a multiple of sub_partitions", std::to_string(m)});
  if (k % k_block) r.push_back({"k", "a multiple of k_block (" + std::to_string(k_block) + ")", std::to_string(k)});
  if (!r.empty()) return r;
  const unsigned units_per_warp = scope_threads < warp_lanes ? warp_lanes / scope_threads : 1;
  const unsigned warps_per_unit = scope_threads > warp_lanes ? scope_threads / warp_lanes : 1;
  const unsigned unit_rows = m / sub_partitions * warps_per_unit;
  if (n % units_per_warp || (n / units_per_warp) % column_group)
    r.push_back({"n", "columns that split evenly into units and column groups", std::to_string(n)});
  else if (unit_rows % instr_m || (n / units_per_warp) % instr_n || k_block % instr_k)
    r.push_back({"instr_m", "an instruction shape that tiles each unit's " + std::to_string(unit_rows) + " x " +
                                std::to_string(n / units_per_warp) + " x " + std::to_string(k_block) + " block",
                 std::to_string(instr_m) + "x" + std::to_string(instr_n) + "x" + std::to_string(instr_k)});
  const std::string request = std::to_string(mma_smem_request_bytes) + "-byte";
  if ((std::uint64_t(unit_rows) * k_block * 2) % mma_smem_request_bytes ||
      (std::uint64_t(column_group) * k_block * 2) % mma_smem_request_bytes)
    r.push_back({"k_block", "A slices and B column groups of whole " + request + " requests", std::to_string(k_block)});
  if (a_base % mma_smem_request_bytes || b_base % mma_smem_request_bytes)
    r.push_back({"a_base", request + " aligned operands", hex(a_base) + ", " + hex(b_base)});
  return r;
}

mma_engine::mma_engine(const sc_core::sc_module_name& name, const params& p)
    : lt_initiator(name, p.clock_ns), smem("smem"), p_(p) {
  throw_if_invalid("mma_engine", p_.check());
  smem.bind(*this);
  for (unsigned w = 0; w < p_.sub_partitions; ++w) {
    rf.push_back(std::make_unique<rf_socket>(("rf" + std::to_string(w)).c_str()));
    rf.back()->bind(*this);
  }
  SC_HAS_PROCESS(mma_engine);
  SC_THREAD(run);
  std::mt19937 rng(static_cast<std::uint32_t>(p_.seed));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  a_.resize(std::size_t(p_.m) * p_.k);
  b_.resize(std::size_t(p_.k) * p_.n);
  c_.resize(std::size_t(p_.m) * p_.n);
  for (auto& x : a_) x = from_f32(p_.type, u(rng));
  for (auto& x : b_) x = from_f32(p_.type, u(rng));
  for (auto& x : c_) x = u(rng);
}

// Reads `bytes` in mma_smem_request_bytes requests, one per cycle from t; returns when the
// last lands.
// Each request carries a wavefront_extension: the memory says how many wavefronts it took
// (one on 32 banks x 4 B, two on 16 x 4 B, more with bank conflicts).
std::uint64_t mma_engine::fetch(std::uint64_t addr, unsigned bytes, std::uint64_t& t, unsigned char* out) {
  std::uint64_t landed = t;
  for (unsigned off = 0; off < bytes; off += mma_smem_request_bytes, ++t) {
    wavefront_extension served;
    const transport_result r =
        transport(smem, tlm::TLM_READ_COMMAND, addr + off, out + off, mma_smem_request_bytes, t, &served);
    if (!r.ok()) fault("shared read at " + hex(addr + off) + ": " + r.response_string());
    ++smem_requests_;
    smem_wavefronts_ += std::max(1u, served.wavefronts);
    requests_sig_.set(to_time(t), 1);
    requests_sig_.set(to_time(t + 1), 0);
    landed = std::max(landed, r.done);
  }
  return landed;
}

std::uint64_t mma_engine::rf_access(unsigned w, bool write, unsigned first, unsigned count, std::uint64_t at) {
  register_access_extension x;  // (no lanes: the values stay in the engine)
  for (unsigned k = 0; k < count; ++k) x.registers.push_back((first + k) % 256);
  rf_data_.assign(std::size_t(count) * warp_register_bytes, 0);
  const transport_result r = transport(*rf[w], write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, 0, rf_data_.data(),
                                       static_cast<unsigned>(rf_data_.size()), at, &x);
  if (!r.ok()) fault("register file " + std::to_string(w) + ": " + r.response_string());
  if (write) rf_write_bytes_ += rf_data_.size();
  else {
    rf_reads_ += count;
    rf_read_bytes_ += rf_data_.size();
  }
  return r.done;
}

// A and B into shared memory, untimed. Stored K block by K block: block b of A is M rows of
// k_block elements, block b of B is N columns of k_block elements, so one K block of a unit
// is contiguous.
void mma_engine::store_operands() {
  auto put = [this](std::uint64_t addr, std::uint16_t v) {
    if (debug_transport(smem, tlm::TLM_WRITE_COMMAND, addr, reinterpret_cast<unsigned char*>(&v), 2) != 2) fault("operands do not fit the shared memory at " + hex(addr));
  };
  const std::uint64_t kb0 = p_.k_block;
  for (unsigned i = 0; i < p_.m; ++i)
    for (unsigned x = 0; x < p_.k; ++x)
      put(p_.a_base + ((x / kb0 * p_.m + i) * kb0 + x % kb0) * 2, a_[std::size_t(i) * p_.k + x]);
  for (unsigned x = 0; x < p_.k; ++x)
    for (unsigned j = 0; j < p_.n; ++j)
      put(p_.b_base + ((x / kb0 * p_.n + j) * kb0 + x % kb0) * 2, b_[std::size_t(x) * p_.n + j]);
}

// The datapath's arithmetic on a unit's operands of one K block as read: k ascending, fp32
// additions into D.
void mma_engine::accumulate(const unit_state& u, unsigned rows, unsigned cols) {
  const unsigned kb = p_.k_block;
  for (unsigned i = 0; i < rows; ++i)
    for (unsigned j = 0; j < cols; ++j) {
      volatile float acc = d_[std::size_t(u.row0 + i) * p_.n + u.col0 + j];
      for (unsigned x = 0; x < kb; ++x) {
        std::uint16_t av, bv;
        std::memcpy(&av, &u.a[(std::size_t(i) * kb + x) * 2], 2);
        std::memcpy(&bv, &u.b[(std::size_t(j) * kb + x) * 2], 2);
        const float prod = to_f32(p_.type, av) * to_f32(p_.type, bv);
        acc = acc + prod;
      }
      d_[std::size_t(u.row0 + i) * p_.n + u.col0 + j] = acc;
    }
}

// K block blk's operands, requested in order from cycle t (t moves past them): every
// unit's A slice, then B column group by column group. A is row-major with K per row, so a
// unit's slice of this block is rows of kb elements. a_landed[u], b_landed[u * groups + g]:
// the cycles they are in.
void mma_engine::fetch_block(unsigned blk, std::uint64_t& t, std::vector<unit_state>& us, unsigned unit_rows,
                             unsigned groups, std::vector<std::uint64_t>& a_landed,
                             std::vector<std::uint64_t>& b_landed) {
  const unsigned kb = p_.k_block;
  for (std::size_t u = 0; u < us.size(); ++u) {
    std::uint64_t landed = t;
    // A request holds mma_smem_request_bytes / (2 kb) rows of kb elements.
    for (unsigned r = 0; r < unit_rows; r += mma_smem_request_bytes / (kb * 2)) {
      const std::uint64_t addr = p_.a_base + (std::uint64_t(blk) * p_.m + us[u].row0 + r) * kb * 2;
      landed = std::max(landed, fetch(addr, mma_smem_request_bytes, t, &us[u].a[std::size_t(r) * kb * 2]));
    }
    a_landed[u] = landed;
  }
  for (unsigned g = 0; g < groups; ++g)
    for (std::size_t u = 0; u < us.size(); ++u) {
      const unsigned c0 = us[u].col0 + g * p_.column_group;
      b_landed[u * groups + g] = fetch(p_.b_base + (std::uint64_t(blk) * p_.n + c0) * kb * 2, p_.column_group * kb * 2,
                                       t, &us[u].b[std::size_t(g) * p_.column_group * kb * 2]);
    }
}

void mma_engine::run() {
  store_operands();
  const unsigned warps = p_.sub_partitions, kb = p_.k_block, blocks = p_.k / kb;
  const unsigned units_per_warp = p_.scope_threads < warp_lanes ? warp_lanes / p_.scope_threads : 1;
  const unsigned warps_per_unit = p_.scope_threads > warp_lanes ? p_.scope_threads / warp_lanes : 1;
  const unsigned units = warps * units_per_warp / warps_per_unit;
  const unsigned warp_rows = p_.m / warps, unit_rows = warp_rows * warps_per_unit, unit_cols = p_.n / units_per_warp;
  const unsigned groups = unit_cols / p_.column_group;
  units_ += units;
  k_blocks_ += blocks;
  const bool via_rf = p_.operands == operand_path::registers;

  // A and B fragment bytes one warp instruction reads from the register file: a warp
  // instruction drives every unit of the warp; a warpgroup instruction is split over its
  // warps.
  const std::uint64_t frag_a = std::uint64_t(p_.instr_m) * p_.instr_k * 2 * units_per_warp / warps_per_unit;
  const std::uint64_t frag_b = std::uint64_t(p_.instr_k) * p_.instr_n * 2 * units_per_warp / warps_per_unit;
  // The math of one warp on one column group of one K block.
  const std::uint64_t step_fmas = std::uint64_t(warp_rows) * unit_cols * units_per_warp / groups * kb;
  const std::uint64_t step_cycles = std::max<std::uint64_t>(1, (step_fmas + p_.fma_per_cycle - 1) / p_.fma_per_cycle);
  // One warp instruction issued: with register operands it reads its A and B fragments, a
  // register (32 lanes x 4 B) at a time. Returns the bytes read.
  const unsigned regs_a = static_cast<unsigned>((frag_a + warp_register_bytes - 1) / warp_register_bytes);
  const unsigned regs_b = static_cast<unsigned>((frag_b + warp_register_bytes - 1) / warp_register_bytes);
  auto issue_instruction = [&]() -> std::uint64_t {
    ++instructions_;
    if (!via_rf) return 0;
    rf_reads_ += regs_a + regs_b;
    rf_read_bytes_ += frag_a + frag_b;
    return frag_a + frag_b;
  };
  // With register files: warp w's A and B slices of a K block are written into registers
  // (A at 0.., B after it) as they land, and each instruction reads its fragments from them.
  const unsigned regs_a_block =
      static_cast<unsigned>((std::uint64_t(units_per_warp) * warp_rows * kb * 2 + warp_register_bytes - 1) / warp_register_bytes);
  const unsigned regs_b_group = static_cast<unsigned>(
      (std::uint64_t(units_per_warp) * p_.column_group * kb * 2 / warps_per_unit + warp_register_bytes - 1) / warp_register_bytes);

  std::vector<unit_state> us(units);
  for (unsigned u = 0; u < units; ++u) {
    us[u].row0 = (u / units_per_warp) * warps_per_unit * warp_rows;
    us[u].col0 = (u % units_per_warp) * unit_cols;
    us[u].a.resize(std::size_t(unit_rows) * kb * 2);
    us[u].b.resize(std::size_t(unit_cols) * kb * 2);
  }
  d_ = c_;
  std::vector<std::uint64_t> tc_free(warps, 0), rf_free(warps, 0), busy(warps, 0);
  std::uint64_t t = 0, end = 0;
  std::vector<std::uint64_t> a_landed(units), b_landed(std::size_t(units) * groups);
  for (unsigned blk = 0; blk < blocks; ++blk) {
    k_block_sig_.set(to_time(t), blk);
    fetch_block(blk, t, us, unit_rows, groups, a_landed, b_landed);
    if (via_rf && !rf_bound(0)) rf_write_bytes_ += std::uint64_t(units) * (unit_rows + unit_cols) * kb * 2;
    // Math: each warp, column group by column group, when its units' operands have landed.
    for (unsigned w = 0; w < warps; ++w) {
      const unsigned u0 = w / warps_per_unit * units_per_warp;
      for (unsigned g = 0; g < groups; ++g) {
        std::uint64_t ready = 0;
        for (unsigned s = 0; s < units_per_warp; ++s)
          ready = std::max({ready, a_landed[u0 + s], b_landed[std::size_t(u0 + s) * groups + g]});
        // The warp issues the instructions whose B columns (in each unit's tile) end in this
        // column group: their operands are all there now.
        std::uint64_t rf_bytes = 0;
        const unsigned c_begin = g * p_.column_group, c_end = c_begin + p_.column_group;
        if (via_rf && rf_bound(w)) {  // through the register file: written as they land, then read
          std::uint64_t written = ready;
          if (g == 0) written = std::max(written, rf_access(w, true, 0, regs_a_block, ready));
          written = std::max(written, rf_access(w, true, regs_a_block + g * regs_b_group, regs_b_group, ready));
          std::uint64_t read = written;
          for (unsigned j = c_begin / p_.instr_n; (j + 1) * p_.instr_n <= c_end; ++j)
            for (unsigned i = 0; i < unit_rows / p_.instr_m; ++i)
              for (unsigned x = 0; x < kb / p_.instr_k; ++x) {
                ++instructions_;
                const unsigned a0 = (i * (kb / p_.instr_k) + x) * regs_a % std::max(1u, regs_a_block);
                const unsigned b0 = regs_a_block + (g * regs_b_group + (j - c_begin / p_.instr_n) * regs_b) % std::max(1u, regs_b_group * groups);
                read = std::max({read, rf_access(w, false, a0, regs_a, written), rf_access(w, false, b0, regs_b, written)});
              }
          ready = read;
        } else {
          for (unsigned j = c_begin / p_.instr_n; (j + 1) * p_.instr_n <= c_end; ++j)
            for (unsigned i = 0; i < unit_rows / p_.instr_m; ++i)
              for (unsigned x = 0; x < kb / p_.instr_k; ++x) rf_bytes += issue_instruction();
        }
        if (via_rf && !rf_bound(w)) {  // the operand collectors read those fragments before the math starts
          rf_free[w] = std::max(ready, rf_free[w]) + (rf_bytes + p_.rf_read_bytes_per_cycle - 1) / p_.rf_read_bytes_per_cycle;
          ready = rf_free[w];
        }
        const std::uint64_t start = std::max(ready, tc_free[w]);
        if (!sp_busy_.empty()) {
          if (start > tc_free[w]) {  // idle since the previous step
            sp_busy_[w].set(to_time(tc_free[w]), 0);
            sp_busy_[w].set(to_time(start), 1);
          }
          sp_group_[w].set(to_time(start), g);
        }
        tc_free[w] = start + step_cycles;
        busy[w] += step_cycles;
      }
      end = std::max(end, tc_free[w] + p_.tc_latency);
      if (w == 0) {
        if (blk == 0) first_block_done_ = tc_free[0];
        last_block_done_ = tc_free[0];
      }
    }
    for (const auto& u : us) accumulate(u, unit_rows, unit_cols);
  }
  for (unsigned w = 0; w < sp_busy_.size(); ++w) sp_busy_[w].set(to_time(tc_free[w]), 0);
  fmas_ += std::uint64_t(p_.m) * p_.n * p_.k;
  tc_busy_ += *std::max_element(busy.begin(), busy.end());
  total_ = end;
  wait_until(end);
  done_ = true;
}

void mma_engine::attach_trace(trace_sink& sink) {
  k_block_sig_.attach(&sink, name(), "k_block", 16);
  requests_sig_.attach(&sink, name(), "smem_request", 1);
  sp_busy_.resize(p_.sub_partitions);
  sp_group_.resize(p_.sub_partitions);
  for (unsigned w = 0; w < p_.sub_partitions; ++w) {
    sp_busy_[w].attach(&sink, name(), "sp" + std::to_string(w) + "_datapath_busy", 1);
    sp_group_[w].attach(&sink, name(), "sp" + std::to_string(w) + "_column_group", 8);
  }
}

bool mma_engine::matches_reference() const {
  std::vector<float> ref;
  reference_gemm(p_.type, p_.m, p_.n, p_.k, a_, b_, c_, ref);
  return ref.size() == d_.size() && std::memcmp(ref.data(), d_.data(), ref.size() * sizeof(float)) == 0;
}

std::string mma_engine::check_golden(std::string& passed) const {
  passed = std::string(name()) + ": D equals the reference GEMM bit for bit";
  return matches_reference() ? "" : std::string(name()) + ": D differs from the reference GEMM";
}

}  // namespace flynn

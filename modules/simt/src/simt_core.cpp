#include "flynn/simt/simt_core.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

#include "flynn/common/format.h"
#include "flynn/tlm/begin_request.h"
#include "flynn/tlm/lanes_extension.h"

namespace flynn {

using simt::op;

// ---------------------------------------------------------------------------- parameters

void simt_core_params::visit(param_visitor& v) {
  param(v, {"warp_size", "threads", "threads per warp"}, warp_size, 1, 32);
  param(v, {"lanes", "", "SIMD lanes; a warp instruction occupies them warp_size / lanes cycles"}, lanes, 1, 32);
  param(v, {"max_warps", "warps", "warp slots (resident warps)"}, max_warps, 1, 64);
  param(v, {"max_threads", "threads", "thread contexts"}, max_threads, 1, 2048);
  param(v, {"register_file_bytes", "B", "register file: registers used x threads x 4 B of resident blocks"},
        register_file_bytes, 4, std::uint64_t(1) << 24);
  param(v, {"shared_memory_bytes", "B", "shared memory divided among resident blocks"}, shared_memory_bytes, 0,
        std::uint64_t(1) << 24);
  param_enum(v, {"scheduler", "", "warp scheduler"}, scheduler, warp_policies);
  param(v, {"active_warps", "warps", "two_level: size of the active set"}, active_warps, 1, 64);
  param_enum(v, {"divergence", "", "branch divergence"}, divergence, divergence_policies);
  param(v, {"inflight", "instructions", "instructions per warp in the pipeline (a scoreboard tracks registers)"},
        inflight, 1, 16);
  param(v, {"lat_alu", "cycles", "integer and fp32 pipeline depth"}, lat_alu, 1, 1000);
  param(v, {"lat_mul", "cycles", "multiply, mad, div, rem pipeline depth"}, lat_mul, 1, 1000);
  param(v, {"lat_sfu", "cycles", "special-function unit (fdiv, fsqrt)"}, lat_sfu, 1, 1000);
  param(v, {"lat_branch", "cycles", "branch, barrier and exit"}, lat_branch, 1, 1000);
  param(v, {"lat_lsu", "cycles", "load/store unit: address generation, and write-back after the data"}, lat_lsu, 0, 1000);
  param(v, {"segment_bytes", "B", "global-memory coalescing segment (power of two)"}, segment_bytes, 4, 4096);
  param(v, {"quantum", "cycles", "temporal decoupling: cycles the core may run ahead of simulated time (less while memory accesses or asynchronous copies are in flight)"}, quantum, 1, 1u << 30);
  param(v, {"max_instructions", "instructions", "runaway guard: more warp instructions than this is a fault"},
        max_instructions, 1, std::uint64_t(1) << 40);
  param(v, {"clock_ns", "ns", "clock period"}, clock_ns, 1e-3, 1e6);
}

std::vector<param_issue> simt_core_params::check() const {
  std::vector<param_issue> r;
  if (lanes > warp_size)
    r.push_back({"lanes", "at most warp_size (" + std::to_string(warp_size) + ")", std::to_string(lanes)});
  if (segment_bytes & (segment_bytes - 1))
    r.push_back({"segment_bytes", "a power of two", std::to_string(segment_bytes)});
  if (max_threads < warp_size)
    r.push_back({"max_threads", "at least warp_size (" + std::to_string(warp_size) + ")", std::to_string(max_threads)});
  return r;
}

// ---------------------------------------------------------------------------- state

struct simt_core::warp {
  int slot = 0;
  bool live = false;
  unsigned block = 0;        // block slot
  unsigned index = 0;        // warp index in the block
  unsigned threads = 0;      // threads in this warp
  std::uint32_t exited = 0;  // lanes whose thread has exited
  std::vector<std::array<std::uint32_t, simt::num_registers>> r;
  std::vector<std::uint8_t> p;  // predicates, one bit each
  struct entry {
    std::uint32_t pc, rpc, mask;
  };
  std::vector<entry> stack;
  std::uint64_t ready_at = 0, age = 0;
  enum class wait { none, memory, scoreboard, barrier, async } why = wait::none;
  bool at_barrier = false;
  std::deque<std::uint64_t> inflight;
  std::array<std::uint64_t, simt::num_registers> reg_ready{};
  std::vector<std::uint64_t> wgmma_open;                 // issued, not yet committed (GMMA ids)
  std::int64_t tma_issued_at = -1;                       // the warp's last tma.load, until a wait
  std::uint64_t tma_last_store = 0;                      // its last tma.store copy (0: none)
  std::uint64_t issue_end = 0;                           // timeline: the end of its last issue
  std::uint64_t generation = 0;                          // which warp the slot holds
  std::deque<std::vector<std::uint64_t>> wgmma_groups;   // committed groups, oldest first
  std::array<std::uint64_t, 8> pred_ready{};
};

struct simt_core::block_slot {
  bool busy = false;
  unsigned id = 0, warps_left = 0, arrived = 0, exited_threads = 0;
  std::vector<int> warps;
  std::uint64_t shared_base = 0;
  std::map<std::uint64_t, tx_barrier> mbarriers;  // by shared address
  unsigned memory_in_flight = 0;                  // its warps' memory requests not answered yet
  bool draining = false;                          // every warp has exited; waiting for them
};

// A warp load or store in flight, and each of its requests (one per coalesced segment).
struct simt_core::mem_op {
  warp* w = nullptr;
  std::uint64_t generation = 0;  // w's, at issue (the slot may hold a new warp by the response)
  unsigned block = 0, warp_index = 0;
  std::uint32_t pc = 0;
  const simt::instr* in = nullptr;
  std::uint64_t issued = 0, done = 0, slot_bound = 0;
  unsigned groups_left = 0;
  std::string failure;  // of the first failing request, by group
  unsigned failed_group = 0, failed_lane = 0;
};

struct simt_core::mem_request {
  std::shared_ptr<mem_op> op;
  tlm::tlm_generic_payload* gp = nullptr;
  unsigned group = 0, port = 0;  // port 0: global, 1: shared
  std::vector<unsigned> lanes;   // the lanes in the request's data, in order
  std::uint64_t arrival = 0;     // the cycle the request reaches the memory
  lanes_extension ext;
};

simt_core::simt_core(const sc_core::sc_module_name& name, const params& p)
    : module(name, p.clock_ns), global("global"), shared("shared"), gmma("gmma"), tma("tma"), p_(p) {
  throw_if_invalid("simt_core", p_.check());
  global.bind(*this);
  shared.bind(*this);
  sched_ = make_scheduler(p_.scheduler, p_.active_warps);
  for (unsigned s = 0; s < p_.max_warps; ++s) {
    warps_.push_back(std::make_unique<warp>());
    warps_.back()->slot = static_cast<int>(s);
  }
  per_warp_.resize(p_.max_warps);
  active_hist_.resize(p_.warp_size + 1);
  SC_HAS_PROCESS(simt_core);
  SC_THREAD(run);
  stats_.add("warp_instructions", warp_instr_, "instructions", "warp instructions issued");
  stats_.add("thread_instructions", thread_instr_, "instructions", "thread instructions (active lanes of issued warp instructions)");
  stats_.add("active_lanes_per_issue", active_hist_, "issues", "histogram: issued warp instructions with k active threads, k = index");
  stats_.add("warp_instructions_per_slot", per_warp_, "instructions", "warp instructions issued per warp slot");
  stats_.add("idle_cycles_memory", idle_memory_, "cycles", "cycles without a ready warp, the next ready one waiting on memory");
  stats_.add("idle_cycles_scoreboard", idle_scoreboard_, "cycles", "cycles without a ready warp, the next ready one waiting on a pipeline result");
  stats_.add("idle_cycles_barrier", idle_barrier_, "cycles", "cycles without a ready warp, the next ready one released from a barrier");
  stats_.add("idle_cycles_async", idle_async_, "cycles",
             "cycles without a ready warp, the next ready one waiting on an asynchronous unit (an mbarrier phase, a "
             "TMA store)");
  stats_.add("idle_cycles_wgmma", idle_wgmma_, "cycles",
             "cycles without a ready warp, the next ready one waiting for its wgmma groups (wgmma.wait_group)");
  auto mean = [this](const char* stat, const std::pair<stat_counter, stat_counter>& x, const char* what) {
    stats_.add_real(
        stat, [&x] { return x.first.value() ? double(x.second.value()) / double(x.first.value()) : 0.0; }, "cycles", what);
  };
  mean("shared_load_latency", shared_load_latency_, "mean cycles from issuing a shared load to its data in the registers");
  mean("global_load_latency", global_load_latency_, "mean cycles from issuing a global load to its data in the registers");
  mean("tma_round_trip", tma_round_trip_,
       "mean cycles from a warp's tma.load to the end of its next mbarrier.wait (the copy's round trip as the warp sees it)");
  stats_.add("mbarrier_ops", mbarrier_ops_, "operations", "mbarrier init, arrive and wait operations (per thread)");
  stats_.add("tma_loads", tma_loads_, "copies", "tma.load copies started");
  stats_.add("tma_stores", tma_stores_, "copies", "tma.store copies started");
  stats_.add("wgmma_issued", wgmma_issued_, "instructions", "wgmma instructions issued (one per warp)");
  stats_.add("idle_cycles_structural", idle_structural_, "cycles",
             "cycles with a ready warp the scheduler could not pick (outside the two-level active set)");
  stats_.add("global_requests", global_requests_, "instructions", "warp loads and stores to global memory");
  stats_.add("global_transactions", global_transactions_, "transactions", "coalesced global-memory transactions (one per segment touched)");
  stats_.add("shared_requests", shared_requests_, "instructions", "warp loads and stores to shared memory (one multi-lane request each)");
  stats_.add("divergent_branches", divergent_branches_, "branches", "branches whose active threads went both ways");
  stats_.add("blocks_launched", blocks_launched_, "blocks", "thread blocks launched on the core");
  stats_.add("dwf_merged_warps", dwf_merged_, "warps",
             "dwf: warps whose threads joined another warp's issue (same PC, free lanes)");
  stats_.add("dwf_lane_collisions", dwf_collisions_, "warps",
             "dwf: warps at the same PC left out because a thread's home lane was taken");
  stats_.add_real(
      "ipc", [this] { return end_ ? double(warp_instr_.value()) / double(end_) : 0.0; }, "instructions/cycle",
      "warp instructions per cycle");
  stats_.add_real(
      "simd_utilisation",
      [this] {
        return warp_instr_.value() ? double(thread_instr_.value()) / double(warp_instr_.value() * p_.warp_size) : 0.0;
      },
      "", "active lanes / lanes over all issued warp instructions");
  stats_.add_real(
      "transactions_per_request",
      [this] { return global_requests_.value() ? double(global_transactions_.value()) / double(global_requests_.value()) : 0.0; },
      "transactions", "global transactions per warp memory instruction");
}

// A run stopped by a fault leaves requests in flight; their payloads must not take the
// lanes extensions (members of the request records) with them when the pool goes.
simt_core::~simt_core() {
  for (auto& [gp, rq] : requests_)
    if (gp->get_extension<lanes_extension>() == &rq->ext) gp->clear_extension(&rq->ext);
}

std::uint64_t simt_core::thread_instructions() const { return thread_instr_.value(); }
std::uint64_t simt_core::instructions_executed() const { return warp_instr_.value(); }

unsigned simt_core::block_registers() const {
  int regs = 0;
  for (const auto& in : kernel_.code) regs = std::max(regs, simt::highest_register(in) + 1);
  return static_cast<unsigned>(std::clamp<int>(regs, 1, simt::num_registers));
}

void simt_core::load(const simt::kernel& k, const simt_launch& l) {
  kernel_ = k;
  launch_ = l;
  if (l.block == 0 || l.grid == 0) throw std::invalid_argument("grid and block must be at least 1");
  const unsigned warps = (l.block + p_.warp_size - 1) / p_.warp_size;
  const std::uint64_t regs = std::uint64_t(block_registers()) * l.block * 4;
  if (warps > p_.max_warps || l.block > p_.max_threads)
    throw std::invalid_argument("a block of " + std::to_string(l.block) + " threads (" + std::to_string(warps) +
                                " warps) does not fit the core's " + std::to_string(p_.max_warps) + " warp slots / " +
                                std::to_string(p_.max_threads) + " thread contexts");
  if (regs > p_.register_file_bytes)
    throw std::invalid_argument("a block needs " + std::to_string(regs) + " B of registers, the core has " +
                                std::to_string(p_.register_file_bytes));
  if (l.shared_bytes > p_.shared_memory_bytes)
    throw std::invalid_argument("a block needs " + std::to_string(l.shared_bytes) + " B of shared memory, the core has " +
                                std::to_string(p_.shared_memory_bytes));
  // Resident blocks: limited by warp slots, thread contexts, registers and shared memory.
  unsigned n = std::min(p_.max_warps / warps, p_.max_threads / l.block);
  n = static_cast<unsigned>(std::min<std::uint64_t>(n, p_.register_file_bytes / regs));
  if (l.shared_bytes) n = static_cast<unsigned>(std::min<std::uint64_t>(n, p_.shared_memory_bytes / l.shared_bytes));
  resident_blocks_max_ = std::max(1u, n);
  blocks_.assign(resident_blocks_max_, block_slot{});
  for (unsigned b = 0; b < resident_blocks_max_; ++b) blocks_[b].shared_base = b * l.shared_bytes;
  for (const auto& in : kernel_.code) {
    const std::string at = "line " + std::to_string(in.line) + " (" + in.text + ")";
    if (in.code == op::tma_load && in.rd >= l.tensor_maps.size())
      throw std::invalid_argument(at + " uses tensor map " + std::to_string(in.rd) + "; the launch has " +
                                  std::to_string(l.tensor_maps.size()));
    if ((in.code == op::tma_load || in.code == op::tma_store) && in.rd >= l.tensor_maps.size())
      throw std::invalid_argument(at + " uses tensor map " + std::to_string(in.rd) + "; the launch has " +
                                  std::to_string(l.tensor_maps.size()));
    if ((in.code == op::tma_load || in.code == op::tma_store) && tma.size() == 0)
      throw std::invalid_argument(at + " needs a TMA loader: bind " + std::string(name()) + ".tma");
    if (in.code == op::wgmma && gmma.size() == 0)
      throw std::invalid_argument(at + " needs a GMMA unit: bind " + std::string(name()) + ".gmma");
    if (in.code == op::wgmma && p_.warp_size != 32)
      throw std::invalid_argument(at + ": wgmma needs warps of 32 threads");
  }
  compute_reconvergence();
  loaded_ = true;
}

// Immediate post-dominators on the instruction graph (exit = code size).
void simt_core::compute_reconvergence() {
  const std::size_t n = kernel_.code.size(), exit_node = n;
  std::vector<std::vector<std::size_t>> succ(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& in = kernel_.code[i];
    const bool guarded = in.guard != simt::no_pred;
    if (in.code == op::bra) {
      succ[i].push_back(in.target);
      if (guarded) succ[i].push_back(i + 1);
    } else if (in.code == op::exit) {
      succ[i].push_back(exit_node);
      if (guarded) succ[i].push_back(i + 1);
    } else {
      succ[i].push_back(i + 1);
    }
  }
  std::vector<std::vector<bool>> pdom(n + 1, std::vector<bool>(n + 1, true));
  pdom[exit_node].assign(n + 1, false);
  pdom[exit_node][exit_node] = true;
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::size_t i = n; i-- > 0;) {
      std::vector<bool> x(n + 1, true);
      for (std::size_t s : succ[i])
        for (std::size_t k = 0; k <= n; ++k) x[k] = x[k] && pdom[std::min(s, exit_node)][k];
      x[i] = true;
      if (x != pdom[i]) {
        pdom[i] = x;
        changed = true;
      }
    }
  }
  ipdom_.assign(n, static_cast<std::uint32_t>(n));
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t count = 0;
    for (std::size_t k = 0; k <= n; ++k) count += pdom[i][k] && k != i;
    for (std::size_t d = 0; d <= n; ++d) {
      if (d == i || !pdom[i][d]) continue;
      std::size_t cd = 0;
      for (std::size_t k = 0; k <= n; ++k) cd += pdom[d][k];
      if (cd == count) {
        ipdom_[i] = static_cast<std::uint32_t>(d);
        break;
      }
    }
  }
}

// ---------------------------------------------------------------------------- blocks

void simt_core::launch_blocks(std::uint64_t t) {
  const unsigned warps = (launch_.block + p_.warp_size - 1) / p_.warp_size;
  for (unsigned b = 0; b < blocks_.size() && next_block_ < launch_.grid; ++b) {
    block_slot& bs = blocks_[b];
    if (bs.busy) continue;
    // Free warp slots for the block's warps.
    std::vector<int> free_slots;
    for (auto& w : warps_)
      if (!w->live && free_slots.size() < warps) free_slots.push_back(w->slot);
    if (free_slots.size() < warps) return;
    bs = block_slot{true, next_block_++, warps, 0, 0, {}, bs.shared_base, {}, 0, false};
    ++blocks_launched_;
    if (log_enabled(sc_core::SC_HIGH))
      log(sc_core::SC_HIGH, "block " + std::to_string(bs.id) + " launched in slot " + std::to_string(b) + " at cycle " +
                                std::to_string(t));
    if (launch_.shared_bytes) {  // a block starts with zeroed shared memory (no timing)
      std::vector<unsigned char> zero(launch_.shared_bytes, 0);
      tlm::tlm_generic_payload gp;
      gp.set_command(tlm::TLM_WRITE_COMMAND);
      gp.set_address(bs.shared_base);
      gp.set_data_ptr(zero.data());
      gp.set_data_length(static_cast<unsigned>(zero.size()));
      shared->transport_dbg(gp);
    }
    for (unsigned k = 0; k < warps; ++k) {
      warp& w = *warps_[static_cast<std::size_t>(free_slots[k])];
      const int slot = w.slot;
      w = warp{};
      w.slot = slot;
      w.generation = ++generations_;
      w.live = true;
      w.block = b;
      w.index = k;
      w.threads = std::min(p_.warp_size, launch_.block - k * p_.warp_size);
      w.r.assign(p_.warp_size, {});
      w.p.assign(p_.warp_size, 0);
      const std::uint32_t mask = w.threads == 32 ? 0xffffffffu : ((1u << w.threads) - 1);
      w.exited = ~mask;
      w.stack.push_back({0, static_cast<std::uint32_t>(kernel_.code.size()), mask});
      w.ready_at = t;
      w.age = age_++;
      bs.warps.push_back(slot);
      if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(slot)].set(to_time(t), 1);
    }
  }
}

// ---------------------------------------------------------------------------- execution

bool simt_core::guard(const warp& w, unsigned lane, const simt::instr& in) const {
  if (in.guard == simt::no_pred) return true;
  const bool v = (w.p[lane] >> in.guard) & 1;
  return in.guard_neg ? !v : v;
}

namespace {
float f32(std::uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
std::uint32_t bits(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}
template <class T>
bool compare_as(simt::cmp c, T x, T y) {
  switch (c) {
    case simt::cmp::eq: return x == y;
    case simt::cmp::ne: return x != y;
    case simt::cmp::lt: return x < y;
    case simt::cmp::le: return x <= y;
    case simt::cmp::gt: return x > y;
    case simt::cmp::ge: return x >= y;
  }
  return false;
}
bool compare(simt::cmp c, simt::type t, std::uint32_t a, std::uint32_t b) {
  if (t == simt::type::f32) return compare_as(c, f32(a), f32(b));  // IEEE: NaN compares false but ne
  if (t == simt::type::u32) return compare_as(c, a, b);
  return compare_as(c, static_cast<std::int32_t>(a), static_cast<std::int32_t>(b));
}
}  // namespace

std::uint64_t simt_core::execute_alu(warp& w, const simt::instr& in, std::uint32_t mask) {
  const block_slot& bs = blocks_[w.block];
  for (unsigned l = 0; l < p_.warp_size; ++l) {
    if (!((mask >> l) & 1) || !guard(w, l, in)) continue;
    auto& r = w.r[l];
    const std::uint32_t a = r[in.ra];
    const std::uint32_t b = in.b_imm ? static_cast<std::uint32_t>(in.imm) : r[in.rb];
    const std::uint32_t c = r[in.rc];
    const auto sa = static_cast<std::int32_t>(a), sb = static_cast<std::int32_t>(b);
    std::uint32_t v = 0;
    switch (in.code) {
      case op::mov: {
        const unsigned tid = w.index * p_.warp_size + l;
        switch (in.sreg) {
          case simt::special::tid: v = tid; break;
          case simt::special::ntid: v = launch_.block; break;
          case simt::special::ctaid: v = bs.id; break;
          case simt::special::nctaid: v = launch_.grid; break;
          case simt::special::laneid: v = l; break;
          case simt::special::warpid: v = w.index; break;
          default: v = in.b_imm ? static_cast<std::uint32_t>(in.imm) : a; break;
        }
        break;
      }
      case op::ldparam: {
        const auto i = static_cast<std::size_t>(in.imm);
        if (i >= launch_.params.size()) {
          set_fault(w, l, "kernel parameter " + std::to_string(i) + " not given (" +
                              std::to_string(launch_.params.size()) + " parameters)");
          return 0;
        }
        v = launch_.params[i];
        break;
      }
      case op::add: v = a + b; break;
      case op::sub: v = a - b; break;
      case op::mul: v = a * b; break;
      case op::mulhi: v = static_cast<std::uint32_t>((std::int64_t(sa) * std::int64_t(sb)) >> 32); break;
      case op::mad: v = a * b + c; break;
      case op::div:
        v = sb == 0 ? 0 : (sa == INT32_MIN && sb == -1) ? a : static_cast<std::uint32_t>(sa / sb);
        break;
      case op::rem:
        v = sb == 0 ? a : (sa == INT32_MIN && sb == -1) ? 0 : static_cast<std::uint32_t>(sa % sb);
        break;
      case op::and_: v = a & b; break;
      case op::or_: v = a | b; break;
      case op::xor_: v = a ^ b; break;
      case op::not_: v = ~a; break;
      case op::shl: v = a << (b & 31); break;
      case op::shr: v = a >> (b & 31); break;
      case op::sra: v = static_cast<std::uint32_t>(sa >> (b & 31)); break;
      case op::min: v = static_cast<std::uint32_t>(std::min(sa, sb)); break;
      case op::max: v = static_cast<std::uint32_t>(std::max(sa, sb)); break;
      case op::fadd: v = bits(f32(a) + f32(b)); break;
      case op::fsub: v = bits(f32(a) - f32(b)); break;
      case op::fmul: v = bits(f32(a) * f32(b)); break;
      case op::ffma: v = bits(std::fma(f32(a), f32(b), f32(c))); break;
      case op::fmin: v = bits(std::fmin(f32(a), f32(b))); break;
      case op::fmax: v = bits(std::fmax(f32(a), f32(b))); break;
      case op::fdiv: v = bits(f32(a) / f32(b)); break;
      case op::fsqrt: v = bits(std::sqrt(f32(a))); break;
      case op::cvt_f_s: v = bits(static_cast<float>(sa)); break;
      case op::cvt_s_f: {
        const float f = f32(a);
        if (std::isnan(f)) v = 0;
        else if (f >= 2147483648.0f) v = 0x7fffffffu;
        else if (f < -2147483648.0f) v = 0x80000000u;
        else v = static_cast<std::uint32_t>(static_cast<std::int32_t>(f));
        break;
      }
      case op::setp: {
        const bool x = compare(in.cond, in.ty, a, b);
        w.p[l] = static_cast<std::uint8_t>((w.p[l] & ~(1u << in.rd)) | (unsigned(x) << in.rd));
        continue;
      }
      case op::selp: v = ((w.p[l] >> in.rc) & 1) ? a : b; break;
      default: continue;
    }
    r[in.rd] = v;
  }
  switch (in.code) {
    case op::mul: case op::mulhi: case op::mad: case op::div: case op::rem: return p_.lat_mul;
    case op::fdiv: case op::fsqrt: return p_.lat_sfu;
    default: return p_.lat_alu;
  }
}

void simt_core::set_fault(const warp& w, unsigned lane, const std::string& what) {
  set_fault(w.block, w.index, lane, w.stack.empty() ? 0 : w.stack.back().pc, what);
}

void simt_core::set_fault(unsigned block, unsigned warp_index, unsigned lane, std::uint32_t pc, const std::string& what) {
  if (!fault_.empty()) return;
  const auto& in = kernel_.code[std::min<std::size_t>(pc, kernel_.code.size() - 1)];
  fault_ = "block " + std::to_string(blocks_[block].id) + " warp " + std::to_string(warp_index) + " thread " +
           std::to_string(warp_index * p_.warp_size + lane) + " PC " + std::to_string(pc) + " (line " +
           std::to_string(in.line) + ": " + in.text + "): " + what;
}

// Global: one transaction per segment touched, issued one per cycle; shared: one
// multi-lane request (the shared memory serves it in as many wavefronts as its worst bank).
// The requests go out as AT transactions: the memory grants them at their arrival cycles,
// in simulated-time order with every other initiator's, and a load's data reach the
// registers when its response comes (see complete_memory). Returns the completion cycle
// when it is known at issue (no lane takes part, or a fault), else unknown_cycle.
std::uint64_t simt_core::execute_memory(warp& w, const simt::instr& in, std::uint32_t mask, std::uint64_t t,
                                        std::uint64_t occupancy) {
  const bool store = in.code == op::st;
  const unsigned words = in.width / 4;
  std::vector<unsigned> lanes;
  for (unsigned l = 0; l < p_.warp_size; ++l)
    if (((mask >> l) & 1) && guard(w, l, in)) lanes.push_back(l);
  if (lanes.empty()) return t + p_.lat_alu;
  std::vector<std::uint64_t> addr(p_.warp_size);
  const std::uint64_t space_bytes = in.sp == simt::space::shared ? launch_.shared_bytes : UINT64_MAX;
  for (unsigned l : lanes) {
    addr[l] = static_cast<std::uint32_t>(w.r[l][in.ra] + static_cast<std::uint32_t>(in.imm));
    if (addr[l] % in.width) {
      set_fault(w, l, std::string("misaligned ") + (in.sp == simt::space::shared ? "shared" : "global") + " address " + hex(addr[l]));
      return t;
    }
    if (addr[l] + in.width > space_bytes) {
      set_fault(w, l, "out-of-range shared address " + hex(addr[l]));
      return t;
    }
  }
  // Group lanes into requests: by segment for global, all together for shared.
  std::vector<std::vector<unsigned>> groups;
  if (in.sp == simt::space::global) {
    std::vector<std::uint64_t> segs;
    for (unsigned l : lanes) {
      const std::uint64_t s = addr[l] / p_.segment_bytes;
      auto it = std::find(segs.begin(), segs.end(), s);
      if (it == segs.end()) {
        segs.push_back(s);
        groups.push_back({l});
      } else {
        groups[static_cast<std::size_t>(it - segs.begin())].push_back(l);
      }
    }
    ++global_requests_;
    global_transactions_ += groups.size();
    sched_->long_latency(w.slot);
  } else {
    groups.push_back(lanes);
    ++shared_requests_;
  }
  const std::uint64_t base = in.sp == simt::space::shared ? blocks_[w.block].shared_base : 0;
  const unsigned port = in.sp == simt::space::shared ? 1 : 0;
  auto mo = std::make_shared<mem_op>();
  mo->w = &w;
  mo->generation = w.generation;
  mo->block = w.block;
  mo->pc = w.stack.back().pc;
  mo->warp_index = w.index;
  mo->in = &in;
  mo->issued = t;
  mo->done = t;
  mo->groups_left = static_cast<unsigned>(groups.size());
  mo->slot_bound = t + occupancy + p_.lat_lsu;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& ls = groups[g];
    tlm::tlm_generic_payload* gp = pool_.allocate();
    auto rq = std::make_unique<mem_request>();
    rq->op = mo;
    rq->gp = gp;
    rq->group = static_cast<unsigned>(g);
    rq->port = port;
    rq->lanes = ls;
    rq->arrival = t + p_.lat_lsu + g;
    lanes_extension& ext = rq->ext;
    ext.lanes = static_cast<unsigned>(ls.size());
    ext.lane_bytes = in.width;
    ext.active_mask = ext.lanes == 32 ? 0xffffffffu : ((1u << ext.lanes) - 1);
    unsigned char* buf = pool_.buffer(gp);
    for (std::size_t k = 0; k < ls.size(); ++k) {
      ext.address[k] = base + addr[ls[k]];
      if (store)
        for (unsigned wd = 0; wd < words; ++wd)
          std::memcpy(&buf[k * in.width + wd * 4], &w.r[ls[k]][in.rb + wd], 4);
    }
    gp->set_command(store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp->set_address(ext.address[0]);
    gp->set_data_ptr(buf);
    gp->set_data_length(static_cast<unsigned>(ls.size() * in.width));
    gp->set_streaming_width(static_cast<unsigned>(ls.size() * in.width));
    gp->set_byte_enable_ptr(nullptr);
    gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    gp->set_extension(&ext);
    if (port == 1) ++blocks_[w.block].memory_in_flight;  // a block's shared memory outlives it until they land
    ++memory_in_flight_;
    requests_.emplace(gp, std::move(rq));
    to_send_[port].push_back(gp);
  }
  lsu_transactions_.set(to_time(t), groups.size());
  return unknown_cycle;
}

// Sends the port's queued requests, one at a time (a new BEGIN_REQ only once the previous
// request's END_REQ has come), each for its arrival cycle or at once when that has passed.
void simt_core::send_requests(unsigned port) {
  auto& sock = port == 1 ? shared : global;
  while (!awaiting_end_req_[port] && !to_send_[port].empty()) {
    tlm::tlm_generic_payload* gp = to_send_[port].front();
    to_send_[port].pop_front();
    mem_request& rq = *requests_.at(gp);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time at = std::max(to_time(rq.arrival), request_phase_end_[port]);
    sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
    awaiting_end_req_[port] = gp;
    const begin_request_answer a = begin_request(sock, *gp, delay, end_resp_owed_);
    if (a == begin_request_answer::request_open) continue;
    if (awaiting_end_req_[port] == gp) awaiting_end_req_[port] = nullptr;
    request_phase_end_[port] = now + delay;  // the next BEGIN_REQ not before the annotated END_REQ
    if (a == begin_request_answer::illegal) fault("BEGIN_REQ answered TLM_UPDATED with a phase other than END_REQ or BEGIN_RESP");
    if (a == begin_request_answer::responded) complete_memory(gp, sc_core::sc_time_stamp() + delay);
  }
}

tlm::tlm_sync_enum simt_core::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                              sc_core::sc_time& delay) {
  const auto it = requests_.find(&gp);
  if (it == requests_.end()) {
    fault(std::string("nb_transport_bw ") + ph.get_name() + " for a transaction not in flight");
    return tlm::TLM_COMPLETED;
  }
  const unsigned port = it->second->port;
  if (ph == tlm::END_REQ) {
    if (awaiting_end_req_[port] == &gp) {
      awaiting_end_req_[port] = nullptr;
      request_phase_end_[port] = sc_core::sc_time_stamp() + delay;
    }
    send_requests(port);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    if (awaiting_end_req_[port] == &gp) {  // BEGIN_RESP is an implicit END_REQ
      awaiting_end_req_[port] = nullptr;
      request_phase_end_[port] = sc_core::sc_time_stamp() + delay;
      send_requests(port);
    }
    complete_memory(&gp, sc_core::sc_time_stamp() + delay);
    return tlm::TLM_COMPLETED;  // no END_RESP needed
  }
  fault(std::string("nb_transport_bw: unexpected phase ") + ph.get_name());
  return tlm::TLM_COMPLETED;
}

// One request's response: the data it carried are final. When the instruction's last
// request is in, the loaded values land in the registers and the scoreboard learns when.
void simt_core::complete_memory(tlm::tlm_generic_payload* gp, const sc_core::sc_time& at) {
  auto node = requests_.extract(gp);
  mem_request& rq = *node.mapped();
  mem_op& mo = *rq.op;
  const simt::instr& in = *mo.in;
  const bool store = in.code == op::st;
  mo.done = std::max(mo.done, to_cycles_ceil(at));
  std::string why;
  if (gp->get_response_status() != tlm::TLM_OK_RESPONSE)
    why = gp->get_response_string();
  else if (!rq.ext.acknowledged)  // a target that moved data_length bytes from one address
    why = "the memory ignored the lanes extension (the load/store unit needs a lanes-aware memory such as banked_memory)";
  if (!why.empty() && (mo.failure.empty() || rq.group < mo.failed_group)) {  // the first failing group's
    const bool sh = in.sp == simt::space::shared;
    mo.failed_group = rq.group;
    mo.failed_lane = rq.lanes.front();
    mo.failure = std::string(sh ? "shared" : "global") + " access at " +
                 hex(rq.ext.address[0] - (sh ? blocks_[mo.block].shared_base : 0)) + ": " + why;
  }
  warp& w = *mo.w;
  const bool same_warp = w.generation == mo.generation;
  if (!store && same_warp && mo.failure.empty()) {
    const unsigned words = in.width / 4;
    const unsigned char* buf = gp->get_data_ptr();
    for (std::size_t k = 0; k < rq.lanes.size(); ++k)
      for (unsigned wd = 0; wd < words; ++wd)
        std::memcpy(&w.r[rq.lanes[k]][in.rd + wd], &buf[k * in.width + wd * 4], 4);
  }
  gp->clear_extension(&rq.ext);
  gp->release();
  --memory_in_flight_;
  block_slot& bs = blocks_[mo.block];
  if (rq.port == 1) --bs.memory_in_flight;
  if (--mo.groups_left == 0) {
    const std::uint64_t done = mo.done + p_.lat_lsu;
    if (!mo.failure.empty()) {
      set_fault(mo.block, mo.warp_index, mo.failed_lane, mo.pc, mo.failure);
    } else {
      if (!store) {
        auto& [n, sum] = in.sp == simt::space::shared ? shared_load_latency_ : global_load_latency_;
        ++n;
        sum += done - mo.issued;
      }
      if (same_warp && w.live) {
        if (!store) simt::writes(in).for_each([&](unsigned x) { w.reg_ready[x] = done; });
        if (p_.inflight > 1) {
          // The instruction's in-flight slot: a load's until it completes, a store's until it
          // leaves the load/store unit (posted write) or completes, whichever is first.
          const std::uint64_t held = store ? mo.slot_bound : unknown_cycle;
          const auto slot = std::find(w.inflight.begin(), w.inflight.end(), held);
          if (slot != w.inflight.end()) *slot = store ? std::min(done, mo.slot_bound) : done;
        } else {
          w.ready_at = done;
        }
        if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(done), 1);
      }
    }
    end_ = std::max(end_, done);
  }
  if (rq.port == 1 && bs.memory_in_flight == 0 && bs.draining) retire_block(mo.block, to_cycles_ceil(at));
  memory_news_.notify(sc_core::SC_ZERO_TIME);
}

void simt_core::branch(warp& w, const simt::instr& in, std::uint32_t mask) {
  auto& top = w.stack.back();
  const std::uint32_t pc = top.pc;
  std::uint32_t taken = 0;
  for (unsigned l = 0; l < p_.warp_size; ++l)
    if (((mask >> l) & 1) && guard(w, l, in)) taken |= 1u << l;
  if (taken == mask) {
    top.pc = in.target;
  } else if (taken == 0) {
    top.pc = pc + 1;
  } else {  // divergence: both paths run under masks, then reconverge at the ipdom
    ++divergent_branches_;
    const std::uint32_t r = ipdom_[pc];
    top.pc = r;
    w.stack.push_back({pc + 1, r, mask & ~taken});
    w.stack.push_back({in.target, r, taken});
  }
}

void simt_core::arrive_barrier(warp& w, std::uint64_t t) {
  block_slot& bs = blocks_[w.block];
  w.at_barrier = true;
  w.why = warp::wait::barrier;
  ++bs.arrived;
  if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(t), 3);
  if (bs.arrived < bs.warps_left) return;
  if (bs.exited_threads > 0) {
    fault_ = deadlock_report();
    return;
  }
  bs.arrived = 0;
  const std::uint64_t release = t + p_.lat_branch;
  for (int s : bs.warps) {
    warp& x = *warps_[static_cast<std::size_t>(s)];
    if (!x.live) continue;
    x.at_barrier = false;
    x.ready_at = std::max(x.ready_at, release);
    if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(s)].set(to_time(release), 1);
  }
}

// ---------------------------------------------------------------------------- async units

tx_barrier* simt_core::find_mbarrier(warp& w, unsigned lane, const simt::instr& in, std::uint64_t& addr) {
  addr = static_cast<std::uint32_t>(w.r[lane][in.ra] + static_cast<std::uint32_t>(in.imm));
  if (addr % 8 || addr + 8 > launch_.shared_bytes) {
    set_fault(w, lane, "mbarrier address " + hex(addr) + ": expected an 8-byte aligned shared address below " +
                           std::to_string(launch_.shared_bytes));
    return nullptr;
  }
  auto& bars = blocks_[w.block].mbarriers;
  auto it = bars.find(addr);
  if (it == bars.end()) {
    set_fault(w, lane, "no mbarrier initialised at shared address " + hex(addr));
    return nullptr;
  }
  return &it->second;
}

// When may the warp's mbarrier.wait / wgmma.wait_group complete? UINT64_MAX: not known yet.
std::uint64_t simt_core::async_ready(warp& w, const simt::instr& in) const {
  constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();
  const std::uint32_t mask = w.stack.back().mask & ~w.exited;
  std::uint64_t r = 0;
  if (in.code == op::mbar_wait) {
    const auto& bars = blocks_[w.block].mbarriers;
    for (unsigned l = 0; l < p_.warp_size; ++l) {
      if (!((mask >> l) & 1) || !guard(w, l, in)) continue;
      const std::uint64_t addr = static_cast<std::uint32_t>(w.r[l][in.ra] + static_cast<std::uint32_t>(in.imm));
      auto it = bars.find(addr);
      if (it == bars.end()) return 0;  // executes now and faults
      const unsigned parity = (in.b_imm ? in.imm_b : w.r[l][in.rb]) & 1u;
      if (!it->second.try_wait(parity)) return never;
      r = std::max(r, it->second.completed_at());
    }
    return r;
  }
  // wgmma.wait_group N: every committed group but the newest N has completed.
  const auto keep = static_cast<std::size_t>(in.imm);
  if (w.wgmma_groups.size() <= keep) return 0;
  for (std::size_t g = 0; g + keep < w.wgmma_groups.size(); ++g)
    for (std::uint64_t id : w.wgmma_groups[g]) {
      std::uint64_t c = 0;
      if (!gmma->completion(id, c)) return never;
      r = std::max(r, c);
    }
  return r;
}

// mbarrier, tma and wgmma instructions; returns the cycle they complete at the issue stage.
std::uint64_t simt_core::execute_async(warp& w, const simt::instr& in, std::uint32_t mask, std::uint64_t t) {
  const std::uint64_t done = t + p_.lat_alu;
  auto active = [&](unsigned l) { return ((mask >> l) & 1) && guard(w, l, in); };
  auto value_b = [&](unsigned l) { return in.b_imm ? in.imm_b : w.r[l][in.rb]; };
  switch (in.code) {
    case op::mbar_init:
      for (unsigned l = 0; l < p_.warp_size; ++l) {
        if (!active(l)) continue;
        const std::uint64_t addr = static_cast<std::uint32_t>(w.r[l][in.ra] + static_cast<std::uint32_t>(in.imm));
        if (addr % 8 || addr + 8 > launch_.shared_bytes) {
          set_fault(w, l, "mbarrier address " + hex(addr) + ": expected an 8-byte aligned shared address below " +
                              std::to_string(launch_.shared_bytes));
          return t;
        }
        const std::uint32_t count = value_b(l);
        if (count == 0 || count > (1u << 20)) {
          set_fault(w, l, "mbarrier.init count " + std::to_string(count) + ": expected 1 .. 1048576");
          return t;
        }
        tx_barrier& b = blocks_[w.block].mbarriers.insert_or_assign(addr, tx_barrier(count)).first->second;
        ++mbarrier_ops_;
        if (!mbar_trace_.empty() && w.block == 0) {  // the first barriers of block slot 0 are traced
          auto it = std::find(mbar_traced_.begin(), mbar_traced_.end(), addr);
          if (it == mbar_traced_.end() && mbar_traced_.size() < mbar_trace_.size() / 3) {
            mbar_traced_.push_back(addr);
            it = std::prev(mbar_traced_.end());
          }
          if (it != mbar_traced_.end()) {
            trace_signal* sig = &mbar_trace_[3 * static_cast<std::size_t>(it - mbar_traced_.begin())];
            auto show = [this, sig, &b](std::uint64_t at) {
              sig[0].set(to_time(at), b.phase());
              sig[1].set(to_time(at), b.pending_arrivals());
              sig[2].set(to_time(at), static_cast<std::uint64_t>(b.pending_bytes()) & 0xffffffffu);
            };
            show(t);
            b.on_change(show);
          }
        }
      }
      return done;
    case op::mbar_arrive:
    case op::mbar_arrive_tx:
      for (unsigned l = 0; l < p_.warp_size; ++l) {
        if (!active(l)) continue;
        std::uint64_t addr = 0;
        tx_barrier* b = find_mbarrier(w, l, in, addr);
        if (!b) return t;
        const std::string e = in.code == op::mbar_arrive ? b->arrive(1, t) : b->arrive_expect_tx(value_b(l), t);
        if (!e.empty()) {
          set_fault(w, l, "mbarrier at " + hex(addr) + ": " + e);
          return t;
        }
        ++mbarrier_ops_;
      }
      return done;
    case op::mbar_wait: {  // ready_time() let it issue: every phase it waits for has completed
      for (unsigned l = 0; l < p_.warp_size; ++l) {
        if (!active(l)) continue;
        std::uint64_t addr = 0;
        if (!find_mbarrier(w, l, in, addr)) return t;
        ++mbarrier_ops_;
      }
      return done;
    }
    case op::tma_load:
      for (unsigned l = 0; l < p_.warp_size; ++l) {
        if (!active(l)) continue;
        const tensor_descriptor& d = launch_.tensor_maps[in.rd];
        const std::uint64_t dst = static_cast<std::uint32_t>(w.r[l][in.ra] + static_cast<std::uint32_t>(in.imm));
        if (dst + d.box_bytes() > launch_.shared_bytes) {
          set_fault(w, l, "tma.load destination " + hex(dst) + " + " + std::to_string(d.box_bytes()) +
                              " bytes: outside the block's " + std::to_string(launch_.shared_bytes) + " bytes of shared memory");
          return t;
        }
        std::uint64_t addr = 0;
        simt::instr bar_in = in;
        bar_in.ra = in.rb;
        bar_in.imm = 0;
        tx_barrier* b = find_mbarrier(w, l, bar_in, addr);
        if (!b) return t;
        std::array<std::int64_t, 5> coords{};
        for (unsigned k = 0; k < d.rank; ++k) coords[k] = static_cast<std::int32_t>(w.r[l][in.rc + k]);
        const std::string e = tma->load(d, coords, blocks_[w.block].shared_base + dst, *b, t + p_.lat_lsu);
        if (!e.empty()) {
          set_fault(w, l, "tma.load: " + e);
          return t;
        }
        ++tma_loads_;
      }
      return done;
    case op::tma_store:
      for (unsigned l = 0; l < p_.warp_size; ++l) {
        if (!active(l)) continue;
        const tensor_descriptor& d = launch_.tensor_maps[in.rd];
        const std::uint64_t src = static_cast<std::uint32_t>(w.r[l][in.ra] + static_cast<std::uint32_t>(in.imm));
        if (src + d.box_bytes() > launch_.shared_bytes) {
          set_fault(w, l, "tma.store source " + hex(src) + " + " + std::to_string(d.box_bytes()) +
                              " bytes: outside the block's " + std::to_string(launch_.shared_bytes) + " bytes of shared memory");
          return t;
        }
        std::array<std::int64_t, 5> coords{};
        for (unsigned k = 0; k < d.rank; ++k) coords[k] = static_cast<std::int32_t>(w.r[l][in.rc + k]);
        std::uint64_t id = 0;
        const std::string e = tma->store(d, coords, blocks_[w.block].shared_base + src, t + p_.lat_lsu, id);
        if (!e.empty()) {
          set_fault(w, l, "tma.store: " + e);
          return t;
        }
        w.tma_last_store = id;  // the loader finishes its stores in order
        ++tma_stores_;
      }
      return done;
    case op::tma_wait:  // ready_time() let it issue: the warp's stores have completed
      return done;
    case op::wgmma: {
      const std::uint32_t full = 0xffffffffu;
      if ((mask & ~w.exited) != full || w.threads != 32) {
        set_fault(w, 0, "wgmma needs all 32 threads of the warp active (active mask " + hex(mask) + ")");
        return t;
      }
      wgmma_request r;
      r.n = in.mma_n;
      r.type = in.mma_bf16 ? element_type::bf16 : element_type::f16;
      r.a_in_registers = in.mma_a_regs;
      r.accumulate = in.imm != 0;
      r.a_desc = in.mma_a_regs ? 0 : (std::uint64_t(w.r[0][in.ra + 1]) << 32 | w.r[0][in.ra]);
      r.b_desc = std::uint64_t(w.r[0][in.rb + 1]) << 32 | w.r[0][in.rb];
      r.group = w.block * 64 + w.index / 4;
      r.warp_in_group = w.index % 4;
      for (unsigned l = 0; l < 32; ++l) {
        r.lanes[l] = w.r[l].data();
        for (unsigned i = 0; i < 4 && in.mma_a_regs; ++i) r.a_frag[l][i] = w.r[l][in.ra + i];
      }
      r.acc_reg = in.rd;
      r.a_reg = in.ra;
      r.smem_base = blocks_[w.block].shared_base;
      r.smem_bytes = launch_.shared_bytes;
      const std::uint32_t pc = w.stack.back().pc;
      r.where = "block " + std::to_string(blocks_[w.block].id) + " warp " + std::to_string(w.index) + " PC " +
                std::to_string(pc) + " (line " + std::to_string(in.line) + ": " + in.text + ")";
      std::uint64_t id = 0;
      const std::string e = gmma->issue(r, t, id);
      if (!e.empty()) {
        set_fault(w, 0, e);
        return t;
      }
      w.wgmma_open.push_back(id);
      ++wgmma_issued_;
      return done;
    }
    case op::wgmma_commit:
      w.wgmma_groups.push_back(std::move(w.wgmma_open));
      w.wgmma_open.clear();
      return done;
    case op::wgmma_wait: {
      const auto keep = static_cast<std::size_t>(in.imm);
      while (w.wgmma_groups.size() > keep) w.wgmma_groups.pop_front();
      return done;
    }
    default: return done;
  }
}

// Nothing can issue: warps wait at bar.sync, on mbarrier phases or on wgmma groups that no
// one can complete.
std::string simt_core::blocked_report() const {
  std::string s;
  bool async = false;
  for (const auto& wp : warps_) {
    const warp& w = *wp;
    if (!w.live || w.at_barrier || w.stack.empty()) continue;
    const std::uint32_t pc = w.stack.back().pc;
    const simt::instr& in = kernel_.code[pc];
    std::string why;
    if (in.code == op::mbar_wait) {
      const std::uint32_t mask = w.stack.back().mask & ~w.exited;
      for (unsigned l = 0; l < p_.warp_size && why.empty(); ++l) {
        if (!((mask >> l) & 1) || !guard(w, l, in)) continue;
        const std::uint64_t addr = static_cast<std::uint32_t>(w.r[l][in.ra] + static_cast<std::uint32_t>(in.imm));
        const auto& bars = blocks_[w.block].mbarriers;
        auto it = bars.find(addr);
        if (it == bars.end()) continue;
        const unsigned parity = (in.b_imm ? in.imm_b : w.r[l][in.rb]) & 1u;
        const tx_barrier& b = it->second;
        why = "waits on the mbarrier at shared " + hex(addr) + " for the phase of parity " + std::to_string(parity) +
              ", which never completes (phase " + std::to_string(b.phase()) + ": " + std::to_string(b.pending_arrivals()) +
              " of " + std::to_string(b.expected_arrivals()) + " arrivals and " + std::to_string(b.pending_bytes()) +
              " bytes pending)";
      }
    } else if (in.code == op::wgmma_wait) {
      why = "waits for wgmma groups that never complete";
    }
    if (why.empty()) continue;
    async = true;
    s += (s.empty() ? "" : "; ") + std::string("block ") + std::to_string(blocks_[w.block].id) + " warp " +
         std::to_string(w.index) + " at PC " + std::to_string(pc) + " (line " + std::to_string(in.line) + ": " + in.text +
         ") " + why;
  }
  if (!async) return deadlock_report();
  std::string gm = gmma.size() ? gmma->waiting() : "";
  if (!gm.empty()) gm = "; wgmma start barrier: " + gm;
  return "deadlock: " + s + gm;
}

std::string simt_core::deadlock_report() const {
  std::string waiting, gone;
  for (const auto& bs : blocks_) {
    if (!bs.busy) continue;
    for (int s : bs.warps) {
      const warp& w = *warps_[static_cast<std::size_t>(s)];
      if (w.live && w.at_barrier)
        waiting += (waiting.empty() ? "" : ", ") + std::string("block ") + std::to_string(bs.id) + " warp " +
                   std::to_string(w.index);
    }
    if (bs.exited_threads) gone += (gone.empty() ? "" : ", ") + std::string("block ") + std::to_string(bs.id) + ": " +
                                   std::to_string(bs.exited_threads) + " threads exited";
  }
  return "barrier deadlock: " + waiting + " wait at bar.sync but " + gone + " and can never arrive";
}

void simt_core::exit_threads(warp& w, std::uint32_t which, std::uint64_t t) {
  block_slot& bs = blocks_[w.block];
  bs.exited_threads += static_cast<unsigned>(std::bitset<32>(which & ~w.exited).count());
  w.exited |= which;
  if (w.exited != 0xffffffffu) return;
  w.live = false;
  sched_->retire(w.slot);
  if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(t), 0);
  if (--bs.warps_left == 0) {
    // TMA rows still to land in the block's shared memory would complete on barriers the
    // next block in this slot replaces: a program error, reported as such.
    if (tma.size() && launch_.shared_bytes && tma->writing_to(bs.shared_base, bs.shared_base + launch_.shared_bytes)) {
      fault_ = "block " + std::to_string(bs.id) + " finished at cycle " + std::to_string(t) +
               " while TMA copies into its shared memory were still landing (a tma.load whose barrier it did not wait on)";
      return;
    }
    if (bs.memory_in_flight) {  // its shared memory is given to the next block once its accesses are over
      bs.draining = true;
      return;
    }
    retire_block(w.block, t);
  } else if (bs.arrived > 0 && bs.arrived >= bs.warps_left) {
    fault_ = deadlock_report();
  }
}

void simt_core::retire_block(unsigned slot, std::uint64_t t) {
  block_slot& bs = blocks_[slot];
  bs.busy = false;
  bs.draining = false;
  ++blocks_done_;
  launch_blocks(t);
}

// Dynamic warp formation: ready warps whose next instruction is at the same PC join the
// issue when none of their active threads' home lanes is taken (the register file is
// partitioned by lane, so a thread cannot move to another lane).
std::vector<simt_core::warp*> simt_core::form_warp(warp& w, std::uint64_t t) {
  std::vector<warp*> group{&w};
  if (p_.divergence != divergence_policy::dwf) return group;
  const std::uint32_t full = p_.warp_size == 32 ? 0xffffffffu : ((1u << p_.warp_size) - 1);
  const std::uint32_t pc = w.stack.back().pc;
  std::uint32_t lanes = w.stack.back().mask & ~w.exited;
  if (lanes == full) return group;
  const simt::instr& in = kernel_.code[pc];
  if (in.code == op::bar || simt::is_memory(in.code)) return group;  // kept per warp
  for (auto& x : warps_) {
    if (x.get() == &w || !x->live || x->at_barrier || x->stack.empty() || x->stack.back().pc != pc) continue;
    if (x->ready_at > t) continue;
    const std::uint32_t m = x->stack.back().mask & ~x->exited;
    if (m & lanes) {
      ++dwf_collisions_;
      continue;
    }
    lanes |= m;
    group.push_back(x.get());
    ++dwf_merged_;
    if (lanes == full) break;
  }
  return group;
}

// Issues the instruction at the top of the group's stacks at cycle t (one warp, or with
// dwf several whose threads occupy distinct lanes); returns when the lanes are free.
std::uint64_t simt_core::issue(const std::vector<warp*>& group, std::uint64_t t) {
  const std::uint64_t occupancy = (p_.warp_size + p_.lanes - 1) / p_.lanes;
  std::uint32_t lanes = 0;
  for (warp* w : group) lanes |= w->stack.back().mask & ~w->exited;
  const unsigned active = static_cast<unsigned>(std::bitset<32>(lanes).count());
  ++warp_instr_;
  ++active_hist_[active];
  ++per_warp_[static_cast<std::size_t>(group.front()->slot)];
  issue_warp_.set(to_time(t), static_cast<std::uint64_t>(group.front()->slot));
  issue_pc_.set(to_time(t), group.front()->stack.back().pc);
  active_mask_.set(to_time(t), lanes);
  active_lanes_.set(to_time(t), active);
  if (timeline_)
    for (warp* w : group) {
      const auto& in = kernel_.code[w->stack.back().pc];
      const std::string track = "warp slot " + std::to_string(w->slot);
      const bool waits = in.code == op::mbar_wait || in.code == op::wgmma_wait || in.code == op::tma_wait;
      if (waits && t > w->issue_end)
        timeline_->slice(name(), track, std::string("waiting: ") + simt::mnemonic(in.code), to_time(w->issue_end), to_time(t));
      timeline_->slice(name(), track, in.text.empty() ? simt::mnemonic(in.code) : in.text, to_time(t), to_time(t + occupancy));
      w->issue_end = t + occupancy;
    }
  for (warp* w : group) execute(*w, t, occupancy);
  executing_ = nullptr;
  return t + occupancy;
}

// The instruction at the top of w's stack, for w's active threads; returns its completion.
std::uint64_t simt_core::execute(warp& w, std::uint64_t t, std::uint64_t occupancy) {
  auto& top = w.stack.back();
  const std::uint32_t pc = top.pc;
  const simt::instr& in = kernel_.code[pc];
  const std::uint32_t mask = top.mask & ~w.exited;
  thread_instr_ += static_cast<unsigned>(std::bitset<32>(mask).count());
  executing_ = &w;  // named by a deadlock report should a transport it sends never return
  executing_pc_ = pc;
  executing_at_ = t;

  std::uint64_t done = t + occupancy + p_.lat_branch;
  bool blocking = true;  // the next PC is known only once this completes
  switch (in.code) {
    case op::bra:
      branch(w, in, mask);
      w.why = warp::wait::scoreboard;
      break;
    case op::bar:
      top.pc = pc + 1;
      arrive_barrier(w, t);
      break;
    case op::exit: {
      std::uint32_t which = 0;
      for (unsigned l = 0; l < p_.warp_size; ++l)
        if (((mask >> l) & 1) && guard(w, l, in)) which |= 1u << l;
      top.pc = pc + 1;
      exit_threads(w, which, t);
      w.why = warp::wait::scoreboard;
      break;
    }
    case op::mbar_init: case op::mbar_arrive: case op::mbar_arrive_tx: case op::mbar_wait: case op::tma_load:
    case op::tma_store: case op::tma_wait: case op::wgmma: case op::wgmma_commit: case op::wgmma_wait:
      done = execute_async(w, in, mask, t) + occupancy;
      if (in.code == op::tma_load) w.tma_issued_at = static_cast<std::int64_t>(t);
      if (in.code == op::mbar_wait && w.tma_issued_at >= 0) {  // the copy's round trip as the warp sees it
        ++tma_round_trip_.first;
        tma_round_trip_.second += done - static_cast<std::uint64_t>(w.tma_issued_at);
        w.tma_issued_at = -1;
      }
      top.pc = pc + 1;
      w.why = warp::wait::async;
      blocking = in.code == op::mbar_wait || in.code == op::wgmma_wait || in.code == op::tma_wait;
      break;
    case op::ld:
    case op::st:
      // The completion is learnt when the memory responds (unknown_cycle until then): the
      // scoreboard entries below hold unknown_cycle, and complete_memory fills them in.
      done = execute_memory(w, in, mask, t, occupancy);
      top.pc = pc + 1;
      w.why = warp::wait::memory;
      blocking = false;
      if (!warp_state_.empty()) {  // waiting on memory until the access completes
        warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(t), 2);
        if (done != unknown_cycle) warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(done), 1);
      }
      break;
    default:
      done = t + occupancy + execute_alu(w, in, mask);
      top.pc = pc + 1;
      w.why = warp::wait::scoreboard;
      blocking = false;
      break;
  }
  // Reconvergence: pop entries that reached their reconvergence PC or lost all threads.
  while (!w.stack.empty() && (w.stack.back().pc == w.stack.back().rpc || (w.stack.back().mask & ~w.exited) == 0))
    w.stack.pop_back();
  if (w.live && w.stack.empty()) exit_threads(w, 0xffffffffu, t);  // ran past the end
  if (done != unknown_cycle) end_ = std::max(end_, done);
  // Scoreboard: every register the instruction writes is ready at `done`. (The wgmma
  // accumulators are written when the MMA completes: wgmma.wait_group covers them.)
  if (!blocking && !simt::is_async(in.code)) {
    const simt::reg_set written = simt::writes(in);
    written.for_each([&](unsigned x) { w.reg_ready[x] = done; });
    for (unsigned p = 0; p < w.pred_ready.size(); ++p)
      if (written.has_pred(p)) w.pred_ready[p] = done;
  }
  // A store holds its in-flight slot only until it leaves the load/store unit (posted write);
  // the run still ends when it completes.
  // (Only tracked with more than one instruction in flight; else ready_at says it all.)
  if (p_.inflight > 1)
    w.inflight.push_back(in.code == op::st ? std::min(done, t + occupancy + p_.lat_lsu) : done);
  if (blocking || p_.inflight == 1) w.ready_at = std::max(w.ready_at, done);
  send_requests(0);
  send_requests(1);
  return done;
}

// ---------------------------------------------------------------------------- main loop

bool simt_core::async_pending() const {
  return (gmma.size() && gmma->in_progress()) || (tma.size() && tma->in_progress());
}

// Waits until cycle `until` or until a copy or MMA in progress reports, whichever is first.
void simt_core::wait_async(std::uint64_t until) {
  sc_core::sc_event_or_list news;
  if (gmma.size() && gmma->in_progress()) news |= gmma->progress_event();
  if (tma.size() && tma->in_progress()) news |= tma->progress_event();
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (until != std::numeric_limits<std::uint64_t>::max()) {
    if (to_time(until) > now) wait(to_time(until) - now, news);
  } else {
    wait(news);
  }
}

// The first cycle at which a memory access not answered yet could make its warp ready: its
// response comes at the current cycle at the earliest, and the data are in the registers
// lat_lsu cycles later.
std::uint64_t simt_core::memory_horizon() const {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const std::uint64_t c = now.value() / to_time(1).value();
  return c + p_.lat_lsu + (p_.lat_lsu == 0 && settled_at_ == now ? 1 : 0);
}

// Decisions at cycle t depend on the memory accesses in flight only once t reaches the
// horizon: until then the core may run ahead of simulated time, after it waits for the
// responses. (With lat_lsu 0 it decides at the cycle itself, a delta cycle after the
// responses due then have come.)
void simt_core::sync_for_memory(std::uint64_t t) {
  while (memory_in_flight_ && t >= memory_horizon()) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (p_.lat_lsu == 0 && to_time(t) == now) {
      wait(sc_core::SC_ZERO_TIME);
      settled_at_ = now;
      continue;
    }
    wait(to_time(p_.lat_lsu ? t + 1 - p_.lat_lsu : t) - now, memory_news_);
  }
}

// Waits until the accesses in flight could no longer come before `next` (unknown_cycle:
// none known), or for a response or other news.
void simt_core::wait_memory(std::uint64_t next) {
  sc_core::sc_event_or_list news;
  news |= memory_news_;
  if (gmma.size() && gmma->in_progress()) news |= gmma->progress_event();
  if (tma.size() && tma->in_progress()) news |= tma->progress_event();
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (next == unknown_cycle) {
    wait(news);
    return;
  }
  const std::uint64_t target = p_.lat_lsu ? next + 1 - p_.lat_lsu : next;
  if (to_time(target) > now) {
    wait(to_time(target) - now, news);
  } else {  // lat_lsu 0, `next` is now: the responses due now come within a delta cycle
    wait(sc_core::SC_ZERO_TIME);
    settled_at_ = now;
  }
}

// A live warp whose next instruction waits on a result not known yet (for the idle count).
const simt_core::warp* simt_core::unknown_warp() const {
  for (const auto& w : warps_)
    if (w->live && !w->at_barrier && w->why == warp::wait::async) return w.get();
  return nullptr;
}

void simt_core::count_idle(const warp* first, std::uint64_t idle) {
  if (!first || idle == 0) {
    idle_async_ += idle;
    return;
  }
  switch (first->why) {
    case warp::wait::memory: idle_memory_ += idle; break;
    case warp::wait::barrier: idle_barrier_ += idle; break;
    case warp::wait::async:
      if (kernel_.code[first->stack.back().pc].code == op::wgmma_wait) idle_wgmma_ += idle;
      else idle_async_ += idle;
      break;
    default: idle_scoreboard_ += idle; break;
  }
}

void simt_core::run() {
  if (!loaded_) return;
  launch_blocks(0);
  std::uint64_t t = 0;
  std::vector<warp_view> views(warps_.size());
  // When may a warp issue its next instruction (scoreboard and in-flight limit)?
  auto ready_time = [&](warp& w) {
    std::uint64_t r = w.ready_at;
    if (p_.inflight > 1 && !w.stack.empty()) {
      // Instructions complete out of order (an add behind a load): drop every completed one.
      w.inflight.erase(std::remove_if(w.inflight.begin(), w.inflight.end(), [t](std::uint64_t d) { return d <= t; }),
                       w.inflight.end());
      if (w.inflight.size() >= p_.inflight) r = std::max(r, *std::min_element(w.inflight.begin(), w.inflight.end()));
      const auto& in = kernel_.code[w.stack.back().pc];
      // Exactly the registers the instruction reads (RAW) and writes (WAW: a result still
      // in flight must not land after this one). Operands are read at issue, so a later
      // write never overtakes an earlier read (no WAR); the wgmma accumulators, read when
      // the MMA runs, are left alone until wgmma.wait_group by the ISA.
      const bool tma_op = in.code == op::tma_load || in.code == op::tma_store;
      const simt::reg_set read = simt::reads(in, tma_op ? launch_.tensor_maps[in.rd].rank : simt::max_tma_rank);
      const simt::reg_set written = simt::writes(in);
      read.for_each([&](unsigned x) { r = std::max(r, w.reg_ready[x]); });
      written.for_each([&](unsigned x) { r = std::max(r, w.reg_ready[x]); });
      for (unsigned p = 0; p < w.pred_ready.size(); ++p)
        if (read.has_pred(p) || written.has_pred(p)) r = std::max(r, w.pred_ready[p]);
    }
    if (!w.stack.empty()) {
      const auto& in = kernel_.code[w.stack.back().pc];
      if (in.code == op::mbar_wait || in.code == op::wgmma_wait) r = std::max(r, async_ready(w, in));
      if (in.code == op::tma_wait && w.tma_last_store) {  // its stores' completion, once known
        const std::uint64_t done = tma->store_done(w.tma_last_store);
        r = std::max(r, done == tma_if::unknown_store ? unknown_cycle : done);
      }
    }
    return r;
  };
  while (fault_.empty() && blocks_done_ < launch_.grid) {
    // While copies or MMAs are in progress their results (barrier phases, completions) become
    // known in simulated time, each for a cycle after the one it is learnt at: the core then
    // decides at simulated time instead of running ahead on a guess.
    const bool pending = async_pending();
    if (pending && to_time(t) > sc_core::sc_time_stamp()) wait(to_time(t) - sc_core::sc_time_stamp());
    sync_for_memory(t);
    for (std::size_t s = 0; s < warps_.size(); ++s) {
      warp& w = *warps_[s];
      views[s].present = w.live;
      views[s].age = w.age;
      views[s].ready = w.live && !w.at_barrier && ready_time(w) <= t;
    }
    const int s = sched_->pick(views);
    if (s >= 0 && warp_instr_.value() >= p_.max_instructions) {
      set_fault(*warps_[static_cast<std::size_t>(s)], 0,
                "runaway kernel: more than " + std::to_string(p_.max_instructions) + " warp instructions");
      break;
    }
    if (s < 0) {
      std::uint64_t next = std::numeric_limits<std::uint64_t>::max();
      const warp* first = nullptr;
      for (auto& w : warps_)
        if (w->live && !w->at_barrier) {
          const std::uint64_t r = ready_time(*w);
          if (r < next) {
            next = r;
            first = w.get();
          }
        }
      // A memory access not answered yet completes at the earliest lat_lsu cycles after the
      // current one: when that could come before the next known cycle, learn it first.
      if (memory_in_flight_ && (!first || next >= memory_horizon())) {
        wait_memory(first ? next : unknown_cycle);
        continue;
      }
      if (pending && (!first || next > t)) {  // wait for the next known cycle or for news
        wait_async(first ? next : std::numeric_limits<std::uint64_t>::max());
        const std::uint64_t now = std::max(t, to_cycles_ceil(sc_core::sc_time_stamp()));
        count_idle(first && next <= now ? first : unknown_warp(), now - t);
        t = now;
        continue;
      }
      if (!first) {
        fault_ = blocked_report();
        break;
      }
      if (next <= t) {  // ready, but the scheduler may not pick it this cycle (two-level set)
        ++idle_structural_;
        t = t + 1;
        continue;
      }
      count_idle(first, next - t);
      t = next;
      continue;
    }
    t = issue(form_warp(*warps_[static_cast<std::size_t>(s)], t), t);
    const sc_core::sc_time local = to_time(t);
    if (local > sc_core::sc_time_stamp() + to_time(p_.quantum)) wait(local - sc_core::sc_time_stamp());
  }
  end_ = std::max(end_, t);
  while (memory_in_flight_) wait(memory_news_);
  while (async_pending()) wait_async(std::numeric_limits<std::uint64_t>::max());
  if (tma.size()) end_ = std::max(end_, tma->busy_until());  // copies still landing
  if (to_time(end_) > sc_core::sc_time_stamp()) wait(to_time(end_) - sc_core::sc_time_stamp());
  if (!fault_.empty()) {
    fault(fault_);
    return;
  }
  done_ = true;
  log(sc_core::SC_HIGH, std::to_string(launch_.grid) + " blocks finished at cycle " + std::to_string(end_) + ", " +
                              std::to_string(warp_instr_.value()) + " warp instructions");
}

std::string simt_core::pending_work() const {
  if (done_ || !loaded_) return {};
  std::string s = std::to_string(blocks_done_) + " of " + std::to_string(launch_.grid) + " blocks finished";
  // Where the resident warps are (a cycle limit stops a runaway kernel anywhere).
  unsigned listed = 0, more = 0;
  for (const auto& bs : blocks_) {
    if (!bs.busy) continue;
    for (int slot : bs.warps) {
      const warp& w = *warps_[static_cast<std::size_t>(slot)];
      if (!w.live || w.stack.empty()) continue;
      if (listed == 4) {
        ++more;
        continue;
      }
      const std::uint32_t pc = w.stack.back().pc;
      s += std::string(listed++ ? ", " : "; resident: ") + "block " + std::to_string(bs.id) + " warp " +
           std::to_string(w.index) + " at PC " + std::to_string(pc);
      if (pc < kernel_.code.size())
        s += " (line " + std::to_string(kernel_.code[pc].line) + ": " + kernel_.code[pc].text + ")";
      if (w.at_barrier) s += " at a barrier";
    }
  }
  if (more) s += " and " + std::to_string(more) + " more warps";
  // A memory access never answered: the oldest one (a request still waiting for END_REQ
  // first: the ones behind it have not been sent).
  const mem_request* stuck = nullptr;
  const auto rank = [this](const mem_request& r) {
    return std::make_tuple(awaiting_end_req_[r.port] == r.gp ? 0 : 1, r.op->issued, r.port, r.group);
  };
  for (const auto& entry : requests_)
    if (!stuck || rank(*entry.second) < rank(*stuck)) stuck = entry.second.get();
  if (stuck) {
    const mem_op& mo = *stuck->op;
    const auto& queue = to_send_[stuck->port];
    const bool sent = std::find(queue.begin(), queue.end(), stuck->gp) == queue.end();
    s += "; block " + std::to_string(blocks_[mo.block].id) + " warp " + std::to_string(mo.warp_index) + " at PC " +
         std::to_string(mo.pc) + " (line " + std::to_string(mo.in->line) + ": " + mo.in->text + ") issued at cycle " +
         std::to_string(mo.issued) + " has not completed: " + (mo.in->code == op::st ? "WRITE " : "READ ") +
         hex(stuck->ext.address[0]) + " through " + (stuck->port ? shared.name() : global.name()) +
         (!sent ? " not sent yet" : awaiting_end_req_[stuck->port] == stuck->gp ? ": END_REQ never came" : ": no response came") +
         " (" + std::to_string(memory_in_flight_) + " requests in flight)";
  }
  if (executing_) {  // the thread stopped inside an instruction: a transport that never returned
    const simt::instr& in = kernel_.code[executing_pc_];
    s += "; block " + std::to_string(blocks_[executing_->block].id) + " warp " + std::to_string(executing_->index) +
         " at PC " + std::to_string(executing_pc_) + " (line " + std::to_string(in.line) + ": " + in.text +
         ") issued at cycle " + std::to_string(executing_at_) + " has not completed";
  }
  return s;
}

void simt_core::attach_trace(trace_sink& sink) {
  if (sink.wants_timeline()) timeline_ = &sink;
  issue_warp_.attach(&sink, name(), "issue_warp", 8);
  issue_pc_.attach(&sink, name(), "issue_pc", 16);
  active_mask_.attach(&sink, name(), "active_mask", 32);
  active_lanes_.attach(&sink, name(), "active_lanes", 8);
  lsu_transactions_.attach(&sink, name(), "lsu_transactions", 8);
  warp_state_.resize(warps_.size());
  for (std::size_t s = 0; s < warps_.size(); ++s)
    warp_state_[s].attach(&sink, name(), "warp" + std::to_string(s) + "_state", 2);
  bool async = false;
  for (const auto& in : kernel_.code) async = async || simt::is_async(in.code);
  if (async) {  // the first 8 mbarriers block slot 0 initialises: phase, pending arrivals and bytes
    mbar_trace_.resize(24);
    for (unsigned k = 0; k < 8; ++k) {
      const std::string n = "mbar" + std::to_string(k);
      mbar_trace_[3 * k].attach(&sink, name(), n + "_phase", 8);
      mbar_trace_[3 * k + 1].attach(&sink, name(), n + "_pending_arrivals", 16);
      mbar_trace_[3 * k + 2].attach(&sink, name(), n + "_pending_bytes", 32);
    }
  }
}

}  // namespace flynn

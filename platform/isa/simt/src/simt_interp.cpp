// The golden functional interpreter of the SIMT kernel ISA (semantics: isa.h and
// docs/isa/simt.md). Deliberately self-contained: it shares only the instruction types with
// the timed SIMT core in modules/simt, and runs the threads one at a time.
#include "flynn/platform/simt_interp.h"

#include <array>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <set>

#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "flynn/common/wide_vectors.h"
#include "flynn/gmma/wgmma.h"
#include "flynn/tensor/numeric.h"

namespace flynn::simt {

// binary32 results must be rounded once per operation: no extended intermediate precision.
static_assert(FLT_EVAL_METHOD == 0, "the SIMT interpreter needs float arithmetic in float");

namespace {

struct stop {
  std::string reason;
};

std::int32_t s32(std::uint32_t x) { return static_cast<std::int32_t>(x); }

// Signed division truncating toward zero: x / 0 = 0, INT_MIN / -1 = INT_MIN.
std::uint32_t div_signed(std::uint32_t a, std::uint32_t b) {
  if (b == 0) return 0;
  if (a == 0x80000000u && b == 0xffffffffu) return a;
  return static_cast<std::uint32_t>(s32(a) / s32(b));
}

// Remainder with the sign of the dividend: x % 0 = x, INT_MIN % -1 = 0.
std::uint32_t rem_signed(std::uint32_t a, std::uint32_t b) {
  if (b == 0) return a;
  if (a == 0x80000000u && b == 0xffffffffu) return 0;
  return static_cast<std::uint32_t>(s32(a) % s32(b));
}

std::uint32_t shift_right_arith(std::uint32_t a, std::uint32_t s) {
  const unsigned n = s & 31;
  if (n == 0) return a;
  const std::uint32_t r = a >> n;
  return (a >> 31) ? r | ~(0xffffffffu >> n) : r;
}

// High 32 bits of the signed 64-bit product.
std::uint32_t mul_high(std::uint32_t a, std::uint32_t b) {
  const auto p = static_cast<std::uint64_t>(std::int64_t{s32(a)} * std::int64_t{s32(b)});
  return static_cast<std::uint32_t>(p >> 32);
}

// float -> int32: truncate toward zero, saturate, NaN -> 0.
std::uint32_t float_to_s32(float f) {
  if (std::isnan(f)) return 0;
  if (f >= 2147483648.0f) return 0x7fffffffu;
  if (f <= -2147483648.0f) return 0x80000000u;
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(f));
}

template <typename T>
bool compare(cmp c, T a, T b) {
  switch (c) {
    case cmp::eq: return a == b;
    case cmp::ne: return a != b;  // true for unordered floats
    case cmp::lt: return a < b;
    case cmp::le: return a <= b;
    case cmp::gt: return a > b;
    case cmp::ge: return a >= b;
  }
  return false;
}

bool set_predicate(cmp c, type t, std::uint32_t a, std::uint32_t b) {
  switch (t) {
    case type::s32: return compare(c, s32(a), s32(b));
    case type::u32: return compare(c, a, b);
    case type::f32: return compare(c, bits_to_float(a), bits_to_float(b));
    case type::s16: case type::u16: break;  // (not setp types: malformed refuses them)
  }
  return false;
}

std::string where(std::uint32_t pc, const instr& in) {
  return "PC " + std::to_string(pc) + " (" + std::to_string(in.line) + ": " + in.text + ")";
}

// "warp 0" / "warps 0, 2, 3"
std::string warp_list(const std::set<unsigned>& warps) {
  std::string s = warps.size() == 1 ? "warp " : "warps ";
  bool first = true;
  for (unsigned w : warps) {
    s += (first ? "" : ", ") + std::to_string(w);
    first = false;
  }
  return s;
}

// Why `in` is not a well-formed instruction (empty when it is).
std::string malformed(const instr& in, std::size_t code_size) {
  if (in.code >= op::count_) return "unknown opcode";
  if (highest_register(in) >= static_cast<int>(num_registers)) return "register group beyond r255";
  if (in.guard != no_pred && in.guard > 7) return "guard predicate above p7";
  if (in.code == op::setp && in.rd > 7) return "destination predicate above p7";
  if (in.code == op::selp && in.rc > 7) return "selected predicate above p7";
  if (in.code == op::setp && in.ty > type::f32) return "unknown comparison type";
  if (in.code == op::setp && in.cond > cmp::ge) return "unknown comparison";
  if (in.code == op::mov && in.sreg > special::nctaid_z) return "unknown special register";
  if (in.code == op::shfl && (in.sub > 3 || (in.pd != no_pred && in.pd > 7))) return "malformed shuffle";
  if (in.code == op::atom && (in.sub > 3 || in.width != 4 || in.ty > type::f32)) return "malformed atomic";
  if (in.code == op::plogic && (in.rd > 7 || in.ra > 7 || in.rb > 7 || in.imm < 0 || in.imm > 3)) return "malformed predicate operation";
  if (in.code == op::mul_wide && in.ty > type::u16) return "unknown multiply type";
  if (in.code == op::logic64 && in.sub > 2) return "malformed 64-bit logic operation";
  if ((in.code == op::elect || in.code == op::mbar_wait) && in.pd != no_pred && in.pd > 7) return "destination predicate above p7";
  if (in.code == op::wgmma && in.mma_scale_pred && in.rc > 7) return "scale-d predicate above p7";
  if (in.code == op::ld || in.code == op::st) {
    if (in.width != 1 && in.width != 2 && in.width != 4 && in.width != 8 && in.width != 16)
      return "access width not 1, 2, 4, 8 or 16 bytes";
    if (in.sp > space::shared) return "unknown memory space";
    const unsigned r = in.code == op::ld ? in.rd : in.rb;
    if (r + data_registers(in) - 1 >= num_registers) return "register group beyond r255";
  }
  if (in.code == op::bra && in.target > code_size) return "branch target beyond the kernel";
  return {};
}

using state = thread_state;

struct thread : golden_thread {
  std::array<std::uint32_t, num_registers> r{};
  std::array<bool, 8> p{};
};

class machine {
 public:
  machine(const kernel& k, const launch& l, std::vector<unsigned char>& global,
          const interp_config& c)
      : k_(k), l_(l), global_(global), c_(c) {}

  interp_result run() {
    if (c_.warp_size == 0) return failed("invalid launch: warp size 0");
    for (std::size_t pc = 0; pc < k_.code.size(); ++pc) {
      const std::string why = malformed(k_.code[pc], k_.code.size());
      if (!why.empty())
        return failed(where(static_cast<std::uint32_t>(pc), k_.code[pc]) + ": invalid instruction: " + why);
    }
    for (unsigned b = 0; b < l_.grid && res_.ok; ++b) run_block(b);
    return res_;
  }

 private:
  interp_result failed(const std::string& why) {
    res_.ok = false;
    res_.fault = why;
    return res_;
  }

  void run_block(unsigned b) {
    std::vector<unsigned char> shared(static_cast<std::size_t>(l_.shared_bytes), 0);
    shared_ = &shared;
    block_ = b;
    std::vector<thread> threads(l_.block);
    threads_ = &threads;
    bars_.clear();
    mma_.clear();
    shuffles_.clear();
    sync_mma_.clear();
    run_golden_block(
        b, threads, c_.warp_size, res_.thread_digest, res_.thread_instructions,
        [this](unsigned t, thread& th) { return run_thread(t, th); }, [this](std::uint32_t pc) { return where(pc, k_.code[pc]); },
        [this](std::uint32_t pc) {
          const op o = k_.code[pc].code;
          return o == op::shfl || o == op::elect || o == op::mma_sync;
        },
        [this](const std::string& why) { failed(why); });
  }

  // Runs thread `t` until it waits at a barrier or exits; false on a fault.
  bool run_thread(unsigned t, thread& th) {
    try {
      while (th.st == state::running) {
        if (th.pc >= k_.code.size()) {
          th.st = state::exited;
          break;
        }
        if (res_.thread_instructions >= c_.max_instructions)
          throw stop{"runaway kernel: more than " + std::to_string(c_.max_instructions) +
                     " instructions"};
        if (!step(t, th)) break;  // blocked: not executed
        ++res_.thread_instructions;
        ++th.count;
      }
    } catch (const stop& s) {
      const std::string loc = "block " + std::to_string(block_) + " thread " + std::to_string(t) +
                              " " + where(th.pc, k_.code[th.pc]);
      if (s.reason.rfind("runaway", 0) == 0)
        failed(s.reason + " (" + loc + ")");
      else
        failed(loc + ": " + s.reason);
      return false;
    }
    return true;
  }

  static std::uint64_t pair(const std::array<std::uint32_t, num_registers>& r, unsigned x) {
    return std::uint64_t(r[x]) | (std::uint64_t(r[x + 1u]) << 32);
  }
  static void set_pair(std::array<std::uint32_t, num_registers>& r, unsigned x, std::uint64_t v) {
    r[x] = static_cast<std::uint32_t>(v);
    r[x + 1u] = static_cast<std::uint32_t>(v >> 32);
  }

  std::uint32_t present_lanes(unsigned w) const {
    return shuffle_exchange::present(w, c_.warp_size, threads_->size(),
                                     [this](std::size_t t) { return (*threads_)[t].st == state::exited; });
  }

  std::vector<unsigned char>& memory(space sp) { return sp == space::shared ? *shared_ : global_; }

  std::uint32_t address(const instr& in, const thread& th) const {
    if (in.abs_addr) return static_cast<std::uint32_t>(in.imm);
    if (in.addr64) {
      const std::uint64_t a = ((std::uint64_t(th.r[in.ra + 1u]) << 32) | th.r[in.ra]) + static_cast<std::uint64_t>(in.imm);
      if (a >> 32)
        throw stop{std::string(in.sp == space::shared ? "shared" : "global") + " address " + hex(a) +
                   " beyond the 32-bit address space"};
      return static_cast<std::uint32_t>(a);
    }
    return th.r[in.ra] + static_cast<std::uint32_t>(in.imm);
  }

  void check(space sp, std::uint32_t addr, unsigned width) {
    const char* name = sp == space::shared ? "shared" : "global";
    if (addr % width != 0) throw stop{std::string("misaligned ") + name + " address " + hex(addr)};
    const std::size_t size = memory(sp).size();
    if (size < width || addr > size - width)
      throw stop{std::string("out-of-range ") + name + " address " + hex(addr)};
  }

  std::uint32_t special_value(special s, unsigned t) const {
    const auto b = l_.block_dims(), g = l_.grid_dims();
    switch (s) {
      case special::tid: return t % b[0];
      case special::tid_y: return (t / b[0]) % b[1];
      case special::tid_z: return t / (b[0] * b[1]);
      case special::ntid: return b[0];
      case special::ntid_y: return b[1];
      case special::ntid_z: return b[2];
      case special::ctaid: return block_ % g[0];
      case special::ctaid_y: return (block_ / g[0]) % g[1];
      case special::ctaid_z: return block_ / (g[0] * g[1]);
      case special::nctaid: return g[0];
      case special::nctaid_y: return g[1];
      case special::nctaid_z: return g[2];
      case special::laneid: return t % c_.warp_size;
      case special::warpid: return t / c_.warp_size;
      case special::none: break;
    }
    return 0;
  }

  // Executes the instruction at th.pc and advances th.pc; false (nothing done, the thread
  // blocked) when it waits on an mbarrier phase or wgmma group that has not completed.
  bool step(unsigned t, thread& th) {
    const instr& in = k_.code[th.pc];
    std::uint32_t next = th.pc + 1;
    if (in.guard != no_pred && th.p[in.guard] == in.guard_neg) {
      th.pc = next;  // guarded off: no effect
      return true;
    }
    auto& r = th.r;
    const std::uint32_t a = r[in.ra];
    const std::uint32_t b = in.b_imm ? static_cast<std::uint32_t>(in.imm) : r[in.rb];
    const std::uint32_t c = r[in.rc];
    const float fa = bits_to_float(a), fb = bits_to_float(b), fc = bits_to_float(c);
    switch (in.code) {
      case op::mov:
        r[in.rd] = in.sreg != special::none ? special_value(in.sreg, t)
                   : in.b_imm               ? static_cast<std::uint32_t>(in.imm)
                                            : a;
        break;
      case op::ldparam: {
        const auto n = static_cast<std::uint64_t>(in.imm);
        const unsigned words = in.width == 8 ? 2 : 1;
        if (n + words > l_.params.size())
          throw stop{"parameter " + std::to_string(n + words - 1) + " beyond the " +
                     std::to_string(l_.params.size()) + " kernel parameters"};
        for (unsigned w = 0; w < words; ++w) r[in.rd + w] = l_.params[static_cast<std::size_t>(n + w)];
        break;
      }
      case op::mov64: {
        const std::uint64_t v = in.b_imm ? static_cast<std::uint64_t>(in.imm) : pair(r, in.ra);
        set_pair(r, in.rd, v);
        break;
      }
      case op::add64: set_pair(r, in.rd, pair(r, in.ra) + (in.b_imm ? static_cast<std::uint64_t>(in.imm) : pair(r, in.rb))); break;
      case op::cvt64:
        set_pair(r, in.rd, in.ty == type::s32 ? static_cast<std::uint64_t>(std::int64_t(s32(a))) : std::uint64_t(a));
        break;
      case op::mul_wide:
        switch (in.ty) {
          case type::s32: set_pair(r, in.rd, static_cast<std::uint64_t>(std::int64_t(s32(a)) * s32(b))); break;
          case type::u32: set_pair(r, in.rd, std::uint64_t(a) * b); break;
          case type::s16:
            r[in.rd] = static_cast<std::uint32_t>(std::int32_t(std::int16_t(a & 0xffff)) * std::int16_t(b & 0xffff));
            break;
          default: r[in.rd] = (a & 0xffff) * (b & 0xffff); break;
        }
        break;
      case op::logic64: {
        const std::uint64_t x = pair(r, in.ra), y = in.b_imm ? static_cast<std::uint64_t>(in.imm) : pair(r, in.rb);
        set_pair(r, in.rd, in.sub == 0 ? (x & y) : in.sub == 1 ? (x | y) : (x ^ y));
        break;
      }
      case op::elect: {  // as a shuffle of lane indices from the lowest lane of the membermask present
        const unsigned w = t / c_.warp_size, lane = t % c_.warp_size;
        shuffle_exchange::result res;
        if (!shuffles_.take(w, lane, res)) {
          shuffle_exchange::arrival av;
          av.name = "elect.sync";
          av.mode = shuffle_mode::idx;
          av.value = lane;
          av.mask = in.e_imm ? in.imm_e : r[in.re];
          const std::uint32_t named = av.mask & present_lanes(w);
          av.b = named ? static_cast<std::uint32_t>(__builtin_ctz(named)) : lane;
          av.c = 31;
          const std::string err = shuffles_.arrive(w, lane, th.pc, av, present_lanes(w));
          if (!err.empty()) throw stop{err};
          if (!shuffles_.take(w, lane, res)) {
            th.st = state::blocked;
            return false;
          }
        }
        if (in.sub == 1) r[in.rd] = res.value;
        if (in.pd != no_pred) th.p[in.pd] = res.value == lane;
        break;
      }
      case op::mma_sync:
        if (!mma_sync(t, th, in)) {
          th.st = state::blocked;
          return false;
        }
        break;
      case op::plogic: {
        const bool x = th.p[in.ra], y = th.p[in.rb];
        th.p[in.rd] = in.imm == 0 ? (x && y) : in.imm == 1 ? (x || y) : in.imm == 2 ? (x != y) : !x;
        break;
      }
      case op::add: r[in.rd] = a + b; break;
      case op::sub: r[in.rd] = a - b; break;
      case op::mul: r[in.rd] = a * b; break;
      case op::mulhi: r[in.rd] = mul_high(a, b); break;
      case op::mad: r[in.rd] = a * b + c; break;
      case op::div: r[in.rd] = div_signed(a, b); break;
      case op::rem: r[in.rd] = rem_signed(a, b); break;
      case op::and_: r[in.rd] = a & b; break;
      case op::or_: r[in.rd] = a | b; break;
      case op::xor_: r[in.rd] = a ^ b; break;
      case op::not_: r[in.rd] = ~a; break;
      case op::shl: r[in.rd] = a << (b & 31); break;
      case op::shr: r[in.rd] = a >> (b & 31); break;
      case op::sra: r[in.rd] = shift_right_arith(a, b); break;
      case op::min: r[in.rd] = s32(a) < s32(b) ? a : b; break;
      case op::max: r[in.rd] = s32(a) > s32(b) ? a : b; break;
      case op::fadd: r[in.rd] = float_to_bits(fa + fb); break;
      case op::fsub: r[in.rd] = float_to_bits(fa - fb); break;
      case op::fmul: r[in.rd] = float_to_bits(fa * fb); break;
      case op::ffma: r[in.rd] = float_to_bits(std::fma(fa, fb, fc)); break;
      case op::fmin: r[in.rd] = float_to_bits(std::fmin(fa, fb)); break;
      case op::fmax: r[in.rd] = float_to_bits(std::fmax(fa, fb)); break;
      case op::fdiv: r[in.rd] = float_to_bits(fa / fb); break;
      case op::fsqrt: r[in.rd] = float_to_bits(std::sqrt(fa)); break;
      case op::cvt_f_s: r[in.rd] = float_to_bits(static_cast<float>(s32(a))); break;
      case op::cvt_s_f: r[in.rd] = float_to_s32(fa); break;
      case op::setp: th.p[in.rd] = set_predicate(in.cond, in.ty, a, b); break;
      case op::selp: r[in.rd] = th.p[in.rc] ? (in.a_imm ? in.imm_b : a) : b; break;
      case op::ld: {
        const std::uint32_t addr = address(in, th);
        check(in.sp, addr, in.width);
        const auto& m = memory(in.sp);
        if (in.width < 4) {  // zero- or sign-extended
          std::uint32_t v = m[addr];
          if (in.width == 2) v |= std::uint32_t{m[addr + 1]} << 8;
          if (in.sign) v = in.width == 1 ? std::uint32_t(std::int32_t(std::int8_t(v))) : std::uint32_t(std::int32_t(std::int16_t(v)));
          r[in.rd] = v;
          break;
        }
        for (unsigned w = 0; w < in.width / 4u; ++w) {
          std::uint32_t v = 0;
          for (unsigned i = 0; i < 4; ++i) v |= std::uint32_t{m[addr + 4 * w + i]} << (8 * i);
          r[in.rd + w] = v;
        }
        break;
      }
      case op::st: {
        const std::uint32_t addr = address(in, th);
        check(in.sp, addr, in.width);
        auto& m = memory(in.sp);
        for (unsigned i = 0; in.width < 4 && i < in.width; ++i) m[addr + i] = static_cast<unsigned char>(r[in.rb] >> (8 * i));
        for (unsigned w = 0; w < in.width / 4u; ++w)
          for (unsigned i = 0; i < 4; ++i)
            m[addr + 4 * w + i] = static_cast<unsigned char>(r[in.rb + w] >> (8 * i));
        break;
      }
      case op::bra: next = in.target; break;
      case op::bar:
        th.st = state::waiting;
        th.bar_pc = th.pc;
        break;
      case op::exit: th.st = state::exited; break;
      case op::nop: break;
      case op::mbar_init: case op::mbar_arrive: case op::mbar_arrive_tx: case op::mbar_wait: case op::tma_load:
      case op::tma_store: case op::tma_wait: case op::wgmma: case op::wgmma_commit: case op::wgmma_wait:
        if (!async(t, th, in)) {
          th.st = state::blocked;
          return false;
        }
        break;
      case op::atom: {
        const std::uint32_t addr = address(in, th);
        check(in.sp, addr, 4);
        auto& m = memory(in.sp);
        std::uint32_t old = 0;
        std::memcpy(&old, &m[addr], 4);
        std::uint32_t v = in.b_imm ? in.imm_b : r[in.rb];
        switch (static_cast<atomic_op>(in.sub)) {
          case atomic_op::add: v = in.ty == type::f32 ? float_to_bits(bits_to_float(old) + bits_to_float(v)) : old + v; break;
          case atomic_op::min: v = in.ty == type::s32 ? (s32(v) < s32(old) ? v : old) : std::min(v, old); break;
          case atomic_op::max: v = in.ty == type::s32 ? (s32(v) > s32(old) ? v : old) : std::max(v, old); break;
          case atomic_op::exch: break;
        }
        std::memcpy(&m[addr], &v, 4);
        r[in.rd] = old;
        break;
      }
      case op::shfl: {
        const unsigned w = t / c_.warp_size, lane = t % c_.warp_size;
        shuffle_exchange::result res;
        if (!shuffles_.take(w, lane, res)) {
          shuffle_exchange::arrival av;
          av.mode = static_cast<shuffle_mode>(in.sub);
          av.value = a;
          av.b = b;
          av.c = in.c_imm ? in.imm_b : r[in.rc];
          av.mask = in.e_imm ? in.imm_e : r[in.re];
          const std::string err = shuffles_.arrive(w, lane, th.pc, av, present_lanes(w));
          if (!err.empty()) throw stop{err};
          if (!shuffles_.take(w, lane, res)) {
            th.st = state::blocked;
            return false;
          }
        }
        r[in.rd] = res.value;
        if (in.pd != no_pred) th.p[in.pd] = res.in_range;
        break;
      }
      case op::count_: throw stop{"invalid instruction"};
    }
    th.pc = next;
    return true;
  }

  // ---- mbarriers, tma.load and wgmma ----------------------------------------------------

  golden_mbarrier& bar_at(std::uint32_t addr) {
    std::string fault;
    golden_mbarrier* m = bars_.find(addr, fault);
    if (!m) throw stop{fault};
    return *m;
  }

  bool async(unsigned t, thread& th, const instr& in) {
    auto& r = th.r;
    const std::uint32_t addr = r[in.ra] + static_cast<std::uint32_t>(in.imm);
    const std::uint32_t b = in.b_imm ? in.imm_b : r[in.rb];
    switch (in.code) {
      case op::mbar_init: {
        if (const std::string e = bars_.init(addr, b); !e.empty()) throw stop{e};
        return true;
      }
      case op::mbar_arrive:
      case op::mbar_arrive_tx: {
        golden_mbarrier& m = bar_at(addr);
        if (in.code == op::mbar_arrive_tx) m.bytes += b;
        --m.pending;
        m.maybe_flip();
        return true;
      }
      case op::mbar_wait:
        if ((bar_at(addr).phase & 1u) == (b & 1u)) return false;
        if (in.pd != no_pred) th.p[in.pd] = true;  // (try_wait.parity: the phase completed)
        return true;
      case op::tma_load: {
        tma_copy(th, in, false);
        return true;
      }
      case op::tma_store: {
        tma_copy(th, in, true);
        return true;
      }
      case op::tma_wait: return true;  // stores complete at once here
      case op::wgmma: {
        const unsigned group = t / 128, ordinal = th.wgmma_issued++;
        auto& g = mma_[group];
        if (g.size() <= ordinal) g.resize(ordinal + 1);
        const instr& w = k_.code[th.pc];
        arrival x{t, th.pc, std::uint64_t(r[w.ra + 1]) << 32 | r[w.ra], std::uint64_t(r[w.rb + 1]) << 32 | r[w.rb], {},
                  w.mma_scale_pred ? th.p[w.rc & 7u] : w.imm != 0};
        for (unsigned i = 0; i < 4 && w.mma_a_regs; ++i) x.a_frag[i] = r[w.ra + i];
        g[ordinal].push_back(x);  // operands are read at issue
        th.wgmma_open.push_back(ordinal);
        if (g[ordinal].size() == 128) compute_wgmma(group, ordinal);
        return true;
      }
      case op::wgmma_commit: th.commit_wgmma(); return true;
      case op::wgmma_wait: {
        const auto& g = mma_[t / 128];
        return th.wait_wgmma(static_cast<std::size_t>(in.imm), [&g](unsigned ord) { return g[ord].size() == 128; });
      }
      default: return true;
    }
  }

  // The copy's box, element by element, rows at their swizzled offsets in shared memory.
  // Loads: out-of-bounds elements land as zero, then the bytes complete on the barrier.
  // Stores: elements outside the tensor are not written.
  void tma_copy(thread& th, const instr& in, bool store) {
    const char* what = store ? "tma.store" : "tma.load";
    if (in.rd >= l_.tensor_maps.size())
      throw stop{std::string(what) + ": tensor map " + std::to_string(in.rd) + " not in the launch (" +
                 std::to_string(l_.tensor_maps.size()) + " tensor maps)"};
    const tensor_descriptor& d = l_.tensor_maps[in.rd];
    const std::uint32_t dst = th.r[in.ra] + static_cast<std::uint32_t>(in.imm);
    if (const std::string e = golden_tma_check(d, dst, l_.shared_bytes, store); !e.empty()) throw stop{e};
    golden_mbarrier* m = store ? nullptr : &bar_at(th.r[in.rb]);
    std::array<std::int64_t, 5> coords{};
    for (unsigned k = 0; k < d.rank; ++k) coords[k] = static_cast<std::int32_t>(th.r[coordinate_register(in, k)]);
    if (const std::string e = golden_tma_copy(d, coords, dst, *shared_, global_, store); !e.empty()) throw stop{e};
    if (m) {
      m->bytes -= static_cast<std::int64_t>(d.box_bytes());
      m->maybe_flip();
    }
  }

  // D = A x B (+ D) for the warpgroup's 128 threads, with the reference arithmetic.
  void compute_wgmma(unsigned group, unsigned ordinal) {
    std::vector<thread>& ths = *threads_;
    const unsigned t0 = group * 128;
    std::vector<const arrival*> at(128);
    for (const arrival& x : mma_[group][ordinal]) at[x.thread - t0] = &x;
    const instr& first = k_.code[at[0]->pc];
    for (const arrival* x : at) {
      const instr& in = k_.code[x->pc];
      if (in.mma_n != first.mma_n || in.mma_type != first.mma_type || in.mma_b_type != first.mma_b_type || in.mma_a_regs != first.mma_a_regs ||
          x->accumulate != at[0]->accumulate)
        throw stop{"the warps of the warpgroup issued different wgmma instructions"};
    }
    const unsigned n = first.mma_n;
    std::vector<wgmma_part> parts(128);
    for (unsigned i = 0; i < 128; ++i) {
      const arrival& x = *at[i];
      parts[i].a_desc = x.a_desc;
      parts[i].b_desc = x.b_desc;
      parts[i].a_frag = x.a_frag;
      const unsigned acc = k_.code[x.pc].rd;
      parts[i].d.assign(&ths[t0 + i].r[acc], &ths[t0 + i].r[acc] + n / 2);
    }
    const std::string e = golden_wgmma(n, first.mma_type, first.mma_b_type, first.mma_a_regs,
                                       at[0]->accumulate, *shared_, parts);
    if (!e.empty()) throw stop{e};
    for (unsigned i = 0; i < 128; ++i) std::copy(parts[i].d.begin(), parts[i].d.end(), &ths[t0 + i].r[k_.code[at[i]->pc].rd]);
  }

  // mma.sync: the warp's lanes arrive with their A, B and C registers; the last to arrive
  // computes D, and each lane takes its part (the next mma.sync of the warp waits until all
  // have). False while the lane waits for the others.
  bool mma_sync(unsigned t, thread& th, const instr& in) {
    if (c_.warp_size != 32) throw stop{"mma.sync needs warps of 32 threads"};
    const unsigned w = t / 32, lane = t % 32;
    const std::uint32_t bit = 1u << lane;
    sync_mma& x = sync_mma_[w];
    if (!x.done && !(x.arrived & bit)) {
      if (x.arrived && x.pc != th.pc)
        throw stop{"the lanes of warp " + std::to_string(w) + " execute different mma.sync instructions (" +
                   where(x.pc, k_.code[x.pc]) + " and this one)"};
      x.pc = th.pc;
      for (unsigned i = 0; i < 4; ++i) x.ops[lane][i] = th.r[in.ra + i];
      for (unsigned i = 0; i < 2; ++i) x.ops[lane][4 + i] = th.r[in.rb + i];
      for (unsigned i = 0; i < 4; ++i) x.ops[lane][6 + i] = th.r[in.rc + i];
      x.arrived |= bit;
      const std::uint32_t present = present_lanes(w);
      if ((x.arrived & present) == present) {
        if (x.arrived != 0xffffffffu)
          throw stop{"mma.sync needs all 32 threads of the warp (lanes " + hex(x.arrived) + " arrived, the others exited)"};
        golden_mma_sync(in.mma_type, x.ops, x.d);
        x.done = true;
      }
    }
    if (!x.done || !(x.arrived & bit) || (x.taken & bit)) return false;
    for (unsigned i = 0; i < 4; ++i) th.r[in.rd + i] = x.d[lane][i];
    x.taken |= bit;
    if (x.taken == x.arrived) sync_mma_.erase(w);
    return true;
  }

  const kernel& k_;
  const launch& l_;
  std::vector<unsigned char>& global_;
  const interp_config& c_;
  interp_result res_;
  std::vector<unsigned char>* shared_ = nullptr;
  unsigned block_ = 0;
  std::vector<thread>* threads_ = nullptr;
  golden_mbarriers bars_{l_.shared_bytes};
  shuffle_exchange shuffles_;
  struct arrival {
    unsigned thread;
    std::uint32_t pc;                      // of its wgmma
    std::uint64_t a_desc, b_desc;          // as read at issue
    std::array<std::uint32_t, 4> a_frag;   // .rs: the A fragment as read at issue
    bool accumulate;                       // scale-d
  };
  std::map<unsigned, std::vector<std::vector<arrival>>> mma_;  // warpgroup -> ordinal -> threads
  struct sync_mma {
    std::uint32_t arrived = 0, taken = 0, pc = 0;
    bool done = false;
    std::array<std::array<std::uint32_t, 10>, 32> ops{};  // by lane: A, B, C as read at issue
    std::array<std::array<std::uint32_t, 4>, 32> d{};
  };
  std::map<unsigned, sync_mma> sync_mma_;  // warp -> its mma.sync under way
};

}  // namespace

std::string shuffle_exchange::arrive(unsigned warp, unsigned lane, std::uint32_t pc, const arrival& a,
                                     std::uint32_t present) {
  if (!((a.mask >> lane) & 1u))
    return "lane " + std::to_string(lane) + " executes " + a.name + " but is not in its membermask " + hex(a.mask);
  pending& p = warps_[warp];
  if (!p.arrived.empty() && p.pc != pc)
    return "threads of warp " + std::to_string(warp) + " wait at two " + a.name + " instructions (PCs " + std::to_string(p.pc) +
           " and " + std::to_string(pc) + ")";
  p.pc = pc;
  p.arrived[lane] = a;
  return complete(p, present);
}

std::string shuffle_exchange::retry(unsigned warp, std::uint32_t present) {
  const auto it = warps_.find(warp);
  if (it == warps_.end() || it->second.arrived.empty()) return {};
  return complete(it->second, present);
}

std::string shuffle_exchange::complete(pending& p, std::uint32_t present) {
  std::uint32_t named = 0, here = 0;
  for (const auto& [lane, a] : p.arrived) {
    named |= a.mask;
    here |= 1u << lane;
  }
  if ((named & present & ~here) != 0) return {};  // still waiting
  for (const auto& [lane, a] : p.arrived) {
    const int bval = static_cast<int>(a.b & 31), cval = static_cast<int>(a.c & 31), seg = static_cast<int>((a.c >> 8) & 31);
    const int l = static_cast<int>(lane), max_lane = (l & seg) | (cval & ~seg);
    int j = l;
    bool ok = false;
    switch (a.mode) {
      case shuffle_mode::up: j = l - bval; ok = j >= max_lane; break;
      case shuffle_mode::down: j = l + bval; ok = j <= max_lane; break;
      case shuffle_mode::bfly: j = l ^ bval; ok = j <= max_lane; break;
      case shuffle_mode::idx: j = (l & seg) | (bval & ~seg); ok = j <= max_lane; break;
    }
    if (!ok) j = l;
    const auto src = p.arrived.find(static_cast<unsigned>(j));
    if (src == p.arrived.end())
      return std::string(a.name) + ": lane " + std::to_string(lane) + " reads lane " + std::to_string(j) + ", which does not execute it";
    p.done[lane] = {src->second.value, ok};
  }
  p.arrived.clear();
  return {};
}

std::uint32_t shuffle_exchange::present(unsigned w, unsigned warp_size, std::size_t threads,
                                        const std::function<bool(std::size_t)>& exited) {
  std::uint32_t m = 0;
  for (unsigned l = 0; l < warp_size && l < 32; ++l) {
    const std::size_t t = std::size_t(w) * warp_size + l;
    if (t < threads && !exited(t)) m |= 1u << l;
  }
  return m;
}

bool shuffle_exchange::take(unsigned warp, unsigned lane, result& r) {
  const auto it = warps_.find(warp);
  if (it == warps_.end()) return false;
  const auto d = it->second.done.find(lane);
  if (d == it->second.done.end()) return false;
  r = d->second;
  it->second.done.erase(d);
  return true;
}

std::string barrier_deadlock(unsigned block, const std::map<std::uint32_t, std::set<unsigned>>& waiting,
                             const std::set<unsigned>& exited, const std::function<std::string(std::uint32_t)>& where) {
  std::string f = "block " + std::to_string(block) + ": barrier deadlock: ";
  bool first = true;
  for (const auto& w : waiting) {
    f += (first ? "threads of " : " and threads of ") + warp_list(w.second) + " wait at " + where(w.first);
    first = false;
  }
  return f + " but threads of " + warp_list(exited) + " have exited";
}

interp_result interpret(const kernel& k, const launch& l, std::vector<unsigned char>& global,
                        const interp_config& c) {
  return machine(k, l, global, c).run();
}

}  // namespace flynn::simt

// The golden functional interpreter of the SIMT kernel ISA (semantics: isa.h and
// docs/isa/simt.md). Deliberately self-contained: it shares only the instruction types with
// the timed SIMT core in modules/simt, and runs the threads one at a time.
#include "flynn/platform/simt_interp.h"

#include <array>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "flynn/common/format.h"

namespace flynn::simt {

// binary32 results must be rounded once per operation: no extended intermediate precision.
static_assert(FLT_EVAL_METHOD == 0, "the SIMT interpreter needs float arithmetic in float");

namespace {

struct stop {
  std::string reason;
};

float as_float(std::uint32_t b) {
  float f = 0;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

std::uint32_t as_bits(float f) {
  std::uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

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
    case type::f32: return compare(c, as_float(a), as_float(b));
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
  if (in.rd > 63 || in.ra > 63 || in.rb > 63 || in.rc > 63) return "register number above 63";
  if (in.guard != no_pred && in.guard > 7) return "guard predicate above p7";
  if (in.code == op::setp && in.rd > 7) return "destination predicate above p7";
  if (in.code == op::selp && in.rc > 7) return "selected predicate above p7";
  if (in.code == op::setp && in.ty > type::f32) return "unknown comparison type";
  if (in.code == op::setp && in.cond > cmp::ge) return "unknown comparison";
  if (in.code == op::mov && in.sreg > special::warpid) return "unknown special register";
  if (in.code == op::ld || in.code == op::st) {
    if (in.width != 4 && in.width != 8 && in.width != 16) return "access width not 4, 8 or 16 bytes";
    if (in.sp > space::shared) return "unknown memory space";
    const unsigned r = in.code == op::ld ? in.rd : in.rb;
    if (r + in.width / 4u - 1 > 63) return "register group beyond r63";
  }
  if (in.code == op::bra && in.target > code_size) return "branch target beyond the kernel";
  return {};
}

enum class state : std::uint8_t { running, waiting, exited };

struct thread {
  std::array<std::uint32_t, 64> r{};
  std::array<bool, 8> p{};
  std::uint32_t pc = 0;
  std::uint32_t bar_pc = 0;  // the bar.sync it waits at
  state st = state::running;
};

class machine {
 public:
  machine(const kernel& k, const launch& l, std::vector<unsigned char>& global,
          const interp_config& c)
      : k_(k), l_(l), global_(global), c_(c) {}

  interp_result run() {
    if (l_.warp_size == 0) return failed("invalid launch: warp size 0");
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
    for (;;) {
      for (unsigned t = 0; t < l_.block; ++t) {
        if (threads[t].st != state::running) continue;
        if (!run_thread(t, threads[t])) return;
      }
      std::map<std::uint32_t, std::set<unsigned>> waiting;  // bar.sync PC -> warps
      std::set<unsigned> exited;
      for (unsigned t = 0; t < l_.block; ++t) {
        if (threads[t].st == state::waiting) waiting[threads[t].bar_pc].insert(t / l_.warp_size);
        else exited.insert(t / l_.warp_size);
      }
      if (waiting.empty()) return;  // every thread exited: the block is done
      if (!exited.empty()) {
        std::string f = "block " + std::to_string(b) + ": barrier deadlock: ";
        bool first = true;
        for (const auto& w : waiting) {
          f += (first ? "threads of " : " and threads of ") + warp_list(w.second) + " wait at " +
               where(w.first, k_.code[w.first]);
          first = false;
        }
        f += " but threads of " + warp_list(exited) + " have exited";
        failed(f);
        return;
      }
      for (auto& th : threads) th.st = state::running;  // the barrier releases
    }
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
        step(t, th);
        ++res_.thread_instructions;
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

  std::vector<unsigned char>& memory(space sp) { return sp == space::shared ? *shared_ : global_; }

  std::uint32_t address(const instr& in, const thread& th) const {
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
    switch (s) {
      case special::tid: return t;
      case special::ntid: return l_.block;
      case special::ctaid: return block_;
      case special::nctaid: return l_.grid;
      case special::laneid: return t % l_.warp_size;
      case special::warpid: return t / l_.warp_size;
      case special::none: break;
    }
    return 0;
  }

  // Executes the instruction at th.pc and advances th.pc.
  void step(unsigned t, thread& th) {
    const instr& in = k_.code[th.pc];
    std::uint32_t next = th.pc + 1;
    if (in.guard != no_pred && th.p[in.guard] == in.guard_neg) {
      th.pc = next;  // guarded off: no effect
      return;
    }
    auto& r = th.r;
    const std::uint32_t a = r[in.ra];
    const std::uint32_t b = in.b_imm ? static_cast<std::uint32_t>(in.imm) : r[in.rb];
    const std::uint32_t c = r[in.rc];
    const float fa = as_float(a), fb = as_float(r[in.rb]), fc = as_float(c);
    switch (in.code) {
      case op::mov:
        r[in.rd] = in.sreg != special::none ? special_value(in.sreg, t)
                   : in.b_imm               ? static_cast<std::uint32_t>(in.imm)
                                            : a;
        break;
      case op::ldparam: {
        const auto n = static_cast<std::uint64_t>(in.imm);
        if (n >= l_.params.size())
          throw stop{"parameter " + std::to_string(n) + " beyond the " +
                     std::to_string(l_.params.size()) + " kernel parameters"};
        r[in.rd] = l_.params[static_cast<std::size_t>(n)];
        break;
      }
      case op::add: r[in.rd] = a + b; break;
      case op::sub: r[in.rd] = a - b; break;
      case op::mul: r[in.rd] = a * b; break;
      case op::mulhi: r[in.rd] = mul_high(a, b); break;
      case op::mad: r[in.rd] = a * r[in.rb] + c; break;
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
      case op::fadd: r[in.rd] = as_bits(fa + fb); break;
      case op::fsub: r[in.rd] = as_bits(fa - fb); break;
      case op::fmul: r[in.rd] = as_bits(fa * fb); break;
      case op::ffma: r[in.rd] = as_bits(std::fma(fa, fb, fc)); break;
      case op::fmin: r[in.rd] = as_bits(std::fmin(fa, fb)); break;
      case op::fmax: r[in.rd] = as_bits(std::fmax(fa, fb)); break;
      case op::fdiv: r[in.rd] = as_bits(fa / fb); break;
      case op::fsqrt: r[in.rd] = as_bits(std::sqrt(fa)); break;
      case op::cvt_f_s: r[in.rd] = as_bits(static_cast<float>(s32(a))); break;
      case op::cvt_s_f: r[in.rd] = float_to_s32(fa); break;
      case op::setp: th.p[in.rd] = set_predicate(in.cond, in.ty, a, b); break;
      case op::selp: r[in.rd] = th.p[in.rc] ? a : b; break;
      case op::ld: {
        const std::uint32_t addr = address(in, th);
        check(in.sp, addr, in.width);
        const auto& m = memory(in.sp);
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
      case op::count_: throw stop{"invalid instruction"};
    }
    th.pc = next;
  }

  const kernel& k_;
  const launch& l_;
  std::vector<unsigned char>& global_;
  const interp_config& c_;
  interp_result res_;
  std::vector<unsigned char>* shared_ = nullptr;
  unsigned block_ = 0;
};

}  // namespace

interp_result interpret(const kernel& k, const launch& l, std::vector<unsigned char>& global,
                        const interp_config& c) {
  return machine(k, l, global, c).run();
}

}  // namespace flynn::simt

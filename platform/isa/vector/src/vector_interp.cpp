// The golden functional interpreter of the vector machine (semantics: isa.h and
// docs/isa/vector.md). Deliberately self-contained: it shares only the instruction types with
// the timed models in modules/vector.
#include "flynn/platform/vector_interp.h"

#include <algorithm>
#include <sstream>

#include "flynn/common/bits.h"

namespace flynn::vec {

namespace {

struct stop {
  std::string reason;
};

std::string hex(std::uint64_t v) {
  std::ostringstream o;
  o << "0x" << std::hex << v;
  return o.str();
}

std::uint64_t shift_left(std::uint64_t a, std::uint64_t s) { return a << (s & 63); }
std::uint64_t shift_right(std::uint64_t a, std::uint64_t s) { return a >> (s & 63); }
std::uint64_t shift_right_arith(std::uint64_t a, std::uint64_t s) {
  const unsigned n = static_cast<unsigned>(s & 63);
  if (n == 0) return a;
  const std::uint64_t r = a >> n;
  return (a >> 63) ? r | ~(~std::uint64_t{0} >> n) : r;
}

// Signed 64-bit division, wrapping: x / 0 = 0, INT64_MIN / -1 = INT64_MIN.
std::uint64_t div_signed(std::uint64_t a, std::uint64_t b) {
  if (b == 0) return 0;
  const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
  if (sa == INT64_MIN && sb == -1) return a;
  return static_cast<std::uint64_t>(sa / sb);
}

// Sign-extends the low `w` bits of `x`.
std::int64_t sext(std::uint64_t x, unsigned w) {
  const std::uint64_t m = std::uint64_t{1} << (w - 1);
  x &= (w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1);
  return static_cast<std::int64_t>((x ^ m) - m);
}

std::uint64_t packed(op o, unsigned w, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t mask = (std::uint64_t{1} << w) - 1;  // w <= 32
  std::uint64_t r = 0;
  for (unsigned lane = 0; lane < 64 / w; ++lane) {
    const unsigned sh = lane * w;
    const std::uint64_t x = (a >> sh) & mask, y = (b >> sh) & mask;
    std::uint64_t e = 0;
    switch (o) {
      case op::padd: e = (x + y) & mask; break;
      case op::psub: e = (x - y) & mask; break;
      case op::pcmpeq: e = x == y ? mask : 0; break;
      case op::pcmpgt: e = sext(x, w) > sext(y, w) ? mask : 0; break;
      default: break;
    }
    r |= e << sh;
  }
  return r;
}

std::uint64_t pmaddwd(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  for (unsigned j = 0; j < 2; ++j) {
    const std::int64_t p0 = sext(a >> (32 * j), 16) * sext(b >> (32 * j), 16);
    const std::int64_t p1 = sext(a >> (32 * j + 16), 16) * sext(b >> (32 * j + 16), 16);
    const std::uint64_t sum = static_cast<std::uint64_t>(p0) + static_cast<std::uint64_t>(p1);
    r |= (sum & 0xffffffffu) << (32 * j);
  }
  return r;
}

class machine {
 public:
  machine(const program& p, std::vector<unsigned char>& mem, const interp_config& c)
      : p_(p), mem_(mem), c_(c), v_(8, std::vector<std::uint64_t>(c.max_vl, 0)),
        vm_(c.max_vl, 1), vl_(c.max_vl) {}

  interp_result run() {
    interp_result res;
    std::uint32_t pc = 0;
    try {
      while (pc < p_.code.size()) {
        if (res.instructions >= c_.max_instructions)
          throw stop{"runaway program: more than " + std::to_string(c_.max_instructions) +
                     " instructions"};
        const instr& in = p_.code[pc];
        std::uint32_t next = pc + 1;
        const bool halted = step(in, next);
        ++res.instructions;
        if (halted) break;
        pc = next;
      }
    } catch (const stop& s) {
      const instr& in = p_.code[pc];
      res.ok = false;
      res.fault = "PC " + std::to_string(pc) + " (" + std::to_string(in.line) + ": " + in.text +
                  "): " + s.reason;
    }
    res.pc = pc;
    res.r = r_;
    return res;
  }

 private:
  void check(std::uint64_t addr) const {
    if (addr % 8 != 0) throw stop{"misaligned address " + hex(addr)};
    if (mem_.size() < 8 || addr > mem_.size() - 8) throw stop{"out-of-range address " + hex(addr)};
  }
  std::uint64_t load(std::uint64_t addr) const {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < 8; ++i) v |= std::uint64_t{mem_[addr + i]} << (8 * i);
    return v;
  }
  void store(std::uint64_t addr, std::uint64_t v) {
    for (unsigned i = 0; i < 8; ++i) mem_[addr + i] = static_cast<unsigned char>(v >> (8 * i));
  }

  std::uint64_t base(const instr& in) const {
    return (in.ra == no_reg ? 0 : r_[in.ra]) + static_cast<std::uint64_t>(in.imm);
  }

  bool active(const instr& in, unsigned i) const { return !in.masked || vm_[i]; }

  void set_vl(std::uint64_t v) {
    if (v > c_.max_vl)
      throw stop{"VL " + std::to_string(static_cast<std::int64_t>(v)) +
                 " above the register length " + std::to_string(c_.max_vl)};
    vl_ = static_cast<unsigned>(v);
  }

  // Addresses of the active elements of a vector memory instruction (all checked first, so a
  // faulting instruction changes nothing).
  std::vector<std::uint64_t> addresses(const instr& in) const {
    std::vector<std::uint64_t> a(vl_, 0);
    const std::uint64_t b = base(in);
    for (unsigned i = 0; i < vl_; ++i) {
      if (!active(in, i)) continue;
      if (in.code == op::vld || in.code == op::vst)
        a[i] = b + static_cast<std::uint64_t>(static_cast<std::int64_t>(i) * vs_) * 8;
      else
        a[i] = b + v_[in.code == op::vldx ? in.rb : in.rd][i] * 8;
      check(a[i]);
    }
    return a;
  }

  std::uint64_t valu(op o, std::uint64_t a, std::uint64_t b) const {
    switch (o) {
      case op::vadd: return a + b;
      case op::vsub: return a - b;
      case op::vmul: return a * b;
      case op::vdiv: return div_signed(a, b);
      case op::vand: return a & b;
      case op::vor: return a | b;
      case op::vxor: return a ^ b;
      case op::vshl: return shift_left(a, b);
      case op::vshr: return shift_right(a, b);
      case op::vsra: return shift_right_arith(a, b);
      case op::vfadd: return double_to_bits(bits_to_double(a) + bits_to_double(b));
      case op::vfsub: return double_to_bits(bits_to_double(a) - bits_to_double(b));
      case op::vfmul: return double_to_bits(bits_to_double(a) * bits_to_double(b));
      default: return 0;
    }
  }

  static bool compare(op o, std::uint64_t a, std::uint64_t b) {
    const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
    switch (o) {
      case op::vcmpeq: return sa == sb;
      case op::vcmpne: return sa != sb;
      case op::vcmplt: return sa < sb;
      case op::vcmpgt: return sa > sb;
      default: return false;
    }
  }

  std::uint64_t second(const instr& in, unsigned i) const {
    switch (in.kind) {
      case src2::vreg: return v_[in.rb][i];
      case src2::reg: return r_[in.rb];
      default: return static_cast<std::uint64_t>(in.imm);
    }
  }

  // Executes one instruction; returns true on halt.
  bool step(const instr& in, std::uint32_t& next) {
    auto& r = r_;
    const std::uint64_t b = in.kind == src2::imm ? static_cast<std::uint64_t>(in.imm)
                                                 : (in.rb < 16 ? r[in.rb] : 0);
    switch (in.code) {
      case op::li: r[in.rd] = static_cast<std::uint64_t>(in.imm); break;
      case op::mov: r[in.rd] = r[in.ra]; break;
      case op::add: r[in.rd] = r[in.ra] + b; break;
      case op::sub: r[in.rd] = r[in.ra] - b; break;
      case op::mul: r[in.rd] = r[in.ra] * b; break;
      case op::and_: r[in.rd] = r[in.ra] & b; break;
      case op::or_: r[in.rd] = r[in.ra] | b; break;
      case op::xor_: r[in.rd] = r[in.ra] ^ b; break;
      case op::shl: r[in.rd] = shift_left(r[in.ra], b); break;
      case op::shr: r[in.rd] = shift_right(r[in.ra], b); break;
      case op::sra: r[in.rd] = shift_right_arith(r[in.ra], b); break;
      case op::fadd: r[in.rd] = double_to_bits(bits_to_double(r[in.ra]) + bits_to_double(r[in.rb])); break;
      case op::fsub: r[in.rd] = double_to_bits(bits_to_double(r[in.ra]) - bits_to_double(r[in.rb])); break;
      case op::fmul: r[in.rd] = double_to_bits(bits_to_double(r[in.ra]) * bits_to_double(r[in.rb])); break;
      case op::slt:
        r[in.rd] = static_cast<std::int64_t>(r[in.ra]) < static_cast<std::int64_t>(b) ? 1 : 0;
        break;
      case op::seq: r[in.rd] = r[in.ra] == b ? 1 : 0; break;
      case op::ld: {
        const std::uint64_t a = base(in);
        check(a);
        r[in.rd] = load(a);
        if (in.post_inc) r[in.ra] += 8;
        break;
      }
      case op::st: {
        const std::uint64_t a = base(in);
        check(a);
        store(a, r[in.rb]);
        if (in.post_inc) r[in.ra] += 8;
        break;
      }
      case op::dbnz:
        r[in.ra] -= 1;
        if (r[in.ra] != 0) next = in.target;
        break;
      case op::beqz: if (r[in.ra] == 0) next = in.target; break;
      case op::bnez: if (r[in.ra] != 0) next = in.target; break;
      case op::br: next = in.target; break;
      case op::halt: return true;
      case op::setvl:
        if (in.has_rd) {
          vl_ = static_cast<unsigned>(std::min<std::uint64_t>(r[in.ra], c_.max_vl));
          r[in.rd] = vl_;
        } else {
          set_vl(in.kind == src2::reg ? r[in.ra] : static_cast<std::uint64_t>(in.imm));
        }
        break;
      case op::setvs:
        vs_ = in.kind == src2::reg ? static_cast<std::int64_t>(r[in.ra]) : in.imm;
        break;
      case op::vmset: std::fill(vm_.begin(), vm_.end(), 1); break;
      case op::vmnot:
        for (auto& m : vm_) m = !m;
        break;
      case op::vmpop: {
        std::uint64_t n = 0;
        for (unsigned i = 0; i < vl_; ++i) n += vm_[i];
        r[in.rd] = n;
        break;
      }
      case op::vld:
      case op::vldx: {
        const auto a = addresses(in);
        std::vector<std::uint64_t> loaded(vl_, 0);
        for (unsigned i = 0; i < vl_; ++i)
          if (active(in, i)) loaded[i] = load(a[i]);
        for (unsigned i = 0; i < vl_; ++i)
          if (active(in, i)) v_[in.rd][i] = loaded[i];
        break;
      }
      case op::vst:
      case op::vstx: {
        const auto a = addresses(in);
        for (unsigned i = 0; i < vl_; ++i)
          if (active(in, i)) store(a[i], v_[in.rb][i]);
        break;
      }
      case op::vadd: case op::vsub: case op::vmul: case op::vdiv:
      case op::vand: case op::vor: case op::vxor:
      case op::vshl: case op::vshr: case op::vsra:
      case op::vfadd: case op::vfsub: case op::vfmul:
        for (unsigned i = 0; i < vl_; ++i)
          if (active(in, i)) v_[in.rd][i] = valu(in.code, v_[in.ra][i], second(in, i));
        break;
      case op::vcmpeq: case op::vcmpne: case op::vcmplt: case op::vcmpgt:
        for (unsigned i = 0; i < vl_; ++i)
          vm_[i] = compare(in.code, v_[in.ra][i], second(in, i)) ? 1 : 0;
        break;
      case op::padd: case op::psub: case op::pcmpeq: case op::pcmpgt:
        if (in.width != 8 && in.width != 16 && in.width != 32)
          throw stop{"packed element width " + std::to_string(in.width) + " is not 8, 16 or 32"};
        r[in.rd] = packed(in.code, in.width, r[in.ra], r[in.rb]);
        break;
      case op::pand: r[in.rd] = r[in.ra] & r[in.rb]; break;
      case op::pandn: r[in.rd] = ~r[in.ra] & r[in.rb]; break;
      case op::por: r[in.rd] = r[in.ra] | r[in.rb]; break;
      case op::pmaddwd: r[in.rd] = pmaddwd(r[in.ra], r[in.rb]); break;
      case op::count_: throw stop{"invalid instruction"};
    }
    return false;
  }

  const program& p_;
  std::vector<unsigned char>& mem_;
  const interp_config& c_;
  std::array<std::uint64_t, 16> r_{};
  std::vector<std::vector<std::uint64_t>> v_;
  std::vector<unsigned char> vm_;
  unsigned vl_;
  std::int64_t vs_ = 1;
};

}  // namespace

interp_result interpret(const program& p, std::vector<unsigned char>& memory,
                        const interp_config& c) {
  return machine(p, memory, c).run();
}

}  // namespace flynn::vec

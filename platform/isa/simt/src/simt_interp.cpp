// The golden functional interpreter of the SIMT kernel ISA (semantics: isa.h and
// docs/isa/simt.md). Deliberately self-contained: it shares only the instruction types with
// the timed SIMT core in modules/simt, and runs the threads one at a time.
#include "flynn/platform/simt_interp.h"

#include <array>
#include <cstring>
#include <map>

#include "flynn/common/format.h"
#include "flynn/platform/golden_machine.h"
#include "simt_interp_alu.h"

namespace flynn::simt {

namespace {

using stop = golden_stop;

std::string where(std::uint32_t pc, const instr& in) {
  return "PC " + std::to_string(pc) + " (" + std::to_string(in.line) + ": " + in.text + ")";
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
  golden_registers r{};
  golden_predicates p{};
};

class machine : golden_machine<thread> {
 public:
  machine(const kernel& k, const launch& l, std::vector<unsigned char>& global, const interp_config& c)
      : golden_machine(l, global, c), k_(k) {}

  interp_result run() {
    if (c_.warp_size == 0) return failed("invalid launch: warp size 0");
    for (std::size_t pc = 0; pc < k_.code.size(); ++pc) {
      const std::string why = malformed(k_.code[pc], k_.code.size());
      if (!why.empty())
        return failed(where(static_cast<std::uint32_t>(pc), k_.code[pc]) + ": invalid instruction: " + why);
    }
    for (unsigned b = 0; b < l_.grid && res_.ok; ++b) {
      sync_mma_.clear();
      run_block(
          b, [](thread&) {}, [this](unsigned t, thread& th) { return run_thread(t, th); },
          [this](std::uint32_t pc) { return where(pc, k_.code[pc]); },
          [this](std::uint32_t pc) {
            const op o = k_.code[pc].code;
            return o == op::shfl || o == op::elect || o == op::mma_sync;
          });
    }
    return res_;
  }

 private:
  // Runs thread `t` until it waits at a barrier or exits; false on a fault.
  bool run_thread(unsigned t, thread& th) {
    return golden_machine::run_thread(
        t, th, k_.code.size(), [this](unsigned u, thread& x) { return step(u, x); },
        [this](std::uint32_t pc) { return where(pc, k_.code[pc]); });
  }

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
  // blocked) when it waits on a shuffle, an mma.sync, an mbarrier phase or a wgmma group.
  bool step(unsigned t, thread& th) {
    const instr& in = k_.code[th.pc];
    std::uint32_t next = th.pc + 1;
    if (in.guard != no_pred && th.p[in.guard] == in.guard_neg) {
      th.pc = next;  // guarded off: no effect
      return true;
    }
    switch (in.code) {
      case op::mov: case op::ldparam: move(t, th, in); break;
      case op::ld: load(th, in); break;
      case op::st: store(th, in); break;
      case op::atom: atomic(th, in); break;
      case op::bra: next = in.target; break;
      case op::bar:
        th.st = state::waiting;
        th.bar_pc = th.pc;
        break;
      case op::exit: th.st = state::exited; break;
      case op::nop: break;
      case op::shfl: case op::elect:
        if (!shuffle(t, th, in)) return false;
        break;
      case op::mma_sync: case op::mbar_init: case op::mbar_arrive: case op::mbar_arrive_tx: case op::mbar_wait:
      case op::tma_load: case op::tma_store: case op::tma_wait: case op::wgmma: case op::wgmma_commit: case op::wgmma_wait:
        if (in.code == op::mma_sync ? !mma_sync(t, th, in) : !async(t, th, in)) {
          th.st = state::blocked;
          return false;
        }
        break;
      case op::count_: throw stop{"invalid instruction"};
      default: execute_arithmetic(in, th.r, th.p); break;
    }
    th.pc = next;
    return true;
  }

  // mov (of a special register, an immediate or a register) and ld.param.
  void move(unsigned t, thread& th, const instr& in) {
    auto& r = th.r;
    if (in.code == op::mov) {
      r[in.rd] = in.sreg != special::none ? special_value(in.sreg, t)
                 : in.b_imm               ? static_cast<std::uint32_t>(in.imm)
                                          : r[in.ra];
      return;
    }
    const auto n = static_cast<std::uint64_t>(in.imm);
    const unsigned words = in.width == 8 ? 2 : 1;
    if (n + words > l_.params.size())
      throw stop{"parameter " + std::to_string(n + words - 1) + " beyond the " + std::to_string(l_.params.size()) +
                 " kernel parameters"};
    for (unsigned w = 0; w < words; ++w) r[in.rd + w] = l_.params[static_cast<std::size_t>(n + w)];
  }

  // ld: 1 or 2 bytes zero- or sign-extended into rd, else 4-byte words into rd, rd+1, ...
  void load(thread& th, const instr& in) {
    const std::uint32_t addr = address(in, th);
    check(in.sp, addr, in.width);
    const auto& m = memory(in.sp);
    if (in.width < 4) {  // zero- or sign-extended
      std::uint32_t v = m[addr];
      if (in.width == 2) v |= std::uint32_t{m[addr + 1]} << 8;
      if (in.sign) v = in.width == 1 ? std::uint32_t(std::int32_t(std::int8_t(v))) : std::uint32_t(std::int32_t(std::int16_t(v)));
      th.r[in.rd] = v;
      return;
    }
    for (unsigned w = 0; w < in.width / 4u; ++w) {
      std::uint32_t v = 0;
      for (unsigned i = 0; i < 4; ++i) v |= std::uint32_t{m[addr + 4 * w + i]} << (8 * i);
      th.r[in.rd + w] = v;
    }
  }

  // st: the low bytes of rb, else its 4-byte words from rb, rb+1, ...
  void store(thread& th, const instr& in) {
    const std::uint32_t addr = address(in, th);
    check(in.sp, addr, in.width);
    auto& m = memory(in.sp);
    for (unsigned i = 0; in.width < 4 && i < in.width; ++i) m[addr + i] = static_cast<unsigned char>(th.r[in.rb] >> (8 * i));
    for (unsigned w = 0; w < in.width / 4u; ++w)
      for (unsigned i = 0; i < 4; ++i)
        m[addr + 4 * w + i] = static_cast<unsigned char>(th.r[in.rb + w] >> (8 * i));
  }

  void atomic(thread& th, const instr& in) {
    const std::uint32_t addr = address(in, th);
    check(in.sp, addr, 4);
    auto& m = memory(in.sp);
    std::uint32_t old = 0;
    std::memcpy(&old, &m[addr], 4);
    const std::uint32_t v = atom_result(in, old, in.b_imm ? in.imm_b : th.r[in.rb]);
    std::memcpy(&m[addr], &v, 4);
    th.r[in.rd] = old;
  }

  // shfl.sync and elect.sync: false (the thread blocked) while it waits for its warp.
  bool shuffle(unsigned t, thread& th, const instr& in) {
    auto& r = th.r;
    const bool elect = in.code == op::elect;
    const auto arrival = [&](unsigned w, unsigned lane) {
      if (elect) return elect_arrival(w, lane, in.e_imm ? in.imm_e : r[in.re]);
      shuffle_exchange::arrival av;
      av.mode = static_cast<shuffle_mode>(in.sub);
      av.value = r[in.ra];
      av.b = in.b_imm ? static_cast<std::uint32_t>(in.imm) : r[in.rb];
      av.c = in.c_imm ? in.imm_b : r[in.rc];
      av.mask = in.e_imm ? in.imm_e : r[in.re];
      return av;
    };
    shuffle_exchange::result res;
    if (!exchange(t, th, arrival, res)) return false;
    if (elect) {
      if (in.sub == 1) r[in.rd] = res.value;
      if (in.pd != no_pred) th.p[in.pd] = res.value == t % c_.warp_size;
      return true;
    }
    r[in.rd] = res.value;
    if (in.pd != no_pred) th.p[in.pd] = res.in_range;
    return true;
  }

  // ---- mbarriers, tma.load and wgmma ----------------------------------------------------

  bool async(unsigned t, thread& th, const instr& in) {
    auto& r = th.r;
    const std::uint32_t addr = r[in.ra] + static_cast<std::uint32_t>(in.imm);
    const std::uint32_t b = in.b_imm ? in.imm_b : r[in.rb];
    switch (in.code) {
      case op::mbar_init: {
        if (const std::string e = bars_.init(addr, b); !e.empty()) throw stop{e};
        return true;
      }
      case op::mbar_arrive: arrive(addr, 0); return true;
      case op::mbar_arrive_tx: arrive(addr, b); return true;
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
        golden_wgmma_arrival x{t, th.pc, std::uint64_t(r[in.ra + 1]) << 32 | r[in.ra],
                               std::uint64_t(r[in.rb + 1]) << 32 | r[in.rb],
                               in.mma_scale_pred ? th.p[in.rc & 7u] : in.imm != 0};
        for (unsigned i = 0; i < 4 && in.mma_a_regs; ++i) x.a_frag[i] = r[in.ra + i];
        issue_wgmma(t, th, x, [this](unsigned group, unsigned ordinal) { compute_wgmma(group, ordinal); });
        return true;
      }
      case op::wgmma_commit: th.commit_wgmma(); return true;
      case op::wgmma_wait: return wait_wgmma(t, th, static_cast<std::size_t>(in.imm));
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
    std::vector<wgmma_part> parts;
    const auto at = wgmma_arrivals(group, ordinal, parts, [this](std::uint32_t pc, std::uint32_t first) {
      const instr &in = k_.code[pc], &f = k_.code[first];
      return in.mma_n == f.mma_n && in.mma_type == f.mma_type && in.mma_b_type == f.mma_b_type &&
             in.mma_a_regs == f.mma_a_regs;
    });
    const instr& first = k_.code[at[0]->pc];
    const unsigned n = first.mma_n;
    for (unsigned i = 0; i < 128; ++i) {
      const unsigned acc = k_.code[at[i]->pc].rd;
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
  struct sync_mma {
    std::uint32_t arrived = 0, taken = 0, pc = 0;
    bool done = false;
    std::array<std::array<std::uint32_t, 10>, 32> ops{};  // by lane: A, B, C as read at issue
    std::array<std::array<std::uint32_t, 4>, 32> d{};
  };
  std::map<unsigned, sync_mma> sync_mma_;  // warp -> its mma.sync under way
};

}  // namespace

interp_result interpret(const kernel& k, const launch& l, std::vector<unsigned char>& global,
                        const interp_config& c) {
  return machine(k, l, global, c).run();
}

}  // namespace flynn::simt

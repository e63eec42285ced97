// The golden PTX interpreter: each thread on its own virtual registers, in 64-bit slots
// truncated to each register's declared width.
#include "flynn/platform/ptx_interp.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <set>

#include "flynn/common/format.h"
#include "flynn/platform/golden_machine.h"
#include "ptx_interp_alu.h"

namespace flynn::ptx {

namespace {

using stop = simt::golden_stop;

// waiting: at bar.sync; blocked: at shfl.sync or elect.sync for its warp, at mbarrier.try_wait
// for a phase, at wgmma.wait_group for its warpgroup's MMAs
using state = simt::thread_state;

struct thread : simt::golden_thread {
  std::vector<std::uint64_t> r;
};

class machine : simt::golden_machine<thread> {
 public:
  machine(const module& m, const kernel& k, const simt::launch& l, std::vector<unsigned char>& global,
          const simt::interp_config& c)
      : golden_machine(l, global, c), m_(m), k_(k) {
    params_.resize(l.params.size() * 4);
    for (std::size_t i = 0; i < l.params.size(); ++i) std::memcpy(&params_[i * 4], &l.params[i], 4);
  }

  simt::interp_result run() {
    const auto g = l_.grid_dims(), b = l_.block_dims();
    if (c_.warp_size == 0) return failed("invalid launch: warp size 0");
    if (std::uint64_t(g[0]) * g[1] * g[2] != l_.grid || std::uint64_t(b[0]) * b[1] * b[2] != l_.block)
      return failed("invalid launch: the grid and block extents do not multiply to grid and block");
    for (unsigned blk = 0; blk < l_.grid && res_.ok; ++blk)
      run_block(
          blk, [this](thread& th) { th.r.assign(k_.regs.size(), 0); },
          [this](unsigned t, thread& th) { return run_thread(t, th); }, [this](std::uint32_t pc) { return where(pc); },
          [this](std::uint32_t pc) { return k_.code[pc].op == opcode::shfl || k_.code[pc].op == opcode::elect; });
    return res_;
  }

 private:
  std::string where(std::uint32_t pc) const {
    if (pc >= k_.code.size()) return "the end of kernel " + k_.name;
    return ptx::where(m_, k_, k_.code[pc]);
  }
  bool run_thread(unsigned t, thread& th) {
    return golden_machine::run_thread(
        t, th, k_.code.size(), [this](unsigned u, thread& x) { return step(u, x); },
        [this](std::uint32_t pc) { return "at " + where(pc); });
  }

  // Register values, truncated to (and sign-extended from) the register's width.
  std::uint64_t get(const thread& th, const operand& o) const {
    if (o.k == operand::kind::imm) return o.imm;
    return th.r[o.reg];
  }
  void put(thread& th, const operand& o, std::uint64_t v) const {
    th.r[o.reg] = v & mask_of(size_of(k_.regs[o.reg].type) ? size_of(k_.regs[o.reg].type) : 1);
  }
  bool pred(const thread& th, const operand& o) const { return (th.r[o.reg] & 1u) != (o.neg ? 1u : 0u); }

  std::uint64_t special(sreg s, unsigned t) const {
    const auto g = l_.grid_dims(), b = l_.block_dims();
    const auto comp = [](std::uint64_t i, const std::array<unsigned, 3>& d, unsigned k) -> std::uint64_t {
      return k == 0 ? i % d[0] : k == 1 ? (i / d[0]) % d[1] : i / (std::uint64_t(d[0]) * d[1]);
    };
    switch (s) {
      case sreg::tid_x: return comp(t, b, 0);
      case sreg::tid_y: return comp(t, b, 1);
      case sreg::tid_z: return comp(t, b, 2);
      case sreg::ntid_x: return b[0];
      case sreg::ntid_y: return b[1];
      case sreg::ntid_z: return b[2];
      case sreg::ctaid_x: return comp(block_, g, 0);
      case sreg::ctaid_y: return comp(block_, g, 1);
      case sreg::ctaid_z: return comp(block_, g, 2);
      case sreg::nctaid_x: return g[0];
      case sreg::nctaid_y: return g[1];
      case sreg::nctaid_z: return g[2];
      case sreg::laneid: return t % c_.warp_size;
      case sreg::warpid: return t / c_.warp_size;
    }
    return 0;
  }

  // The byte address of an address operand, checked against its space.
  std::uint64_t address(const thread& th, const operand& a, space sp, unsigned width) {
    std::uint64_t x = a.imm;
    if (a.base_reg) x += th.r[a.reg];
    else if (a.symbol >= 0) x += k_.shared[static_cast<std::size_t>(a.symbol)].offset;
    const bool sh = sp == space::shared;
    const char* name = sh ? "shared" : "global";
    if (x % width) throw stop{std::string("misaligned ") + name + " address " + hex(x)};
    const std::size_t size = (sh ? *shared_ : global_).size();
    if (size < width || x > size - width) throw stop{std::string("out-of-range ") + name + " address " + hex(x)};
    return x;
  }

  // Executes the instruction at th.pc; false (nothing done) when it waits at shfl.sync for
  // the other threads of its warp.
  bool step(unsigned t, thread& th) {
    const instruction& in = k_.code[th.pc];
    if (in.guard >= 0 && ((th.r[static_cast<std::size_t>(in.guard)] & 1u) != 0) == in.guard_neg) {
      ++th.pc;
      return true;
    }
    if (in.op == opcode::shfl || in.op == opcode::elect) return shuffle(t, th, in);
    if (in.op >= opcode::mbar_init) {  // Hopper's asynchronous instructions
      if (!async(t, th, in)) {
        th.st = state::blocked;
        return false;
      }
      ++th.pc;
      return true;
    }
    ++th.pc;
    const operand* o = in.ops.data();
    switch (in.op) {
      case opcode::mov: move(t, th, in); break;
      case opcode::ld: load(th, in); break;
      case opcode::st: store(th, in); break;
      case opcode::cvta: put(th, o[0], th.r[o[1].reg]); break;
      case opcode::add:
      case opcode::sub:
      case opcode::min:
      case opcode::max:
      case opcode::mul:
      case opcode::mad:
      case opcode::fma:
      case opcode::div:
      case opcode::rem:
      case opcode::and_:
      case opcode::or_:
      case opcode::xor_:
      case opcode::not_:
      case opcode::shl:
      case opcode::shr:
      case opcode::setp:
      case opcode::cvt: arithmetic(th, in); break;
      case opcode::selp: put(th, o[0], pred(th, o[3]) ? get(th, o[1]) : get(th, o[2])); break;
      case opcode::bra: th.pc = in.target; break;
      case opcode::bar:
        th.st = state::waiting;
        th.bar_pc = th.pc - 1;
        break;
      case opcode::ret:
      case opcode::exit: th.st = state::exited; break;
      case opcode::atom: atomic(th, in); break;
      case opcode::shfl: break;  // (shuffle)
      default: break;  // (shfl, elect and the asynchronous instructions: above)
    }
    return true;
  }

  // mov: of a register or an immediate, a special register, or a symbol's address.
  void move(unsigned t, thread& th, const instruction& in) {
    const operand* o = in.ops.data();
    if (o[1].k == operand::kind::sreg) put(th, o[0], special(o[1].special, t));
    else if (o[1].k == operand::kind::symbol)  // a shared variable's address, or a parameter's (its offset)
      put(th, o[0], o[1].param ? k_.params[static_cast<std::size_t>(o[1].symbol)].offset
                               : k_.shared[static_cast<std::size_t>(o[1].symbol)].offset);
    else put(th, o[0], get(th, o[1]));
  }

  // An arithmetic, logic, comparison or conversion instruction, on its operands' values.
  void arithmetic(thread& th, const instruction& in) {
    const operand* o = in.ops.data();
    const std::uint64_t a = get(th, o[1]);
    const std::uint64_t b = in.op == opcode::not_ || in.op == opcode::cvt ? 0 : get(th, o[2]);
    const std::uint64_t c = in.op == opcode::mad || in.op == opcode::fma ? get(th, o[3]) : 0;
    put(th, o[0], compute(in, a, b, c));
  }

  void load(thread& th, const instruction& in) {
    const operand* o = in.ops.data();
    const unsigned sz = size_of(in.type);
    std::uint64_t v = 0;
    if (in.sp == space::param) {
      const param& p = k_.params[static_cast<std::size_t>(o[1].symbol)];
      const std::uint64_t at = p.offset + o[1].imm;
      if (at + sz > params_.size())
        throw stop{"parameter " + p.name + " not given (" + std::to_string(params_.size()) + " bytes of parameters)"};
      std::memcpy(&v, &params_[at], sz);
    } else if (!in.group.empty()) {  // a vector: element i into the group's register i
      const std::uint64_t a = address(th, o[1], in.sp, static_cast<unsigned>(sz * in.group.size()));
      for (std::size_t i = 0; i < in.group.size(); ++i) {
        std::uint64_t e = 0;
        std::memcpy(&e, &memory(in.sp)[a + i * sz], sz);
        th.r[in.group[i]] = e & mask_of(size_of(k_.regs[in.group[i]].type));
      }
      return;
    } else {
      const std::uint64_t a = address(th, o[1], in.sp, sz);
      std::memcpy(&v, &memory(in.sp)[a], sz);
    }
    if (is_signed(in.type) && sz < 8) v = static_cast<std::uint64_t>(sext(v, sz));
    put(th, o[0], v);
  }

  void store(thread& th, const instruction& in) {
    const operand* o = in.ops.data();
    const unsigned sz = size_of(in.type);
    if (!in.group.empty()) {
      const std::uint64_t a = address(th, o[0], in.sp, static_cast<unsigned>(sz * in.group.size()));
      for (std::size_t i = 0; i < in.group.size(); ++i) std::memcpy(&memory(in.sp)[a + i * sz], &th.r[in.group[i]], sz);
      return;
    }
    const std::uint64_t a = address(th, o[0], in.sp, sz);
    const std::uint64_t v = th.r[o[1].reg];
    std::memcpy(&memory(in.sp)[a], &v, sz);
  }

  void atomic(thread& th, const instruction& in) {
    const operand* o = in.ops.data();
    const std::uint64_t a = address(th, o[1], in.sp, 4);
    auto& mem = memory(in.sp);
    std::uint32_t old = 0;
    const std::uint32_t v = static_cast<std::uint32_t>(get(th, o[2]));
    std::memcpy(&old, &mem[a], 4);
    const std::uint32_t r = atom_result(in, old, v);
    std::memcpy(&mem[a], &r, 4);
    put(th, o[0], old);
  }

  // ---- mbarriers, cp.async.bulk.tensor and wgmma ------------------------------------------

  std::uint32_t shared_address(const thread& th, const operand& a) const {
    std::uint64_t x = a.imm;
    if (a.base_reg) x += th.r[a.reg];
    else if (a.symbol >= 0) x += k_.shared[static_cast<std::size_t>(a.symbol)].offset;
    return static_cast<std::uint32_t>(x);
  }
  // Executes a Hopper instruction; false (nothing done) when it waits: try_wait for a phase
  // that has not completed (it returns true once it has: the wait is not given up early),
  // wait_group for MMAs whose warpgroup has not all issued them.
  bool async(unsigned t, thread& th, const instruction& in) {
    const operand* o = in.ops.data();
    switch (in.op) {
      case opcode::mbar_init: {
        if (const std::string e = bars_.init(shared_address(th, o[0]), get(th, o[1]) & 0xffffffffu); !e.empty())
          throw stop{e};
        return true;
      }
      case opcode::mbar_arrive: arrive(shared_address(th, o[1]), 0); return true;
      case opcode::mbar_arrive_tx:
        arrive(shared_address(th, o[1]), static_cast<std::int64_t>(get(th, o[2]) & 0xffffffffu));
        return true;
      case opcode::mbar_try_wait: {
        const simt::golden_mbarrier& m = bar_at(shared_address(th, o[1]));
        if ((m.phase & 1u) == (get(th, o[2]) & 1u)) return false;  // that phase has not completed
        put(th, o[0], 1);
        return true;
      }
      case opcode::tma_load: {
        const std::uint64_t map_at = th.r[o[1].reg];
        const auto& offs = l_.tensor_map_offsets;
        const auto it = std::find(offs.begin(), offs.end(), map_at);
        if (it == offs.end() || std::size_t(it - offs.begin()) >= l_.tensor_maps.size())
          throw stop{"cp.async.bulk.tensor: " + hex(map_at) + " is not the address of a tensor-map parameter of the launch"};
        const tensor_descriptor& d = l_.tensor_maps[static_cast<std::size_t>(it - offs.begin())];
        const std::uint32_t dst = shared_address(th, o[0]);
        if (const std::string e = simt::golden_tma_check(d, dst, l_.shared_bytes, false); !e.empty()) throw stop{e};
        if (in.group.size() != d.rank)
          throw stop{"cp.async.bulk.tensor." + std::to_string(in.group.size()) + "d with a tensor map of rank " +
                     std::to_string(d.rank)};
        simt::golden_mbarrier& m = bar_at(shared_address(th, o[2]));
        std::array<std::int64_t, 5> coords{};
        for (std::size_t c = 0; c < in.group.size() && c < coords.size(); ++c)
          coords[c] = static_cast<std::int32_t>(th.r[in.group[c]]);
        if (const std::string e = simt::golden_tma_copy(d, coords, dst, *shared_, global_, false); !e.empty()) throw stop{e};
        m.bytes -= static_cast<std::int64_t>(d.box_bytes());
        m.maybe_flip();
        return true;
      }
      case opcode::wgmma_mma: {
        if (c_.warp_size != 32) throw stop{"wgmma needs warps of 32 threads"};
        const simt::golden_wgmma_arrival x{t, th.pc, th.r[o[1].reg], th.r[o[2].reg],
                                           o[3].k == operand::kind::imm ? o[3].imm != 0 : pred(th, o[3])};
        issue_wgmma(t, th, x, [this](unsigned group, unsigned ordinal) { compute_wgmma(group, ordinal); });
        return true;
      }
      case opcode::wgmma_commit: th.commit_wgmma(); return true;
      case opcode::wgmma_wait: return wait_wgmma(t, th, static_cast<std::size_t>(o[0].imm));
      default: return true;  // wgmma.fence, fence.*, setmaxnreg: nothing to do here
    }
  }

  // D = A x B (+ D) for the warpgroup's 128 threads, with the reference arithmetic.
  void compute_wgmma(unsigned group, unsigned ordinal) {
    std::vector<thread>& ths = *threads_;
    const unsigned t0 = group * 128;
    std::vector<simt::wgmma_part> parts;
    const auto at = wgmma_arrivals(group, ordinal, parts, [this](std::uint32_t pc, std::uint32_t first) {
      const instruction &in = k_.code[pc], &f = k_.code[first];
      return in.rank == f.rank && in.mma_a == f.mma_a && in.mma_b == f.mma_b;
    });
    const instruction& first = k_.code[at[0]->pc];
    const unsigned n = first.rank;
    for (unsigned i = 0; i < 128; ++i) {
      for (const auto r : k_.code[at[i]->pc].group) parts[i].d.push_back(static_cast<std::uint32_t>(ths[t0 + i].r[r]));
    }
    const std::string e = simt::golden_wgmma(n, first.mma_a, first.mma_b, false,
                                             at[0]->accumulate, *shared_, parts);
    if (!e.empty()) throw stop{e};
    for (unsigned i = 0; i < 128; ++i) {
      const auto& regs = k_.code[at[i]->pc].group;
      for (std::size_t j = 0; j < regs.size(); ++j) ths[t0 + i].r[regs[j]] = parts[i].d[j];
    }
  }

  bool shuffle(unsigned t, thread& th, const instruction& in) {
    const operand* o = in.ops.data();
    const bool elect = in.op == opcode::elect;
    const auto arrival = [&](unsigned w, unsigned lane) {
      if (elect) return elect_arrival(w, lane, static_cast<std::uint32_t>(get(th, o[1])));
      simt::shuffle_exchange::arrival av;
      av.mode = static_cast<simt::shuffle_mode>(in.shfl);
      av.value = static_cast<std::uint32_t>(get(th, o[1]));
      av.b = static_cast<std::uint32_t>(get(th, o[2]));
      av.c = static_cast<std::uint32_t>(get(th, o[3]));
      av.mask = static_cast<std::uint32_t>(get(th, o[4]));
      return av;
    };
    simt::shuffle_exchange::result res;
    if (!exchange(t, th, arrival, res)) return false;
    const unsigned lane = t % c_.warp_size;
    if (elect) {
      if (o[0].k == operand::kind::reg) put(th, o[0], res.value);
      put(th, o[2], res.value == lane ? 1 : 0);
      ++th.pc;
      return true;
    }
    put(th, o[0], res.value);
    if (in.nops > 5 && o[5].k == operand::kind::reg) put(th, o[5], res.in_range ? 1 : 0);
    ++th.pc;
    return true;
  }

  const module& m_;
  const kernel& k_;
  std::vector<unsigned char> params_;
};

}  // namespace

simt::interp_result interpret(const module& m, const kernel& k, const simt::launch& l, std::vector<unsigned char>& global,
                              const simt::interp_config& c) {
  return machine(m, k, l, global, c).run();
}

}  // namespace flynn::ptx

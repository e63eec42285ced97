// The SIMT core's ALU stage: an ALU-class warp instruction (arithmetic, compare, moves of
// special registers and parameters) over the warp's executing lanes, a register row at a
// time; the lane semantics are lane_alu's.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>

#include "core_state.h"
#include "lane_alu.h"
#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "flynn/simt/simt_core.h"
#include "core_engine.h"

namespace flynn {

using simt::op;

namespace {
constexpr unsigned row_lanes = simt::warp::lane_slots;

using simt::lane_bit;

// Register row d takes v in the lanes of `lanes`; the others keep their values. (Every
// lane's value is computed: a whole row at a time is cheaper than lane by lane.)
inline void write_row(std::uint32_t* __restrict d, const std::uint32_t* __restrict v, std::uint32_t lanes) {
  if (lanes == 0xffffffffu) {
    std::copy_n(v, row_lanes, d);
    return;
  }
  for (unsigned l = 0; l < row_lanes; ++l) {
    const std::uint32_t keep = 0u - static_cast<std::uint32_t>((lanes & lane_bit[l]) == 0);
    d[l] = (v[l] & ~keep) | (d[l] & keep);
  }
}

// The second source of an instruction, as a row: rb's, or the immediate in every lane.
inline const std::uint32_t* source_b(const simt::warp& w, const simt::instr& in, std::uint32_t* imm_row) {
  if (!in.b_imm) return w.row(in.rb);
  std::fill_n(imm_row, row_lanes, static_cast<std::uint32_t>(in.imm));
  return imm_row;
}

// One arithmetic instruction over a warp's executing lanes, its opcode fixed at compile time
// so that lane_arithmetic's selection folds away: the lane loop is the whole work.
template <simt::op O>
void arithmetic_lanes(simt::warp& w, const simt::instr& in, std::uint32_t lanes) {
  std::uint32_t imm_row[row_lanes], v[row_lanes];
  const std::uint32_t* a = w.row(in.ra);
  const std::uint32_t* b = source_b(w, in, imm_row);
  const std::uint32_t* c = w.row(in.rc);
  for (unsigned l = 0; l < row_lanes; ++l) v[l] = *simt::lane_arithmetic(O, a[l], b[l], c[l]);
  write_row(w.row(in.rd), v, lanes);
}

using lanes_fn = void (*)(simt::warp&, const simt::instr&, std::uint32_t);

// The arithmetic instructions' lane loops, indexed by opcode (nullptr: not arithmetic).
template <std::size_t... I>
std::array<lanes_fn, sizeof...(I)> arithmetic_table(std::index_sequence<I...>) {
  return {(simt::lane_arithmetic(static_cast<simt::op>(I), 0, 1, 0)
               ? &arithmetic_lanes<static_cast<simt::op>(I)>
               : nullptr)...};
}
// shfl over the executing lanes (kept out of execute_alu, whose common paths stay small):
// every executing lane names itself in its membermask, and every lane a membermask names
// executes the shfl too (one that diverged or is guarded off would never arrive); each lane
// reads the value of a lane that executes it. Returns the faulting lane and why, if any.
__attribute__((noinline)) std::optional<std::pair<unsigned, std::string>> shuffle(simt::warp& w, const simt::instr& in,
                                                                                  std::uint32_t lanes) {
  std::uint32_t imm_b[row_lanes], c_row[row_lanes], e_row[row_lanes], v[row_lanes];
  const std::uint32_t* a = w.row(in.ra);
  const std::uint32_t* b = source_b(w, in, imm_b);
  if (in.c_imm) std::fill_n(c_row, row_lanes, in.imm_b);
  else std::copy_n(w.row(in.rc), row_lanes, c_row);
  if (in.e_imm) std::fill_n(e_row, row_lanes, in.imm_e);
  else std::copy_n(w.row(in.re), row_lanes, e_row);
  const std::uint32_t present = first_lanes(w.threads) & ~w.exited;
  std::uint32_t named = 0, in_range = 0;
  for (std::uint32_t m = lanes; m; m &= m - 1) {
    const auto l = static_cast<unsigned>(__builtin_ctz(m));
    if (!(e_row[l] & lane_bit[l]))
      return std::make_pair(l, "lane " + std::to_string(l) + " executes shfl.sync but is not in its membermask " + hex(e_row[l]));
    named |= e_row[l];
  }
  if (const std::uint32_t missing = named & present & ~lanes)
    return std::make_pair(static_cast<unsigned>(__builtin_ctz(lanes)),
                          "shfl.sync names lanes " + hex(missing) + " in its membermask that do not execute it (diverged or guarded off)");
  std::copy_n(w.row(in.rd), row_lanes, v);
  for (std::uint32_t m = lanes; m; m &= m - 1) {
    const auto l = static_cast<unsigned>(__builtin_ctz(m));
    bool ok = false;
    const unsigned j = simt::shuffle_source(static_cast<simt::shuffle_mode>(in.sub), l, b[l], c_row[l], ok);
    if (!(lanes & lane_bit[j]))
      return std::make_pair(l, "shfl.sync: lane " + std::to_string(l) + " reads lane " + std::to_string(j) +
                                   ", which does not execute it");
    v[l] = a[j];
    if (ok) in_range |= lane_bit[l];
  }
  write_row(w.row(in.rd), v, lanes);
  if (in.pd != simt::no_pred) {
    std::uint32_t& pm = w.p[in.pd & 7u];
    pm = (pm & ~lanes) | (in_range & lanes);
  }
  return std::nullopt;
}
// elect.sync over the executing lanes: every lane the membermask names executes it (as for
// shfl.sync) and the lowest of them is the leader.
__attribute__((noinline)) std::optional<std::pair<unsigned, std::string>> elect(simt::warp& w, const simt::instr& in,
                                                                                std::uint32_t lanes) {
  if (!lanes) return std::nullopt;
  const std::uint32_t present = first_lanes(w.threads) & ~w.exited;
  std::uint32_t mask = 0;
  for (std::uint32_t m = lanes; m; m &= m - 1) {
    const auto l = static_cast<unsigned>(__builtin_ctz(m));
    const std::uint32_t e = in.e_imm ? in.imm_e : w.row(in.re)[l];
    if (m != lanes && e != mask)
      return std::make_pair(l, "elect.sync: lane " + std::to_string(l) + " has membermask " + hex(e) + ", other lanes " + hex(mask));
    mask = e;
    if (!(e & lane_bit[l]))
      return std::make_pair(l, "lane " + std::to_string(l) + " executes elect.sync but is not in its membermask " + hex(e));
  }
  if (const std::uint32_t missing = mask & present & ~lanes)
    return std::make_pair(static_cast<unsigned>(__builtin_ctz(lanes)),
                          "elect.sync names lanes " + hex(missing) + " in its membermask that do not execute it (diverged or guarded off)");
  const auto leader = static_cast<unsigned>(__builtin_ctz(lanes));
  if (in.sub == 1) {
    std::uint32_t v[row_lanes];
    std::fill_n(v, row_lanes, leader);
    write_row(w.row(in.rd), v, lanes);
  }
  if (in.pd != simt::no_pred) {
    std::uint32_t& pm = w.p[in.pd & 7u];
    pm = (pm & ~lanes) | lane_bit[leader];
  }
  return std::nullopt;
}
// A row of one value for every lane.
void write_all(simt::warp& w, unsigned rd, std::uint32_t x, std::uint32_t lanes) {
  std::uint32_t v[row_lanes];
  std::fill_n(v, row_lanes, x);
  write_row(w.row(rd), v, lanes);
}

// A 64-bit row pair: rd takes the low words, rd + 1 the high ones.
void write_pair(simt::warp& w, unsigned rd, const std::uint64_t* x, std::uint32_t lanes) {
  std::uint32_t lo[row_lanes], hi[row_lanes];
  for (unsigned l = 0; l < row_lanes; ++l) {
    lo[l] = static_cast<std::uint32_t>(x[l]);
    hi[l] = static_cast<std::uint32_t>(x[l] >> 32);
  }
  write_row(w.row(rd), lo, lanes);
  write_row(w.row(rd + 1u), hi, lanes);
}

// Lane l's 64-bit value in the register pair r, r + 1.
std::uint64_t wide(const simt::warp& w, unsigned r, unsigned l) {
  return std::uint64_t(w.row(r)[l]) | (std::uint64_t(w.row(r + 1u)[l]) << 32);
}

// Component k (x, y, z) of the linear index t in a box of dims d.
std::uint32_t component(std::uint32_t t, const std::array<unsigned, 3>& d, unsigned k) {
  return k == 0 ? t % d[0] : k == 1 ? (t / d[0]) % d[1] : t / (d[0] * d[1]);
}

// mov: a special register (thread, block and grid indices and sizes, lane and warp ids),
// an immediate or a register, into rd.
void move(simt::warp& w, const simt::instr& in, std::uint32_t lanes, const simt::launch& launch, unsigned block_id,
          unsigned warp_size) {
  std::uint32_t v[row_lanes];
  const auto thread_component = [&](unsigned k) {
    const auto d = launch.block_dims();
    const std::uint32_t first = w.index * warp_size;
    if (d[1] == 1 && d[2] == 1)  // a one-dimensional block: x is the index itself, y and z are 0
      for (unsigned l = 0; l < row_lanes; ++l) v[l] = k == 0 ? first + l : 0;
    else
      for (unsigned l = 0; l < row_lanes; ++l) v[l] = component(first + l, d, k);
    write_row(w.row(in.rd), v, lanes);
  };
  const auto all = [&](std::uint32_t x) { write_all(w, in.rd, x, lanes); };
  switch (in.sreg) {
    case simt::special::tid: thread_component(0); break;
    case simt::special::tid_y: thread_component(1); break;
    case simt::special::tid_z: thread_component(2); break;
    case simt::special::laneid:
      for (unsigned l = 0; l < row_lanes; ++l) v[l] = l;
      write_row(w.row(in.rd), v, lanes);
      break;
    case simt::special::ntid: all(launch.block_xyz[0] ? launch.block_xyz[0] : launch.block); break;
    case simt::special::ntid_y: all(launch.block_dims()[1]); break;
    case simt::special::ntid_z: all(launch.block_dims()[2]); break;
    case simt::special::ctaid: all(launch.grid_xyz[0] ? block_id % launch.grid_xyz[0] : block_id); break;
    case simt::special::ctaid_y: all(component(block_id, launch.grid_dims(), 1)); break;
    case simt::special::ctaid_z: all(component(block_id, launch.grid_dims(), 2)); break;
    case simt::special::nctaid: all(launch.grid_dims()[0]); break;
    case simt::special::nctaid_y: all(launch.grid_dims()[1]); break;
    case simt::special::nctaid_z: all(launch.grid_dims()[2]); break;
    case simt::special::warpid: all(w.index); break;
    default:
      if (in.b_imm) {
        all(static_cast<std::uint32_t>(in.imm));
      } else {
        std::copy_n(w.row(in.ra), row_lanes, v);
        write_row(w.row(in.rd), v, lanes);
      }
      break;
  }
}

// The 64-bit and widening instructions (mov64, add64, cvt64, logic64, mul.wide): false for
// any other.
bool wide_op(simt::warp& w, const simt::instr& in, std::uint32_t lanes) {
  std::uint64_t x[row_lanes];
  const auto b64 = [&](unsigned l) { return in.b_imm ? static_cast<std::uint64_t>(in.imm) : wide(w, in.rb, l); };
  switch (in.code) {
    case op::mov64:
      for (unsigned l = 0; l < row_lanes; ++l) x[l] = in.b_imm ? static_cast<std::uint64_t>(in.imm) : wide(w, in.ra, l);
      break;
    case op::add64:
      for (unsigned l = 0; l < row_lanes; ++l) x[l] = wide(w, in.ra, l) + b64(l);
      break;
    case op::cvt64: {
      const std::uint32_t* a = w.row(in.ra);
      for (unsigned l = 0; l < row_lanes; ++l)
        x[l] = in.ty == simt::type::s32 ? static_cast<std::uint64_t>(std::int64_t(std::int32_t(a[l]))) : a[l];
      break;
    }
    case op::logic64:
      for (unsigned l = 0; l < row_lanes; ++l) {
        const std::uint64_t a = wide(w, in.ra, l), b = b64(l);
        x[l] = in.sub == 0 ? (a & b) : in.sub == 1 ? (a | b) : (a ^ b);
      }
      break;
    case op::mul_wide: {
      std::uint32_t imm_row[row_lanes];
      const std::uint32_t* a = w.row(in.ra);
      const std::uint32_t* b = source_b(w, in, imm_row);
      if (in.ty != simt::type::s32 && in.ty != simt::type::u32) {  // 16-bit operands: one register
        std::uint32_t v[row_lanes];
        for (unsigned l = 0; l < row_lanes; ++l)
          v[l] = in.ty == simt::type::s16
                     ? static_cast<std::uint32_t>(std::int32_t(std::int16_t(a[l])) * std::int32_t(std::int16_t(b[l])))
                     : (a[l] & 0xffffu) * (b[l] & 0xffffu);
        write_row(w.row(in.rd), v, lanes);
        return true;
      }
      for (unsigned l = 0; l < row_lanes; ++l)
        x[l] = in.ty == simt::type::s32
                   ? static_cast<std::uint64_t>(std::int64_t(std::int32_t(a[l])) * std::int64_t(std::int32_t(b[l])))
                   : std::uint64_t(a[l]) * b[l];
      break;
    }
    default:
      return false;
  }
  write_pair(w, in.rd, x, lanes);
  return true;
}

// The predicate instructions (plogic, setp) and selp: false for any other.
bool predicate_op(simt::warp& w, const simt::instr& in, std::uint32_t lanes) {
  std::uint32_t imm_row[row_lanes];
  switch (in.code) {
    case op::plogic: {
      const std::uint32_t pa = w.p[in.ra & 7u], pb = w.p[in.rb & 7u];
      const std::uint32_t x = in.imm == 0 ? (pa & pb) : in.imm == 1 ? (pa | pb) : in.imm == 2 ? (pa ^ pb) : ~pa;
      std::uint32_t& pm = w.p[in.rd & 7u];
      pm = (pm & ~lanes) | (x & lanes);
      return true;
    }
    case op::setp: {
      const std::uint32_t x = simt::compare_lanes(in.cond, in.ty, w.row(in.ra), source_b(w, in, imm_row));
      std::uint32_t& pm = w.p[in.rd & 7u];
      pm = (pm & ~lanes) | (x & lanes);
      return true;
    }
    case op::selp: {
      std::uint32_t imm_a[row_lanes], v[row_lanes];
      if (in.a_imm) std::fill_n(imm_a, row_lanes, in.imm_b);
      const std::uint32_t* a = in.a_imm ? imm_a : w.row(in.ra);
      const std::uint32_t* b = source_b(w, in, imm_row);
      const std::uint32_t pm = w.p[in.rc & 7u];
      for (unsigned l = 0; l < row_lanes; ++l) v[l] = (pm & lane_bit[l]) ? a[l] : b[l];
      write_row(w.row(in.rd), v, lanes);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

// An ALU-class instruction for the warp's executing lanes (mask, less those whose guard
// fails), each lane on its own registers; returns the pipeline's latency.
std::uint64_t simt_core::engine::execute_alu(warp& w, const simt::instr& in, std::uint32_t mask) {
  static const auto arithmetic = arithmetic_table(std::make_index_sequence<static_cast<std::size_t>(op::setp)>());
  const std::uint32_t lanes = w.guarded(mask & first_lanes(p_.warp_size), in, p_.warp_size);
  switch (in.code) {
    case op::mov:
      move(w, in, lanes, launch_, blocks_[w.block].id, p_.warp_size);
      break;
    case op::ldparam: {
      if (!lanes) break;
      const auto i = static_cast<std::size_t>(in.imm);
      if (i + (in.width == 8 ? 1 : 0) >= launch_.params.size()) {
        set_fault(w, static_cast<unsigned>(__builtin_ctz(lanes)),
                  "kernel parameter " + std::to_string(i) + " not given (" + std::to_string(launch_.params.size()) +
                      " parameters)");
        return 0;
      }
      write_all(w, in.rd, launch_.params[i], lanes);
      if (in.width == 8) write_all(w, in.rd + 1u, launch_.params[i + 1], lanes);
      break;
    }
    case op::shfl:
      if (const auto err = shuffle(w, in, lanes)) {
        set_fault(w, err->first, err->second);
        return 0;
      }
      break;
    case op::elect:
      if (const auto err = elect(w, in, lanes)) {
        set_fault(w, err->first, err->second);
        return 0;
      }
      break;
    default: {  // (no 64-bit or predicate instruction has a lane loop in the arithmetic table)
      const auto i = static_cast<std::size_t>(in.code);
      if (i < arithmetic.size() && arithmetic[i]) arithmetic[i](w, in, lanes);
      else if (!wide_op(w, in, lanes)) predicate_op(w, in, lanes);
      break;
    }
  }
  return decoded_[w.stack.back().pc].latency;  // (w's top is still at this instruction)
}

}  // namespace flynn

// The SIMT core's ALU stage: an ALU-class warp instruction (arithmetic, compare, moves of
// special registers and parameters) over the warp's executing lanes, a register row at a
// time; the lane semantics are lane_alu's.
#include <algorithm>
#include <array>
#include <utility>

#include "core_state.h"
#include "lane_alu.h"
#include "flynn/common/bits.h"
#include "flynn/simt/simt_core.h"

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
}  // namespace

// An ALU-class instruction for the warp's executing lanes (mask, less those whose guard
// fails), each lane on its own registers; returns the pipeline's latency.
std::uint64_t simt_core::execute_alu(warp& w, const simt::instr& in, std::uint32_t mask) {
  static const auto arithmetic = arithmetic_table(std::make_index_sequence<static_cast<std::size_t>(op::setp)>());
  const std::uint32_t lanes = w.guarded(mask & first_lanes(p_.warp_size), in, p_.warp_size);
  const block_slot& bs = blocks_[w.block];
  std::uint32_t v[row_lanes];
  const auto all = [&](std::uint32_t x) {
    std::fill_n(v, row_lanes, x);
    write_row(w.row(in.rd), v, lanes);
  };
  switch (in.code) {
    case op::mov:
      switch (in.sreg) {
        case simt::special::tid:
          for (unsigned l = 0; l < row_lanes; ++l) v[l] = w.index * p_.warp_size + l;
          write_row(w.row(in.rd), v, lanes);
          break;
        case simt::special::laneid:
          for (unsigned l = 0; l < row_lanes; ++l) v[l] = l;
          write_row(w.row(in.rd), v, lanes);
          break;
        case simt::special::ntid: all(launch_.block); break;
        case simt::special::ctaid: all(bs.id); break;
        case simt::special::nctaid: all(launch_.grid); break;
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
      break;
    case op::ldparam: {
      if (!lanes) break;
      const auto i = static_cast<std::size_t>(in.imm);
      if (i >= launch_.params.size()) {
        set_fault(w, static_cast<unsigned>(__builtin_ctz(lanes)),
                  "kernel parameter " + std::to_string(i) + " not given (" + std::to_string(launch_.params.size()) +
                      " parameters)");
        return 0;
      }
      all(launch_.params[i]);
      break;
    }
    case op::setp: {
      std::uint32_t imm_row[row_lanes];
      const std::uint32_t x = simt::compare_lanes(in.cond, in.ty, w.row(in.ra), source_b(w, in, imm_row));
      std::uint32_t& pm = w.p[in.rd & 7u];
      pm = (pm & ~lanes) | (x & lanes);
      break;
    }
    case op::selp: {
      std::uint32_t imm_row[row_lanes];
      const std::uint32_t* a = w.row(in.ra);
      const std::uint32_t* b = source_b(w, in, imm_row);
      const std::uint32_t pm = w.p[in.rc & 7u];
      for (unsigned l = 0; l < row_lanes; ++l) v[l] = (pm & lane_bit[l]) ? a[l] : b[l];
      write_row(w.row(in.rd), v, lanes);
      break;
    }
    default: {
      const auto i = static_cast<std::size_t>(in.code);
      if (i < arithmetic.size() && arithmetic[i]) arithmetic[i](w, in, lanes);
      break;
    }
  }
  return decoded_[w.stack.back().pc].latency;  // (w's top is still at this instruction)
}

}  // namespace flynn

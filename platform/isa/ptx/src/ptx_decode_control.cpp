// The PTX decoders of control flow and warp-wide instructions: bra, bar, shfl, elect,
// setmaxnreg, ret, exit.
#include "ptx_decode.h"

namespace flynn::ptx {

void decode_bra(decoder& d) {
  d.in.op = opcode::bra;
  d.take("uni");
  d.no_more();
  d.need(1);
  const token& l = d.ops[0].toks[0];
  if (d.ops[0].toks.size() != 1 || l.kind != token::ident) d.fail(l, "a label", quoted(d.ops[0].text));
  d.r.branch_to(l);
}

void decode_bar(decoder& d) {
  d.in.op = opcode::bar;
  if (!d.take("sync")) d.unsupported("bar.sync");
  d.take("aligned");
  d.no_more();
  d.need(1);
  const operand id = d.value(d.ops[0], dtype::u32, allow_imm);
  if (id.k != operand::kind::imm || id.imm != 0)
    d.unsupported("barrier 0 only (named barriers are not supported)");
  d.set(0, id);
}

void decode_shfl(decoder& d) {
  d.in.op = opcode::shfl;
  if (!d.take("sync")) d.unsupported("shfl.sync (the form without .sync is gone since sm_70)");
  static const std::pair<const char*, shfl_mode> modes[] = {
      {"up", shfl_mode::up}, {"down", shfl_mode::down}, {"bfly", shfl_mode::bfly}, {"idx", shfl_mode::idx}};
  if (!d.take_first(modes, d.in.shfl)) d.unsupported("a mode .up, .down, .bfly or .idx");
  d.in.type = d.take_type();
  d.no_more();
  d.one_of(d.in.type, {dtype::b32});
  d.need(5);
  // d or d|p
  const raw_operand& dp = d.ops[0];
  std::size_t bar = 0;
  while (bar < dp.toks.size() && dp.toks[bar].s != "|") ++bar;
  if (bar < dp.toks.size()) {
    raw_operand dr = dp, pr = dp;
    dr.toks.assign(dp.toks.begin(), dp.toks.begin() + static_cast<std::ptrdiff_t>(bar));
    pr.toks.assign(dp.toks.begin() + static_cast<std::ptrdiff_t>(bar) + 1, dp.toks.end());
    if (dr.toks.empty() || pr.toks.empty()) d.fail(dp.toks[bar], "d|p (a register and a predicate)", quoted(dp.text));
    for (auto* x : {&dr, &pr}) {
      x->text.clear();
      for (const auto& t : x->toks) x->text += t.s;
    }
    d.set(0, d.value(dr, dtype::b32, reg_only));
    d.set(5, d.value(pr, dtype::pred, reg_only));
  } else {
    d.dest(0, dtype::b32);
  }
  d.src(1, dtype::b32, reg_only);
  d.src(2, dtype::b32);
  d.src(3, dtype::b32);
  d.src(4, dtype::b32);
}

void decode_elect(decoder& d) {
  d.in.op = opcode::elect;
  if (!d.take("sync")) d.unsupported("elect.sync");
  d.no_more();
  d.need(2);
  // d|p, membermask: d the elected lane's index (or the sink _), p whether this thread is it
  // (ops: d, membermask, p)
  const raw_operand& dp = d.ops[0];
  if (dp.toks.size() != 3 || dp.toks[1].s != "|") d.fail(dp.toks[0], "d|p (a register or _, and a predicate)", quoted(dp.text));
  raw_operand dr, pr;
  dr.toks = {dp.toks[0]};
  dr.text = dp.toks[0].s;
  pr.toks = {dp.toks[2]};
  pr.text = dp.toks[2].s;
  if (dr.text != "_") d.set(0, d.value(dr, dtype::b32, reg_only));
  d.src(1, dtype::b32);  // the membermask
  d.set(2, d.value(pr, dtype::pred, reg_only));
}

void decode_setmaxnreg(decoder& d) {
  d.in.op = opcode::setmaxnreg;
  d.in.increase = d.take("inc");
  if (!d.in.increase && !d.take("dec")) d.unsupported("setmaxnreg.inc or setmaxnreg.dec");
  d.take("sync");
  d.take("aligned");
  d.in.type = d.take_type();
  d.no_more();
  d.one_of(d.in.type, {dtype::u32});
  d.need(1);
  const operand n = d.value(d.ops[0], dtype::u32, allow_imm);
  if (n.k != operand::kind::imm || n.imm < 24 || n.imm > 256 || n.imm % 8)
    d.fail(d.ops[0].toks[0], "a register count 24 .. 256, a multiple of 8", quoted(d.ops[0].text));
  d.set(0, n);
}

void decode_exit(decoder& d) {
  d.in.op = d.head == "ret" ? opcode::ret : opcode::exit;
  d.no_more();
  d.need(0);
}

}  // namespace flynn::ptx

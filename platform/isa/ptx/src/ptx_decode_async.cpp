// The PTX decoders of Hopper's asynchronous instructions: mbarrier, cp.async.bulk.tensor
// (TMA loads) and wgmma.
#include "ptx_decode.h"

#include <cstdlib>

namespace flynn::ptx {

namespace {

// Takes the last modifier when it names an MMA input type (.bf16, .f16, .tf32, .e4m3, .e5m2).
bool take_element_type(decoder& d, element_type& e) {
  if (d.mods.empty()) return false;
  static const std::pair<const char*, element_type> names[] = {
      {"bf16", element_type::bf16}, {"f16", element_type::f16}, {"tf32", element_type::tf32},
      {"e4m3", element_type::e4m3}, {"e5m2", element_type::e5m2}};
  for (const auto& [name, t] : names)
    if (d.mods.back() == name) {
      e = t;
      d.mods.pop_back();
      return true;
    }
  return false;
}

// wgmma.mma_async: the shape, the accumulator and input types, and the eight operands.
void decode_wgmma_mma(decoder& d) {
  // wgmma.mma_async.sync.aligned.m64nNkK.f32.ATYPE.BTYPE {d..}, desc-a, desc-b, scale-d, imm-scale-a,
  // imm-scale-b, tnsp-a, tnsp-b (K = 16: bf16 or f16; 8: tf32; 32: e4m3 or e5m2)
  d.in.op = opcode::wgmma_mma;
  std::string shape;
  for (const auto& m : d.mods)
    if (m.size() > 5 && m.compare(0, 4, "m64n") == 0) shape = m;
  d.take(shape);
  unsigned n = 0, kk = 0;
  if (const std::size_t kp = shape.find('k'); !shape.empty() && kp != std::string::npos && kp > 4) {
    n = static_cast<unsigned>(std::strtoul(shape.substr(4, kp - 4).c_str(), nullptr, 10));
    kk = static_cast<unsigned>(std::strtoul(shape.substr(kp + 1).c_str(), nullptr, 10));
  }
  if (n < 8 || n > 256 || n % 8 || (kk != 16 && kk != 8 && kk != 32))
    d.unsupported("the shape m64nNkK (N = 8 .. 256 in steps of 8; K = 16, 8 or 32)");
  d.in.rank = n;
  element_type ta = element_type::f16, tb = element_type::f16;
  const bool types = take_element_type(d, tb) && take_element_type(d, ta);
  const dtype acc = d.take_type();
  d.no_more();
  const bool sixteen = ta == element_type::bf16 || ta == element_type::f16;
  if (!types || acc != dtype::f32 || 32 / element_bytes(ta) != kk || element_bytes(tb) != element_bytes(ta) ||
      (sixteen && ta != tb))
    d.unsupported(".f32 accumulators from .bf16 or .f16 (K = 16), .tf32 (K = 8) or .e4m3/.e5m2 (K = 32) inputs");
  d.in.mma_a = ta;
  d.in.mma_b = tb;
  d.in.type = ta == element_type::bf16 ? dtype::bf16 : dtype::f16;
  d.need(8);
  const unsigned count = n / 2;
  d.group(d.ops[0], dtype::f32, count);
  d.set(0, [] { operand g; g.k = operand::kind::group; return g; }());
  d.src(1, dtype::b64, reg_only);
  d.src(2, dtype::b64, reg_only);
  d.set(3, d.value(d.ops[3], dtype::pred, allow_imm));
  for (unsigned i = 4; i < 8; ++i) d.set(i, d.value(d.ops[i], dtype::s32, allow_imm));
}

}  // namespace

void decode_mbarrier(decoder& d) {
  // mbarrier.init / arrive / arrive.expect_tx / try_wait.parity, .shared::cta (or .shared), .b64
  const bool init = d.take("init"), arrive = d.take("arrive"), expect = d.take("expect_tx"), try_wait = d.take("try_wait");
  const bool parity = d.take("parity");
  if (!d.take("shared::cta")) d.take("shared");
  d.take("release");
  d.take("acquire");
  d.take("cta");
  d.in.type = d.take_type();
  d.no_more();
  d.one_of(d.in.type, {dtype::b64});
  d.in.sp = space::shared;
  if (init && !arrive && !try_wait) {
    d.in.op = opcode::mbar_init;
    d.need(2);
    d.set(0, d.address(d.ops[0], space::shared));
    d.src(1, dtype::u32);
  } else if (arrive && !init && !try_wait) {
    d.in.op = expect ? opcode::mbar_arrive_tx : opcode::mbar_arrive;
    d.need(expect ? 3 : 2);
    if (!(d.ops[0].toks.size() == 1 && d.ops[0].toks[0].s == "_")) d.dest(0, dtype::b64);  // the state (or the sink _)
    d.set(1, d.address(d.ops[1], space::shared));
    if (expect) d.src(2, dtype::u32);
  } else if (try_wait && parity && !init && !arrive) {
    d.in.op = opcode::mbar_try_wait;
    d.need(3);
    d.dest(0, dtype::pred);
    d.set(1, d.address(d.ops[1], space::shared));
    d.src(2, dtype::u32);
  } else {
    d.unsupported("mbarrier.init, mbarrier.arrive[.expect_tx] and mbarrier.try_wait.parity");
  }
}

void decode_cp(decoder& d) {
  // cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [map, {c0, ..}], [bar]
  d.in.op = opcode::tma_load;
  const bool ok = d.take("async") && d.take("bulk") && d.take("tensor") && d.take("global") &&
                  d.take("mbarrier::complete_tx::bytes") && (d.take("shared::cluster") || d.take("shared::cta"));
  for (unsigned rank = 1; rank <= 5; ++rank)
    if (d.take(std::to_string(rank) + "d")) d.in.rank = rank;
  d.take("tile");
  if (!ok || d.in.rank == 0) d.unsupported("cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes");
  d.no_more();
  d.need(3);
  d.set(0, d.address(d.ops[0], space::shared));
  // [map, {c0, ..}]: the tensor map's generic address, then the coordinates
  const raw_operand& mo = d.ops[1];
  if (mo.toks.size() < 6 || mo.toks.front().s != "[" || mo.toks.back().s != "]" || mo.toks[2].s != ",")
    d.fail(mo.toks[0], "[tensor map, {coordinates}]", quoted(mo.text));
  raw_operand map;
  map.toks = {mo.toks[1]};
  map.text = mo.toks[1].s;
  d.set(1, d.value(map, dtype::b64, reg_only));
  raw_operand coords;
  coords.toks.assign(mo.toks.begin() + 3, mo.toks.end() - 1);
  for (const auto& t : coords.toks) coords.text += t.s;
  d.group(coords, dtype::b32, d.in.rank);
  d.set(2, d.address(d.ops[2], space::shared));
}

void decode_wgmma(decoder& d) {
  d.take("sync");
  d.take("aligned");
  if (d.take("fence")) {
    d.in.op = opcode::wgmma_fence;
    d.no_more();
    d.need(0);
  } else if (d.take("commit_group")) {
    d.in.op = opcode::wgmma_commit;
    d.no_more();
    d.need(0);
  } else if (d.take("wait_group")) {
    d.in.op = opcode::wgmma_wait;
    d.no_more();
    d.need(1);
    const operand n = d.value(d.ops[0], dtype::u32, allow_imm);
    if (n.k != operand::kind::imm || n.imm > 7) d.fail(d.ops[0].toks[0], "a group count 0 .. 7", quoted(d.ops[0].text));
    d.set(0, n);
  } else if (d.take("mma_async")) {
    decode_wgmma_mma(d);
  } else {
    d.unsupported("wgmma.fence, wgmma.mma_async, wgmma.commit_group and wgmma.wait_group");
  }
}

}  // namespace flynn::ptx

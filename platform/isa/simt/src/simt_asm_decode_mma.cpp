// The SIMT decoders of matrix multiply-accumulate: Hopper's wgmma (with its commit and wait)
// and the warp-level mma.sync.
#include <algorithm>

#include "simt_asm_decode.h"

namespace flynn::simt::assembly {

namespace {

// wgmma.m64nNkK.f32.TYPE[.BTYPE][.rs]: the shape, the types and where A comes from.
void wgmma_suffixes(decoder& d) {
  const auto& parts = d.parts;
  instr& in = d.in;
  d.display = "wgmma.m64nNkK.f32.TYPE[.BTYPE][.rs]";
  const std::string shape = "a shape .m64nNkK (N = 8 .. 256 in steps of 8; K = 16, 8 or 32)";
  const std::string forms =
      "wgmma.m64nNk16.f32.bf16|f16[.rs], wgmma.m64nNk8.f32.tf32, wgmma.m64nNk32.f32.e4m3|e5m2.e4m3|e5m2, "
      "wgmma.commit_group or wgmma.wait_group";
  if (parts.empty()) d.a.fail(d.head.col, forms, quoted(d.head.s));
  const std::string& sh = parts[0].s;
  unsigned nn = 0, kk = 0;
  bool ok = sh.size() > 6 && sh.compare(0, 4, "m64n") == 0 && sh.find('k') != std::string::npos;
  if (ok) {
    const std::size_t kpos = sh.find('k');
    const std::string digits = sh.substr(4, kpos - 4), kd = sh.substr(kpos + 1);
    const auto number = [](const std::string& s) {
      return !s.empty() && s.size() <= 3 && s[0] != '0' &&
             std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    ok = number(digits) && number(kd);
    if (ok) nn = static_cast<unsigned>(std::stoul(digits)), kk = static_cast<unsigned>(std::stoul(kd));
    ok = ok && nn >= 8 && nn <= 256 && nn % 8 == 0 && (kk == 16 || kk == 8 || kk == 32);
  }
  if (!ok) d.a.fail(parts[0].col, shape, quoted(parts[0].orig));
  in.mma_n = static_cast<std::uint16_t>(nn);
  if (parts.size() < 2 || parts[1].s != "f32") d.bad_part(1, "the accumulator type .f32");
  const char* types = kk == 16 ? "an input type .bf16 or .f16 (K = 16)"
                      : kk == 8 ? "the input type .tf32 (K = 8)"
                                : "an input type .e4m3 or .e5m2 (K = 32)";
  const auto type_of = [&](const std::string& t, element_type& e) {
    if (kk == 16 && (t == "bf16" || t == "f16")) e = t == "bf16" ? element_type::bf16 : element_type::f16;
    else if (kk == 8 && t == "tf32") e = element_type::tf32;
    else if (kk == 32 && (t == "e4m3" || t == "e5m2")) e = t == "e4m3" ? element_type::e4m3 : element_type::e5m2;
    else return false;
    return true;
  };
  if (parts.size() < 3 || !type_of(parts[2].s, in.mma_type)) d.bad_part(2, types);
  in.mma_b_type = in.mma_type;
  std::size_t next = 3;
  if (kk == 32) {  // fp8: B's type follows A's
    if (parts.size() < 4 || !type_of(parts[3].s, in.mma_b_type))
      d.bad_part(3, "B's input type .e4m3 or .e5m2 (after A's)");
    next = 4;
  }
  if (parts.size() > next) {
    if (parts[next].s != "rs")
      d.a.fail(parts[next].col, ".rs (A from registers) or the end of the mnemonic", quoted(parts[next].orig));
    if (kk != 16)
      d.a.fail(parts[next].col,
               "A from shared memory for ." + std::string(element_name(in.mma_type)) +
                   " (.rs takes .f16 and .bf16 only)",
               quoted(parts[next].orig));
    in.mma_a_regs = true;
    ++next;
  }
  if (parts.size() > next)
    d.a.fail(parts[next].col, "end of the mnemonic (" + d.display + ")", quoted(parts[next].orig));
}

}  // namespace

void decode_wgmma(decoder& d) {
  instr& in = d.in;
  if (d.name == "wgmma.commit_group") {
    in.code = op::wgmma_commit;
    d.display = "wgmma.commit_group";
    d.operands(0, "");
    return;
  }
  if (d.name == "wgmma.wait_group") {
    in.code = op::wgmma_wait;
    d.display = "wgmma.wait_group";
    d.operands(1, "N");
    in.imm = static_cast<std::int64_t>(d.a.small_number(d.ops[0], 7, "a group count 0..7"));
    return;
  }
  wgmma_suffixes(d);
  d.operands(4, "rd, ra, rb, scale-d (0 or 1)");
  in.rd = d.reg(0);
  in.ra = d.reg(1);
  in.rb = d.reg(2);
  if (in.rd + in.mma_n / 2 > num_registers)
    d.a.fail(d.ops[0].col, "accumulators rd .. rd+" + std::to_string(in.mma_n / 2 - 1) + " within r255",
             d.ops[0].found());
  if (in.mma_a_regs ? in.ra % 4 : in.ra % 2)
    d.a.fail(d.ops[1].col, in.mma_a_regs ? "a multiple-of-4 register (the A fragment is ra .. ra+3)"
                                         : "an even register (the A descriptor is ra:ra+1)", d.ops[1].found());
  if (in.rb % 2) d.a.fail(d.ops[2].col, "an even register (the B descriptor is rb:rb+1)", d.ops[2].found());
  in.imm = static_cast<std::int64_t>(d.a.small_number(d.ops[3], 1, "scale-d 0 (D = A x B) or 1 (D = A x B + D)"));
}

// mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32, TYPE f16 or bf16 (both the same)
void decode_mma(decoder& d) {
  const auto& parts = d.parts;
  instr& in = d.in;
  d.display = "mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32";
  static const char* const fixed[] = {"sync", "aligned", "m16n8k16", "row", "col", "f32"};
  for (unsigned i = 0; i < 6; ++i)
    if (parts.size() <= i || parts[i].s != fixed[i])
      d.bad_part(i, "." + std::string(fixed[i]) + " (the form " + d.display + ", TYPE f16 or bf16)");
  if (parts.size() <= 6 || (parts[6].s != "f16" && parts[6].s != "bf16"))
    d.bad_part(6, "A's type .f16 or .bf16 (m16n8k16 takes 16-bit inputs)");
  in.mma_type = parts[6].s == "bf16" ? element_type::bf16 : element_type::f16;
  in.mma_b_type = in.mma_type;
  if (parts.size() <= 7 || parts[7].s != parts[6].s) d.bad_part(7, "B's type ." + parts[6].s + " (the same as A's)");
  if (parts.size() <= 8 || parts[8].s != "f32") d.bad_part(8, "C's type .f32");
  if (parts.size() > 9) d.a.fail(parts[9].col, "end of the mnemonic (" + d.display + ")", quoted(parts[9].orig));

  d.registers(4, "rd, ra, rb, rc (D rd..rd+3, A ra..ra+3, B rb..rb+1, C rc..rc+3)");
  const char* const what[] = {"D", "A", "B", "C"};
  const unsigned first[] = {in.rd, in.ra, in.rb, in.rc}, count[] = {4, 4, 2, 4};
  for (unsigned i = 0; i < 4; ++i)
    if (first[i] + count[i] > num_registers)
      d.a.fail(d.ops[i].col, std::string(what[i]) + "'s registers r" + std::to_string(first[i]) + " .. +" +
                                 std::to_string(count[i] - 1) + " within r255", d.ops[i].found());
}

}  // namespace flynn::simt::assembly

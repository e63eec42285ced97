// SIMT kernel assembler and golden interpreter tests: field encoding of every syntax form,
// every class of assembly error (FILE:LINE:COL, expected/found), and the interpreter on the
// documented vecadd kernel, divergence, a shared-memory reduction with barriers, predicates,
// integer and binary32 semantics, conversions, wide accesses and faults.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "flynn/common/bits.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/simt_asm.h"
#include "flynn/platform/simt_interp.h"

using namespace flynn::simt;
using flynn::bits_to_float;
using flynn::float_to_bits;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

kernel as(const std::string& src) { return assemble(src, "t.s"); }

std::string asm_error(const std::string& src) {
  try {
    assemble(src, "t.s");
  } catch (const flynn::input_error& e) {
    return e.what();
  }
  return "(no error)";
}

std::uint32_t word(const std::vector<unsigned char>& m, std::uint64_t addr) {
  std::uint32_t v = 0;
  for (unsigned k = 0; k < 4; ++k) v |= std::uint32_t{m.at(addr + k)} << (8 * k);
  return v;
}

void put(std::vector<unsigned char>& m, std::uint64_t addr, std::uint32_t v) {
  for (unsigned k = 0; k < 4; ++k) m.at(addr + k) = static_cast<unsigned char>(v >> (8 * k));
}

struct run_result {
  kernel k;
  std::vector<unsigned char> mem;
  interp_result r;
};

run_result run(const std::string& src, const launch& l, std::vector<unsigned char> mem,
               interp_config c = {}) {
  run_result out;
  out.k = as(src);
  out.mem = std::move(mem);
  out.r = interpret(out.k, l, out.mem, c);
  return out;
}

struct regs_result {
  std::vector<std::uint32_t> r;  // r[i] is register r(i+1)
  std::vector<unsigned char> mem;
  std::uint64_t instructions = 0;
};

// Runs `body` as a single thread; an epilogue stores r1..rN to global words 0..N-1 (r63
// holds the base address 0). The body must neither use r63 nor exit.
regs_result regs_after(const std::string& body, unsigned n) {
  std::string src = "ldparam r63, 0\n" + body;
  for (unsigned i = 1; i <= n; ++i)
    src += "st.global.32 [r63+" + std::to_string(4 * (i - 1)) + "], r" + std::to_string(i) + "\n";
  launch l;
  l.shared_bytes = 16384;
  l.block = 1;
  l.params = {0};
  regs_result out;
  out.mem.assign(256, 0);
  const interp_result r = interpret(as(src), l, out.mem, {});
  INFO(r.fault);
  REQUIRE(r.ok);
  out.instructions = r.thread_instructions;
  for (unsigned i = 0; i < n; ++i) out.r.push_back(word(out.mem, 4 * i));
  return out;
}

// Number of instructions in a body (one per non-empty line).
std::uint64_t lines(const std::string& body) {
  std::uint64_t n = 0;
  std::istringstream in(body);
  for (std::string s; std::getline(in, s);) n += s.find_first_not_of(" \t") != std::string::npos;
  return n;
}

}  // namespace

// ---- ISA helpers --------------------------------------------------------------------

TEST_CASE("isa: classification and mnemonics") {
  std::set<std::string> names;
  for (unsigned i = 0; i < static_cast<unsigned>(op::count_); ++i)
    names.insert(mnemonic(static_cast<op>(i)));
  CHECK(names.size() == static_cast<std::size_t>(op::count_));
  CHECK(names.count("?") == 0);
  CHECK(std::string(mnemonic(op::and_)) == "and");
  CHECK(std::string(mnemonic(op::or_)) == "or");
  CHECK(std::string(mnemonic(op::xor_)) == "xor");
  CHECK(std::string(mnemonic(op::not_)) == "not");
  CHECK(std::string(mnemonic(op::cvt_f_s)) == "cvt.f.s");
  CHECK(std::string(mnemonic(op::cvt_s_f)) == "cvt.s.f");
  CHECK(std::string(mnemonic(op::bar)) == "bar.sync");
  CHECK(std::string(mnemonic(op::ldparam)) == "ldparam");
  for (unsigned i = 0; i < static_cast<unsigned>(op::count_); ++i) {
    const op o = static_cast<op>(i);
    INFO(mnemonic(o));
    CHECK(is_memory(o) == (o == op::ld || o == op::st || o == op::atom));
    CHECK(is_sfu(o) == (o == op::fdiv || o == op::fsqrt));
  }
}

// ---- assembler: fields --------------------------------------------------------------

TEST_CASE("asm: move and integer instruction fields") {
  const kernel k = as(
      "mov r1, r2\n"                  // 0
      "mov r3, -7\n"                  // 1
      "mov r4, 0xffffffff\n"          // 2
      "mov r5, %tid\n"                // 3
      "MOV R6, %NCTAID\n"             // 4
      "mov r7, 1.5\n"                 // 5
      "mov r8, -2.5e-1\n"             // 6
      "ldparam r9, 3\n"               // 7
      "add r10, r11, r12\n"           // 8
      "sub r13, r14, -2147483648\n"   // 9
      "mad r15, r16, r17, r18\n"      // 10
      "not r19, r20\n"                // 11
      "mulhi r21, r22, 0x10\n"        // 12
      "shl r63, r0, 31\n"             // 13
      "div r1,r2,r3\n"                // 14
      "add r1, r1, 1.0\n"             // 15
      "mov r2, %ctaid\nmov r2, %ntid\nmov r2, %laneid\nmov r2, %warpid\n"  // 16..19
      "rem r1, r2, r3\nmul r1, r2, 4294967295\nand r1, r2, r3\nor r1, r2, 1\n"  // 20..23
      "xor r1, r2, 1\nshr r1, r2, 1\nsra r1, r2, 1\nmin r1, r2, -1\nmax r1, r2, r3\n");  // 24..28
  REQUIRE(k.code.size() == 29);
  CHECK(k.file == "t.s");
  CHECK(k.name == "t");
  const auto& c = k.code;
  CHECK((c[0].code == op::mov && c[0].rd == 1 && c[0].ra == 2 && !c[0].b_imm && c[0].sreg == special::none));
  CHECK((c[1].code == op::mov && c[1].rd == 3 && c[1].b_imm && c[1].imm == -7));
  CHECK((c[2].b_imm && c[2].imm == 0xffffffffLL));
  CHECK((c[3].sreg == special::tid && c[3].rd == 5 && !c[3].b_imm));
  CHECK((c[4].code == op::mov && c[4].sreg == special::nctaid && c[4].rd == 6));
  CHECK((c[5].b_imm && c[5].imm == 0x3fc00000));
  CHECK((c[6].b_imm && c[6].imm == float_to_bits(-0.25f)));
  CHECK((c[7].code == op::ldparam && c[7].rd == 9 && c[7].imm == 3));
  CHECK((c[8].code == op::add && c[8].rd == 10 && c[8].ra == 11 && c[8].rb == 12 && !c[8].b_imm));
  CHECK((c[9].code == op::sub && c[9].rd == 13 && c[9].ra == 14 && c[9].b_imm && c[9].imm == -2147483648LL));
  CHECK((c[10].code == op::mad && c[10].rd == 15 && c[10].ra == 16 && c[10].rb == 17 && c[10].rc == 18));
  CHECK((c[11].code == op::not_ && c[11].rd == 19 && c[11].ra == 20));
  CHECK((c[12].code == op::mulhi && c[12].b_imm && c[12].imm == 16));
  CHECK((c[13].code == op::shl && c[13].rd == 63 && c[13].ra == 0 && c[13].imm == 31));
  CHECK((c[14].code == op::div && c[14].rd == 1 && c[14].ra == 2 && c[14].rb == 3));
  CHECK((c[15].b_imm && c[15].imm == 0x3f800000));
  CHECK(c[16].sreg == special::ctaid);
  CHECK(c[17].sreg == special::ntid);
  CHECK(c[18].sreg == special::laneid);
  CHECK(c[19].sreg == special::warpid);
  const op ops[] = {op::rem, op::mul, op::and_, op::or_, op::xor_, op::shr, op::sra, op::min, op::max};
  for (unsigned i = 0; i < 9; ++i) CHECK(c[20 + i].code == ops[i]);
  CHECK(c[21].imm == 4294967295LL);
  CHECK(c[27].imm == -1);
  for (const auto& in : c) {
    CHECK(in.guard == no_pred);
    CHECK_FALSE(in.guard_neg);
  }
  CHECK(c[5].line == 6);
  CHECK(c[14].text == "div r1,r2,r3");
}

TEST_CASE("asm: float and predicate instruction fields") {
  const kernel k = as(
      "fadd r1, r2, r3\n"              // 0
      "fsub r4, r5, r6\n"              // 1
      "ffma r7, r8, r9, r10\n"         // 2
      "fsqrt r11, r12\n"               // 3
      "fdiv r13, r14, r15\n"           // 4
      "cvt.f.s r16, r17\n"             // 5
      "CVT.S.F r18, r19\n"             // 6
      "setp.eq.s32 p0, r1, r2\n"       // 7
      "setp.ne.u32 p1, r1, 5\n"        // 8
      "setp.lt.f32 p2, r1, 0.5\n"      // 9
      "setp.le.s32 p3, r1, r2\n"       // 10
      "SETP.GT.U32 P4, r1, r2\n"       // 11
      "setp.ge.f32 p7, r1, r2\n"       // 12
      "selp r20, r21, r22, p5\n"       // 13
      "selp r23, r24, -1, p6\n"        // 14
      "fmin r1, r2, r3\n"              // 15
      "fmax r4, r5, r6\n"              // 16
      "fmul r7, r8, r9\n");            // 17
  REQUIRE(k.code.size() == 18);
  const auto& c = k.code;
  CHECK((c[0].code == op::fadd && c[0].rd == 1 && c[0].ra == 2 && c[0].rb == 3 && !c[0].b_imm));
  CHECK((c[1].code == op::fsub && c[1].rd == 4));
  CHECK((c[2].code == op::ffma && c[2].rd == 7 && c[2].ra == 8 && c[2].rb == 9 && c[2].rc == 10));
  CHECK((c[3].code == op::fsqrt && c[3].rd == 11 && c[3].ra == 12));
  CHECK((c[4].code == op::fdiv && c[4].rd == 13 && c[4].ra == 14 && c[4].rb == 15));
  CHECK((c[5].code == op::cvt_f_s && c[5].rd == 16 && c[5].ra == 17));
  CHECK((c[6].code == op::cvt_s_f && c[6].rd == 18 && c[6].ra == 19));
  CHECK((c[7].code == op::setp && c[7].cond == cmp::eq && c[7].ty == type::s32 && c[7].rd == 0 &&
         c[7].ra == 1 && c[7].rb == 2 && !c[7].b_imm));
  CHECK((c[8].cond == cmp::ne && c[8].ty == type::u32 && c[8].rd == 1 && c[8].b_imm && c[8].imm == 5));
  CHECK((c[9].cond == cmp::lt && c[9].ty == type::f32 && c[9].rd == 2 && c[9].b_imm && c[9].imm == 0x3f000000));
  CHECK((c[10].cond == cmp::le && c[10].ty == type::s32 && c[10].rd == 3));
  CHECK((c[11].cond == cmp::gt && c[11].ty == type::u32 && c[11].rd == 4));
  CHECK((c[12].cond == cmp::ge && c[12].ty == type::f32 && c[12].rd == 7));
  CHECK((c[13].code == op::selp && c[13].rd == 20 && c[13].ra == 21 && c[13].rb == 22 && c[13].rc == 5 &&
         !c[13].b_imm));
  CHECK((c[14].rd == 23 && c[14].ra == 24 && c[14].b_imm && c[14].imm == -1 && c[14].rc == 6));
  CHECK((c[15].code == op::fmin && c[15].rb == 3));
  CHECK((c[16].code == op::fmax && c[16].rd == 4));
  CHECK(c[17].code == op::fmul);
  CHECK(c[6].text == "CVT.S.F r18, r19");
}

TEST_CASE("asm: memory and control fields with guards and labels") {
  const kernel k = as(
      "start: ld.global.32 r1, [r2]\n"        // 0
      "ld.shared.64 r4, [r3+8]\n"             // 1
      "ld.global.128 r8, [r5-16]\n"           // 2
      "st.shared.32 [r6+0x20], r7\n"          // 3
      "st.global.64 [r9], r62\n"              // 4
      "St.Global.128 [ r9 + 4 ], r60\n"       // 5
      "@p1 bra done\n"                        // 6
      "@!p7 bra start\n"                      // 7
      "  @ ! p2 exit ; comment\n"             // 8
      "bar.sync // comment\n"                 // 9
      "\tBAR.SYNC\n"                          // 10
      "nop\n"                                 // 11
      "a: b:\n"
      "done: exit\n"                          // 12
      "x: @p0 bra end\n"                      // 13
      "end:\n");
  REQUIRE(k.code.size() == 14);
  const auto& c = k.code;
  CHECK((c[0].code == op::ld && c[0].sp == space::global && c[0].width == 4 && c[0].rd == 1 &&
         c[0].ra == 2 && c[0].imm == 0));
  CHECK((c[1].code == op::ld && c[1].sp == space::shared && c[1].width == 8 && c[1].rd == 4 &&
         c[1].ra == 3 && c[1].imm == 8));
  CHECK((c[2].width == 16 && c[2].rd == 8 && c[2].ra == 5 && c[2].imm == -16));
  CHECK((c[3].code == op::st && c[3].sp == space::shared && c[3].width == 4 && c[3].ra == 6 &&
         c[3].imm == 32 && c[3].rb == 7));
  CHECK((c[4].code == op::st && c[4].sp == space::global && c[4].width == 8 && c[4].rb == 62));
  CHECK((c[5].width == 16 && c[5].ra == 9 && c[5].imm == 4 && c[5].rb == 60));
  CHECK((c[6].code == op::bra && c[6].target == 12 && c[6].guard == 1 && !c[6].guard_neg));
  CHECK((c[7].code == op::bra && c[7].target == 0 && c[7].guard == 7 && c[7].guard_neg));
  CHECK((c[8].code == op::exit && c[8].guard == 2 && c[8].guard_neg));
  CHECK(c[8].text == "@ ! p2 exit");
  CHECK(c[8].line == 9);
  CHECK((c[9].code == op::bar && c[9].guard == no_pred));
  CHECK(c[9].text == "bar.sync");
  CHECK(c[10].code == op::bar);
  CHECK(c[11].code == op::nop);
  CHECK((c[12].code == op::exit && c[12].line == 14));
  CHECK((c[13].target == 14 && c[13].guard == 0));  // a label at the end of the kernel
  CHECK(c[13].text == "@p0 bra end");
  CHECK(c[0].text == "ld.global.32 r1, [r2]");
}

TEST_CASE("asm: kernel names and files") {
  CHECK(as("exit\n").name == "t");
  CHECK(assemble("exit\n", "dir/sub/vecadd.s").name == "vecadd");
  CHECK(assemble("exit\n", "dir/sub/vecadd.s").file == "dir/sub/vecadd.s");
  const kernel k = as("; header\n.kernel my_kernel\nexit\n");
  CHECK(k.name == "my_kernel");
  CHECK(k.code.size() == 1);
  CHECK(as("exit\n.KERNEL K2 ; late\n").name == "K2");

  const std::string path = "simt_asm_test_tmp_kernel.s";
  {
    std::ofstream f(path);
    f << "mov r1, %tid\nexit\n";
  }
  const kernel fk = assemble_file(path);
  std::remove(path.c_str());
  CHECK(fk.file == path);
  CHECK(fk.name == "simt_asm_test_tmp_kernel");
  CHECK(fk.code.size() == 2);
  CHECK_THROWS_WITH(assemble_file("/nonexistent/k.s"),
                    "/nonexistent/k.s: expected a kernel file (SIMT assembly), found nothing (no such file)");
  CHECK_THROWS_AS(assemble_file("/nonexistent/k.s"), flynn::input_error);
  CHECK_THROWS_WITH(assemble_file("/"),
                    "/: expected a kernel file (SIMT assembly), found a directory (only regular files are read)");
}

TEST_CASE("asm: .rept N ... .endr repeats its lines N times, blocks nest, lines keep their numbers") {
  const kernel k = as(".kernel r\nmov r1, 0\n.rept 3 ; thrice\nadd r1, r1, 1\n  .REPT 2\nadd r1, r1, 10\n  .endr\n"
                      ".endr\n.rept 0\nadd r1, r1, 100\n.endr\nexit\n");
  REQUIRE(k.code.size() == 11);  // mov, 3 x (add, 2 x add), exit
  CHECK(k.code[1].line == 4);
  CHECK(k.code[2].line == 6);
  CHECK(k.code[3].line == 6);
  CHECK(k.code[4].line == 4);
  CHECK(k.code[10].line == 12);
  CHECK(k.code[10].code == op::exit);
  // A label inside a repeated block is defined once per repetition: an error at its line.
  CHECK(asm_error("exit\n.rept 2\nl: exit\n.endr\n") ==
        "t.s:3:1: expected a new label name ('l' is already defined at line 3), found 'l'");
}

// ---- assembler: errors --------------------------------------------------------------

TEST_CASE("asm errors: unknown mnemonic with a suggestion") {
  CHECK(asm_error("exit\n  faddd r1, r2, r3\n") ==
        "t.s:2:3: expected an instruction mnemonic (did you mean 'fadd'?), found 'faddd'");
  CHECK(asm_error("barsync\n") == "t.s:1:1: expected an instruction mnemonic (did you mean 'bar.sync'?), found 'barsync'");
  CHECK(asm_error("cvt.fs r1, r2\n") == "t.s:1:4: expected a conversion cvt.f.s or cvt.s.f, found '.fs'");
  CHECK(asm_error("frobnicate r1\n") == "t.s:1:1: expected an instruction mnemonic, found 'frobnicate'");
  CHECK(asm_error("exit\n5\n") == "t.s:2:1: expected an instruction, a directive or a label, found '5'");
  CHECK(asm_error("ldparm r1, 0\n") ==
        "t.s:1:1: expected an instruction mnemonic (did you mean 'ldparam'?), found 'ldparm'");
}

TEST_CASE("asm errors: operand count") {
  CHECK(asm_error("add r1, r2\n") == "t.s:1:1: expected 3 operands (add rd, ra, rb|imm), found 2");
  CHECK(asm_error("mov r1, r2, r3\n") == "t.s:1:13: expected 2 operands (mov rd, ra|imm|%sreg), found 3");
  CHECK(asm_error("exit r1\n") == "t.s:1:6: expected no operands (exit), found 1");
  CHECK(asm_error("bar.sync 1\n") == "t.s:1:10: expected no operands (bar.sync), found 1");
  CHECK(asm_error("setp.lt.s32 p1, r2\n") ==
        "t.s:1:1: expected 3 operands (setp.CMP.TYPE pd, ra, rb|imm), found 2");
  CHECK(asm_error("ld.global.32 r1\n") == "t.s:1:1: expected 2 operands (ld.SPACE.W rd, [ra+imm]), found 1");
  CHECK(asm_error("st.shared.64 [r2]\n") == "t.s:1:1: expected 2 operands (st.SPACE.W [ra+imm], rb), found 1");
  CHECK(asm_error("cvt.s.f r1, r2, r3\n") == "t.s:1:17: expected 2 operands (cvt.s.f rd, ra), found 3");
  CHECK(asm_error("selp r1, r2, r3\n") == "t.s:1:1: expected 4 operands (selp rd, ra|imm, rb|imm, pa), found 3");
  CHECK(asm_error("ffma r1, r2, r3\n") == "t.s:1:1: expected 4 operands (ffma rd, ra, rb, rc), found 3");
  CHECK(asm_error("bra\n") == "t.s:1:1: expected 1 operand (bra label), found 0");
  CHECK(asm_error("add r1, , r2\n") == "t.s:1:9: expected a general register r0..r255, found ','");
  CHECK(asm_error("add r1, r2,\n") == "t.s:1:12: expected a general register r0..r255 or an immediate, found end of line");
}

TEST_CASE("asm errors: registers and predicates and special registers") {
  CHECK(asm_error("mov r256, 1\n") == "t.s:1:5: expected a general register r0..r255, found 'r256'");
  CHECK(asm_error("add r1, r01, r2\n") == "t.s:1:9: expected a general register r0..r255, found 'r01'");
  CHECK(asm_error("setp.eq.s32 r1, r2, r3\n") == "t.s:1:13: expected a predicate p0..p7, found 'r1'");
  CHECK(asm_error("selp r1, r2, r3, p8\n") == "t.s:1:18: expected a predicate p0..p7, found 'p8'");
  CHECK(asm_error("add r1, %tid, 1\n") ==
        "t.s:1:9: expected a general register r0..r255 (special registers are read with mov), found '%tid'");
  CHECK(asm_error("add r1, r2, %tid\n") ==
        "t.s:1:13: expected a general register r0..r255 or an immediate (special registers are read with mov), found '%tid'");
  CHECK(asm_error("mov r1, %tidd\n") ==
        "t.s:1:9: expected a special register %tid, %ntid, %ctaid, %nctaid (each also .x, .y, .z), %laneid or %warpid "
        "(did you mean '%tid'?), found '%tidd'");
  CHECK(asm_error("mov r1, x\n") ==
        "t.s:1:9: expected a general register r0..r255, a special register (%tid, %ntid, %ctaid, "
        "%nctaid (each also .x, .y, .z), %laneid or %warpid) or an immediate, found 'x'");
  CHECK(asm_error("mov %tid, r1\n") ==
        "t.s:1:5: expected a general register r0..r255 (special registers are read with mov), found '%tid'");
  CHECK(asm_error("fadd r1, r2, 4\n") == "t.s:1:14: expected a general register r0..r255, found '4'");
  CHECK(asm_error("ld.global.32 r1, r2\n") ==
        "t.s:1:18: expected a memory operand [rN+imm], [rN-imm], [rN], [rN:rN+1+imm] or [imm], found 'r2'");
  CHECK(asm_error("ld.global.32 r1, [p2]\n") == "t.s:1:19: expected a general register r0..r255, found 'p2'");
  CHECK(asm_error("ld.global.32 r1, [r2*4]\n") ==
        "t.s:1:21: expected a memory operand [rN+imm], [rN-imm], [rN], [rN:rN+1+imm] or [imm], found '[r2*4]'");
  CHECK(asm_error("st.global.32 [r1], 5\n") == "t.s:1:20: expected a general register r0..r255, found '5'");
  CHECK(asm_error("bra r1\n") == "t.s:1:5: expected a branch target (a label), found 'r1'");
}

TEST_CASE("asm errors: immediates") {
  const std::string imm = "a 32-bit integer (decimal or 0x hex) or a binary32 number";
  CHECK(asm_error("mov r1, 4294967296\n") == "t.s:1:9: expected " + imm + ", found '4294967296'");
  CHECK(asm_error("mov r1, -2147483649\n") == "t.s:1:9: expected " + imm + ", found '-2147483649'");
  CHECK(asm_error("add r1, r2, 12abc\n") == "t.s:1:13: expected " + imm + ", found '12abc'");
  CHECK(asm_error("mov r1, 0x\n") == "t.s:1:9: expected " + imm + ", found '0x'");
  CHECK(asm_error("mov r1, 1e40\n") == "t.s:1:9: expected " + imm + ", found '1e40'");
  CHECK(asm_error("mov r1, 1.5x\n") == "t.s:1:9: expected " + imm + ", found '1.5x'");
  CHECK(asm_error("mov r1, 5 5\n") == "t.s:1:9: expected " + imm + ", found '5 5'");
  CHECK(asm_error("setp.lt.f32 p0, r1, -x\n") == "t.s:1:21: expected " + imm + ", found '-x'");
  CHECK(asm_error("ld.global.32 r1, [r2+0x100000000]\n") ==
        "t.s:1:22: expected a 32-bit integer (decimal or 0x hex), found '0x100000000'");
  CHECK(asm_error("ld.global.32 r1, [r2-1.5]\n") ==
        "t.s:1:22: expected a 32-bit integer (decimal or 0x hex), found '1.5'");
  CHECK(asm_error("ld.global.32 r1, [r2+r3]\n") == "t.s:1:22: expected an integer offset, found 'r3'");
  CHECK(asm_error("ldparam r1, -1\n") == "t.s:1:13: expected a parameter index (an integer 0..4294967295), found '-1'");
  CHECK(asm_error("ldparam r1, r2\n") == "t.s:1:13: expected a parameter index (an integer 0..4294967295), found 'r2'");
  CHECK(asm_error("mov r1, 1e-46\n") == "t.s:1:9: expected " + imm + ", found '1e-46'");  // rounds to 0
  CHECK(asm_error("mov r1, 3.5e38\n") == "t.s:1:9: expected " + imm + ", found '3.5e38'");  // to infinity
  CHECK(asm_error("mov r1, .5\n") ==
        "t.s:1:9: expected a general register r0..r255, a special register (%tid, %ntid, %ctaid, "
        "%nctaid (each also .x, .y, .z), %laneid or %warpid) or an immediate, found '.5'");
  // The extremes are accepted.
  CHECK(as("mov r1, 1e-45\n").code[0].imm == 1);
  CHECK(as("mov r1, 3.4028235e38\n").code[0].imm == 0x7f7fffff);
  CHECK(as("mov r1, -1E2\n").code[0].imm == float_to_bits(-100.0f));
  CHECK(as("mov r1, -2147483648\nmov r1, 4294967295\nmov r1, -0x80000000\n").code.size() == 3);
  CHECK(as("ld.global.32 r1, [r2-2147483648]\nld.global.32 r1, [r2+0xffffffff]\n").code[1].imm == 0xffffffffLL);
}

TEST_CASE("asm errors: suffixes") {
  CHECK(asm_error("setp p0, r1, r2\n") ==
        "t.s:1:1: expected a comparison and type suffix (setp.CMP.TYPE: CMP eq, ne, lt, le, gt or ge; "
        "TYPE s32, u32 or f32), found 'setp'");
  CHECK(asm_error("setp.lq.s32 p0, r1, r2\n") ==
        "t.s:1:5: expected a comparison .eq, .ne, .lt, .le, .gt or .ge, found '.lq'");
  CHECK(asm_error("setp.lt p0, r1, r2\n") ==
        "t.s:1:1: expected a type suffix .s32, .u32 or .f32 after the comparison, found 'setp.lt'");
  CHECK(asm_error("setp.lt.s64 p0, r1, r2\n") == "t.s:1:8: expected a type .s32, .u32 or .f32, found '.s64'");
  CHECK(asm_error("setp.lt.s32.x p0, r1, r2\n") ==
        "t.s:1:12: expected end of the mnemonic (setp.CMP.TYPE), found '.x'");
  CHECK(asm_error("ld r1, [r2]\n") ==
        "t.s:1:1: expected a space and width suffix (ld.SPACE.W: SPACE global or shared; W 32, 64 or 128), found 'ld'");
  CHECK(asm_error("st.local.32 [r1], r2\n") == "t.s:1:3: expected a memory space .global or .shared, found '.local'");
  CHECK(asm_error("ld.global r1, [r2]\n") ==
        "t.s:1:1: expected a width suffix .8, .16, .32, .64 or .128 after the space, found 'ld.global'");
  CHECK(asm_error("ld.shared.24 r1, [r2]\n") == "t.s:1:10: expected an access width .8, .s8, .16, .s16, .32, .64 or .128, found '.24'");
  CHECK(asm_error("st.shared.32.v r1, [r2]\n") == "t.s:1:13: expected end of the mnemonic (st.SPACE.W), found '.v'");
  CHECK(asm_error("add.s32 r1, r2, r3\n") ==
        "t.s:1:4: expected no suffix (only setp, ld, st, cvt, cvt64, mul.wide, plogic, logic64, elect, ldparam and bar take suffixes), found '.s32'");
  CHECK(asm_error("cvt r1, r2\n") == "t.s:1:1: expected a conversion cvt.f.s or cvt.s.f, found 'cvt'");
  CHECK(asm_error("cvt.f.f r1, r2\n") == "t.s:1:4: expected a conversion cvt.f.s or cvt.s.f, found '.f.f'");
  CHECK(asm_error("bar\n") == "t.s:1:1: expected bar.sync, found 'bar'");
  CHECK(asm_error("bar.wait\n") == "t.s:1:4: expected bar.sync, found '.wait'");
  CHECK_THAT(asm_error("exit.x\n"), StartsWith("t.s:1:5: expected no suffix") && Contains("found '.x'"));
}

TEST_CASE("asm errors: register groups of wide accesses") {
  CHECK(asm_error("ld.global.64 r5, [r0]\n") ==
        "t.s:1:14: expected an even register r0, r2, .., r254 (a 64-bit access uses rN, rN+1), found 'r5'");
  CHECK(asm_error("ld.shared.128 r6, [r0]\n") ==
        "t.s:1:15: expected a register that is a multiple of 4: r0, r4, .., r252 (a 128-bit access uses "
        "rN..rN+3), found 'r6'");
  CHECK_THAT(asm_error("st.global.64 [r0], r63\n"), StartsWith("t.s:1:20: expected an even register") &&
                                                         Contains("found 'r63'"));
  CHECK_THAT(asm_error("st.global.128 [r0], r62\n"),
             StartsWith("t.s:1:21: expected a register that is a multiple of 4") && Contains("found 'r62'"));
  const kernel k = as("ld.global.128 r60, [r0]\nst.global.64 [r0], r62\nld.shared.64 r0, [r1]\n");
  CHECK(k.code[0].rd == 60);
  CHECK(k.code[1].rb == 62);
}

TEST_CASE("asm errors: labels") {
  CHECK(asm_error("exit\n  bra nowhere\n") == "t.s:2:7: expected a defined label, found 'nowhere'");
  CHECK(asm_error("loop: @p0 bra lop\n") == "t.s:1:15: expected a defined label (did you mean 'loop'?), found 'lop'");
  CHECK(asm_error("a: exit\nb: exit\n  a: exit\n") ==
        "t.s:3:3: expected a new label name ('a' is already defined at line 1), found 'a'");
  CHECK(asm_error("r3: exit\n") == "t.s:1:1: expected a label name that is not a register or predicate name, found 'r3'");
  CHECK(asm_error("p0: exit\n") == "t.s:1:1: expected a label name that is not a register or predicate name, found 'p0'");
  CHECK(asm_error("%x: exit\n") ==
        "t.s:1:1: expected a label name (a letter or '_', then letters, digits or '_'), found '%x'");
  CHECK(asm_error("exit\nEnd:\nbra end\n") == "t.s:3:5: expected a defined label (did you mean 'End'?), found 'end'");
}

TEST_CASE("asm errors: guards and directives") {
  CHECK(asm_error("@p8 exit\n") == "t.s:1:2: expected a guard predicate p0..p7, found 'p8'");
  CHECK(asm_error("@r1 exit\n") == "t.s:1:2: expected a guard predicate p0..p7, found 'r1'");
  CHECK(asm_error("@p1\n") == "t.s:1:4: expected an instruction after the guard, found end of line");
  CHECK(asm_error("@\n") == "t.s:1:2: expected a guard predicate p0..p7, found end of line");
  CHECK(asm_error("@p1 .kernel x\n") ==
        "t.s:1:5: expected an instruction mnemonic (directives cannot be guarded), found '.kernel'");
  CHECK(asm_error("@p1 5\n") == "t.s:1:5: expected an instruction mnemonic, found '5'");
  CHECK(asm_error(".kernal foo\nexit\n") ==
        "t.s:1:1: expected a directive (.kernel) (did you mean '.kernel'?), found '.kernal'");
  CHECK(asm_error(".kernel\nexit\n") ==
        "t.s:1:8: expected a kernel name (a letter or '_', then letters, digits or '_'), found end of line");
  CHECK(asm_error(".kernel a b\nexit\n") ==
        "t.s:1:9: expected a kernel name (a letter or '_', then letters, digits or '_'), found 'a b'");
  CHECK(asm_error(".kernel a, b\nexit\n") == "t.s:1:12: expected end of line (.kernel NAME), found 'b'");
  CHECK_THAT(asm_error(".kernel 9x\nexit\n"), StartsWith("t.s:1:9: expected a kernel name") && Contains("found '9x'"));
  CHECK(asm_error(".kernel a\n.kernel b\nexit\n") ==
        "t.s:2:1: expected one .kernel directive (the kernel is named 'a' at line 1), found '.kernel'");
}

TEST_CASE("asm errors: .rept blocks") {
  CHECK(asm_error("exit\n.rept\nexit\n.endr\n") == "t.s:2:6: expected a repeat count 0 to 1000000 (.rept N), found end of line");
  CHECK(asm_error("exit\n.rept r1\n.endr\n") == "t.s:2:7: expected a repeat count 0 to 1000000 (.rept N), found 'r1'");
  CHECK(asm_error("exit\n.rept 2000000\n.endr\n") ==
        "t.s:2:7: expected a repeat count 0 to 1000000 (.rept N), found '2000000'");
  CHECK(asm_error("exit\n.rept 2 3\n.endr\n") == "t.s:2:9: expected end of line (.rept N), found '3'");
  CHECK(asm_error("exit\n.endr\n") ==
        "t.s:2:1: expected an instruction or a directive (this .endr closes no .rept), found '.endr'");
  CHECK(asm_error("exit\n.rept 2\n.endr now\n") == "t.s:3:7: expected end of line (.endr), found 'now'");
  CHECK(asm_error("exit\nl: .rept 2\nexit\n.endr\n") ==
        "t.s:2:1: expected .rept on a line of its own (a label goes on the line before), found 'l:'");
  CHECK(asm_error("exit\n.rept 2\n.rept 3\nexit\n.endr\n") ==
        "t.s:6:1: expected a .endr closing the .rept of line 2, found end of file");
  // Repetitions that would make more lines than a kernel file may: refused, not run.
  CHECK_THAT(asm_error("exit\n.rept 1000\n.rept 1000\n.rept 1000\nadd r1, r1, 1\n.endr\n.endr\n.endr\n"),
             StartsWith("t.s:5:1: expected at most 1000000 lines with the .rept blocks repeated, found more"));
}

TEST_CASE("asm errors: empty kernel") {
  CHECK(asm_error("") == "t.s:1:1: expected at least one instruction, found none");
  CHECK(asm_error("; only a comment\n\nstart:\n") == "t.s:1:1: expected at least one instruction, found none");
  CHECK(asm_error(".kernel k\n") == "t.s:1:1: expected at least one instruction, found none");
}

// ---- interpreter --------------------------------------------------------------------

TEST_CASE("interp: the documented vecadd kernel over three blocks") {
  // The example of docs/isa/simt.md, so that the documentation stays runnable.
  std::ifstream doc(std::string(FLYNN_SOURCE_DIR) + "/docs/isa/simt.md");
  REQUIRE(doc);
  std::stringstream text;
  text << doc.rdbuf();
  const std::string md = text.str();
  const std::size_t open = md.find("```asm\n");
  REQUIRE(open != std::string::npos);
  const std::size_t close = md.find("```", open + 7);
  REQUIRE(close != std::string::npos);
  const kernel k = assemble(md.substr(open + 7, close - open - 7), "docs/isa/simt.md");
  CHECK(k.name == "vecadd");
  REQUIRE(k.code.size() == 19);

  const unsigned n = 70;
  const std::uint32_t a = 0, b = 4 * n, c = 8 * n;
  std::vector<unsigned char> mem(1024, 0);
  for (unsigned i = 0; i < n; ++i) {
    put(mem, a + 4 * i, 3 * i + 1);
    put(mem, b + 4 * i, 1000 - 7 * i);
  }
  put(mem, c + 4 * n, 0x5a5a5a5a);  // just past C: untouched
  launch l;
  l.shared_bytes = 16384;
  l.grid = 3;
  l.block = 32;
  l.params = {n, a, b, c};
  const interp_result r = interpret(k, l, mem, {});
  INFO(r.fault);
  REQUIRE(r.ok);
  for (unsigned i = 0; i < n; ++i) {
    INFO("element " << i);
    CHECK(word(mem, c + 4 * i) == (3 * i + 1) + (1000 - 7 * i));
  }
  CHECK(word(mem, c + 4 * n) == 0x5a5a5a5a);
  // 70 threads run 19 instructions (the guarded-off exit included), 26 stop after 7.
  CHECK(r.thread_instructions == 70 * 19 + 26 * 7);
}

TEST_CASE("interp: divergent if else and loops") {
  launch l;
  l.shared_bytes = 16384;
  l.block = 32;
  l.params = {0};
  const auto x = run(
      "        mov r0, %tid\n"
      "        and r1, r0, 1\n"
      "        setp.ne.s32 p0, r1, 0\n"
      "  @!p0  bra even\n"
      "        mul r2, r0, 3\n"       // odd: 3 * tid
      "        bra join\n"
      "even:   add r2, r0, 100\n"     // even: tid + 100
      "join:   add r2, r2, 1\n"
      "        shl r3, r0, 2\n"
      "        ldparam r4, 0\n"
      "        add r3, r3, r4\n"
      "        st.global.32 [r3], r2\n",
      l, std::vector<unsigned char>(128, 0));
  INFO(x.r.fault);
  REQUIRE(x.r.ok);
  for (unsigned t = 0; t < 32; ++t) {
    INFO("thread " << t);
    CHECK(word(x.mem, 4 * t) == (t % 2 ? 3 * t : t + 100) + 1);
  }
  CHECK(x.r.thread_instructions == 16 * 11 + 16 * 10);

  // Per-thread trip counts: thread t sums 0 .. t-1.
  const auto y = run(
      "        mov r0, %tid\n"
      "loop:   setp.ge.s32 p1, r6, r0\n"
      "   @p1  bra done\n"
      "        add r5, r5, r6\n"
      "        add r6, r6, 1\n"
      "        bra loop\n"
      "done:   shl r3, r0, 2\n"
      "        st.global.32 [r3], r5\n"
      "        exit\n",
      l, std::vector<unsigned char>(128, 0));
  INFO(y.r.fault);
  REQUIRE(y.r.ok);
  std::uint64_t expect = 0;
  for (unsigned t = 0; t < 32; ++t) {
    INFO("thread " << t);
    CHECK(word(y.mem, 4 * t) == t * (t - 1) / 2);
    expect += 1 + 5 * t + 2 + 3;
  }
  CHECK(y.r.thread_instructions == expect);
}

TEST_CASE("interp: shared memory tree reduction with bar.sync") {
  const std::string src =
      ".kernel reduce\n"
      "        mov r0, %tid\n"
      "        mov r1, %ctaid\n"
      "        mov r2, %ntid\n"
      "        mad r3, r1, r2, r0\n"      // global index
      "        shl r3, r3, 2\n"
      "        ldparam r4, 0\n"           // input
      "        add r3, r3, r4\n"
      "        ld.global.32 r5, [r3]\n"
      "        shl r6, r0, 2\n"           // shared offset of this thread
      "        st.shared.32 [r6], r5\n"
      "        bar.sync\n"
      "        shr r7, r2, 1\n"           // stride = ntid / 2
      "loop:   setp.lt.u32 p0, r0, r7\n"
      "  @!p0  bra skip\n"
      "        shl r8, r7, 2\n"
      "        add r8, r6, r8\n"
      "        ld.shared.32 r9, [r8]\n"
      "        ld.shared.32 r10, [r6]\n"
      "        add r10, r10, r9\n"
      "        st.shared.32 [r6], r10\n"
      "skip:   bar.sync\n"
      "        shr r7, r7, 1\n"
      "        setp.ne.s32 p1, r7, 0\n"
      "   @p1  bra loop\n"
      "        setp.ne.s32 p2, r0, 0\n"
      "   @p2  exit\n"
      "        ld.shared.32 r11, [r6]\n"
      "        ldparam r12, 1\n"          // output
      "        shl r13, r1, 2\n"
      "        add r12, r12, r13\n"
      "        st.global.32 [r12], r11\n"
      "        exit\n";
  std::vector<unsigned char> mem(1024, 0);
  std::uint32_t sums[2] = {0, 0};
  for (unsigned i = 0; i < 128; ++i) {
    put(mem, 4 * i, i * i + 1);
    sums[i / 64] += i * i + 1;
  }
  launch l;
  l.shared_bytes = 16384;
  l.grid = 2;
  l.block = 64;
  l.params = {0, 768};
  const auto x = run(src, l, mem);
  INFO(x.r.fault);
  REQUIRE(x.r.ok);
  CHECK(x.k.name == "reduce");
  CHECK(word(x.mem, 768) == sums[0]);
  CHECK(word(x.mem, 772) == sums[1]);
  CHECK(word(x.mem, 776) == 0);
}

TEST_CASE("interp: shared memory is per block and starts at zero") {
  const std::string src =
      "mov r1, %ctaid\n"
      "ldparam r2, 0\n"
      "shl r3, r1, 2\n"
      "add r3, r3, r2\n"
      "mov r4, 4096\n"
      "ld.shared.32 r5, [r4]\n"
      "st.global.32 [r3], r5\n"
      "add r6, r1, 1\n"
      "st.shared.32 [r4], r6\n";
  launch l;
  l.shared_bytes = 16384;
  l.grid = 3;
  l.block = 1;
  l.params = {0};
  l.shared_bytes = 8192;
  std::vector<unsigned char> mem(16, 0xff);
  const auto x = run(src, l, mem);
  INFO(x.r.fault);
  REQUIRE(x.r.ok);
  for (unsigned b = 0; b < 3; ++b) CHECK(word(x.mem, 4 * b) == 0);
  CHECK(word(x.mem, 12) == 0xffffffffu);

  l.shared_bytes = 4096;
  const auto y = run(src, l, mem);
  CHECK_FALSE(y.r.ok);
  CHECK(y.r.fault == "block 0 thread 0 PC 5 (6: ld.shared.32 r5, [r4]): out-of-range shared address 0x1000");
}

TEST_CASE("interp: special registers") {
  const std::string src =
      "ldparam r10, 0\n"
      "mov r1, %tid\n"
      "mov r2, %ntid\n"
      "mov r3, %ctaid\n"
      "mov r4, %nctaid\n"
      "mov r5, %laneid\n"
      "mov r6, %warpid\n"
      "mad r7, r3, r2, r1\n"
      "mul r7, r7, 24\n"
      "add r7, r7, r10\n"
      "st.global.32 [r7], r1\n"
      "st.global.32 [r7+4], r2\n"
      "st.global.64 [r7+8], r4\n"   // %nctaid, %laneid
      "st.global.32 [r7+16], r6\n"
      "st.global.32 [r7+20], r3\n";
  launch l;
  l.shared_bytes = 16384;
  l.grid = 2;
  l.block = 40;
  l.params = {0};
  interp_config c;
  c.warp_size = 16;
  const auto x = run(src, l, std::vector<unsigned char>(2 * 40 * 24, 0), c);
  INFO(x.r.fault);
  REQUIRE(x.r.ok);
  for (unsigned b = 0; b < 2; ++b) {
    for (unsigned t = 0; t < 40; ++t) {
      INFO("block " << b << " thread " << t);
      const std::uint64_t base = (b * 40 + t) * 24;
      CHECK(word(x.mem, base) == t);
      CHECK(word(x.mem, base + 4) == 40);
      CHECK(word(x.mem, base + 8) == 2);
      CHECK(word(x.mem, base + 12) == t % 16);
      CHECK(word(x.mem, base + 16) == t / 16);
      CHECK(word(x.mem, base + 20) == b);
    }
  }
}

TEST_CASE("interp: predicated execution and selp") {
  const std::string body =
      "mov r1, -1\n"
      "mov r2, 1\n"
      "setp.lt.s32 p1, r1, r2\n"        // true
      "setp.lt.u32 p2, r1, r2\n"        // false
      "mov r3, 0x7fc00000\n"            // NaN
      "setp.eq.f32 p3, r3, r3\n"        // false
      "setp.ne.f32 p4, r3, r3\n"        // true
      "mov r4, -0.0\n"
      "setp.eq.f32 p5, r4, 0.0\n"       // true: -0 == +0
      "@p1 mov r5, 11\n"
      "@!p1 mov r6, 12\n"
      "@p2 mov r7, 13\n"
      "@!p2 mov r8, 14\n"
      "selp r9, r2, 99, p3\n"
      "selp r10, r2, 99, p4\n"
      "@p5 mov r11, 1\n"
      "setp.ge.f32 p6, r3, 0.0\n"       // false: NaN
      "selp r12, r2, 7, p6\n"
      "setp.le.u32 p7, r1, 0xffffffff\n"  // true
      "selp r13, r2, 7, p7\n"
      "setp.gt.s32 p0, r2, -5\n"        // true
      "selp r14, r2, r1, p0\n"
      "setp.lt.f32 p0, r1, r2\n"        // NaN (0xffffffff) < 1.4e-45: false
      "@p0 mov r15, 1\n"
      "@!p4 st.global.32 [r63+100], r2\n"  // guarded off: no store
      "@!p4 bar.sync\n"                 // guarded off: no wait
      "@!p4 exit\n"                     // guarded off: no exit
      "@!p4 bra nowhere\n"
      "@p4 bra next\n"
      "mov r15, 99\n"                   // skipped
      "next: nop\n"
      "nowhere:\n";
  const auto x = regs_after(body, 15);
  const std::vector<std::uint32_t> want = {0xffffffffu, 1, 0x7fc00000u, 0x80000000u, 11, 0, 0, 14,
                                           99, 1, 1, 7, 1, 1, 0};
  CHECK(x.r == want);
  CHECK(word(x.mem, 100) == 0);
  // Every instruction is reached once (guarded-off ones included) except the skipped mov;
  // the last line is a label; ldparam and 15 stores surround the body.
  CHECK(x.instructions == lines(body) - 2 + 1 + 15);
}

TEST_CASE("interp: integer semantics") {
  const auto x = regs_after(
      "mov r1, 0x7fffffff\nadd r1, r1, 1\n"            // wraps to 0x80000000
      "mov r2, 5\nsub r2, r2, 7\n"                     // -2
      "mov r3, 0x10000\nmul r3, r3, r3\n"              // 2^32 wraps to 0
      "mov r4, -3\nmulhi r4, r4, 0x40000000\n"         // high word of -3 * 2^30: -1
      "mov r5, 7\nmov r6, 6\nmov r7, 100\nmad r5, r5, r6, r7\n"  // 142
      "mov r8, -7\ndiv r8, r8, 2\n"                    // -3 (toward zero)
      "mov r9, -7\nrem r9, r9, 2\n"                    // -1
      "mov r10, 9\ndiv r10, r10, 0\n"                  // x / 0 = 0
      "mov r11, 9\nrem r11, r11, 0\n"                  // x % 0 = x
      "mov r12, 0x80000000\ndiv r12, r12, -1\n"        // INT_MIN / -1 = INT_MIN
      "mov r13, 0x80000000\nrem r13, r13, -1\n"        // INT_MIN % -1 = 0
      "mov r14, 1\nshl r14, r14, 33\n"                 // shift mod 32: 2
      "mov r15, -16\nshr r15, r15, 28\n"               // logical: 0xf
      "mov r16, -16\nsra r16, r16, 2\n"                // -4
      "mov r17, 0x0f0f\nnot r17, r17\n"                // 0xfffff0f0
      "mov r18, -1\nmin r18, r18, 1\n"                 // -1 (signed)
      "mov r19, -1\nmax r19, r19, 1\n"                 // 1
      "mov r20, 0xff00ff00\nand r20, r20, 0x0ff0\n"    // 0x0f00
      "mov r21, 0xf0\nor r21, r21, 0x0f\n"             // 0xff
      "mov r22, 0xff\nxor r22, r22, -1\n"              // 0xffffff00
      "mov r23, 1\nmov r24, 32\nshl r23, r23, r24\n"   // register shift amount mod 32: 1
      "mov r24, 0x7fffffff\nmulhi r24, r24, r24\n"     // (2^31-1)^2 >> 32 = 0x3fffffff
      "mov r25, -5\nrem r25, r25, -3\n"                // -2
      "mov r26, 7\ndiv r26, r26, -2\n"                 // -3
      "mov r27, -1\nsra r27, r27, 31\n"                // -1
      "mov r28, 0x80000000\nsra r28, r28, 0\n"         // unchanged
      "mov r29, 0x80000000\nmulhi r29, r29, r29\n"     // 2^62 >> 32 = 0x40000000
      "mov r30, 3\nmul r30, r30, -1\n",                // -3
      30);
  const std::vector<std::uint32_t> want = {
      0x80000000u, 0xfffffffeu, 0, 0xffffffffu, 142, 6, 100, 0xfffffffdu, 0xffffffffu, 0,
      9, 0x80000000u, 0, 2, 0xf, 0xfffffffcu, 0xfffff0f0u, 0xffffffffu, 1, 0x0f00,
      0xff, 0xffffff00u, 1, 0x3fffffffu, 0xfffffffeu, 0xfffffffdu, 0xffffffffu, 0x80000000u,
      0x40000000u, 0xfffffffdu};
  CHECK(x.r == want);
}

TEST_CASE("interp: binary32 arithmetic and ffma single rounding") {
  const auto x = regs_after(
      "mov r1, 0.1\nmov r2, 0.2\nfadd r3, r1, r2\n"
      "fsub r4, r1, r2\n"
      "fmul r5, r1, r2\n"
      "mov r6, 1.0\nmov r7, 3.0\nfdiv r8, r6, r7\n"
      "mov r9, 2.0\nfsqrt r10, r9\n"
      // a = 1 + 2^-12: a * a = 1 + 2^-11 + 2^-24 rounds (tie to even) to 1 + 2^-11.
      "mov r11, 0x3f800800\nmov r12, 0xbf801000\n"   // r12 = -(1 + 2^-11)
      "fmul r13, r11, r11\nfadd r13, r13, r12\n"     // two roundings: 0
      "ffma r14, r11, r11, r12\n"                    // one rounding: 2^-24
      "mov r15, 0x7fc00000\nfmin r16, r15, r9\n"     // NaN ignored: 2
      "fmax r17, r9, r15\n"                          // 2
      "fmin r18, r6, r9\n"                           // 1
      "fmax r19, r6, r9\n"                           // 2
      "fdiv r20, r6, r0\n"                           // 1 / 0 = +inf
      "mov r21, -1.0\nfsqrt r21, r21\n"              // NaN
      "mov r22, 1e-30\nmov r23, 1e-10\nfmul r22, r22, r23\n"  // subnormal, not flushed
      "mov r24, -0.0\nfadd r25, r24, r0\n"           // -0 + +0 = +0
      "mov r26, 16777216.0\nmov r27, 1.0\nfadd r26, r26, r27\n",  // 2^24 + 1 rounds to 2^24
      27);
  volatile float p1 = 0.1f, p2 = 0.2f;
  CHECK(x.r[2] == float_to_bits(p1 + p2));
  CHECK(x.r[2] == 0x3e99999au);
  CHECK(x.r[3] == float_to_bits(p1 - p2));
  CHECK(x.r[4] == float_to_bits(p1 * p2));
  CHECK(x.r[7] == 0x3eaaaaabu);   // 1/3
  CHECK(x.r[9] == 0x3fb504f3u);   // sqrt(2)
  CHECK(x.r[12] == 0);
  CHECK(x.r[13] == 0x33800000u);  // 2^-24
  CHECK(x.r[15] == float_to_bits(2.0f));
  CHECK(x.r[16] == float_to_bits(2.0f));
  CHECK(x.r[17] == float_to_bits(1.0f));
  CHECK(x.r[18] == float_to_bits(2.0f));
  CHECK(x.r[19] == 0x7f800000u);
  CHECK(std::isnan(bits_to_float(x.r[20])));
  volatile float t1 = 1e-30f, t2 = 1e-10f;
  CHECK(x.r[21] == float_to_bits(t1 * t2));
  CHECK(x.r[21] != 0);
  CHECK(std::fpclassify(bits_to_float(x.r[21])) == FP_SUBNORMAL);
  CHECK(x.r[23] == 0x80000000u);
  CHECK(x.r[24] == 0);
  CHECK(x.r[25] == float_to_bits(16777216.0f));
}

TEST_CASE("interp: cvt edge cases") {
  const auto x = regs_after(
      "mov r1, 16777217\ncvt.f.s r1, r1\n"       // tie: rounds to even 16777216
      "mov r2, 16777219\ncvt.f.s r2, r2\n"       // tie: rounds to even 16777220
      "mov r3, 0x80000000\ncvt.f.s r3, r3\n"     // -2^31
      "mov r4, 0x7fffffff\ncvt.f.s r4, r4\n"     // 2^31 (rounded up)
      "mov r5, -1\ncvt.f.s r5, r5\n"
      "mov r6, 2.9\ncvt.s.f r6, r6\n"            // 2
      "mov r7, -2.9\ncvt.s.f r7, r7\n"           // -2
      "mov r8, 3e9\ncvt.s.f r8, r8\n"            // saturates
      "mov r9, -3e9\ncvt.s.f r9, r9\n"
      "mov r10, 0x7fc00000\ncvt.s.f r10, r10\n"  // NaN -> 0
      "mov r11, 0x7f800000\ncvt.s.f r11, r11\n"  // +inf
      "mov r12, 0xff800000\ncvt.s.f r12, r12\n"  // -inf
      "mov r13, 2147483520.0\ncvt.s.f r13, r13\n"  // largest float below 2^31
      "mov r14, -2147483648.0\ncvt.s.f r14, r14\n"
      "mov r15, -0.5\ncvt.s.f r15, r15\n"        // 0
      "mov r16, 0xffc00001\ncvt.s.f r16, r16\n"  // negative NaN -> 0
      "mov r17, 2147483648.0\ncvt.s.f r17, r17\n"  // 2^31 saturates
      "mov r18, 0x00000001\ncvt.s.f r18, r18\n",  // smallest subnormal -> 0
      18);
  const std::vector<std::uint32_t> want = {
      float_to_bits(16777216.0f), float_to_bits(16777220.0f), 0xcf000000u, 0x4f000000u, float_to_bits(-1.0f), 2,
      0xfffffffeu,
      0x7fffffffu, 0x80000000u, 0, 0x7fffffffu, 0x80000000u, 2147483520u, 0x80000000u, 0, 0,
      0x7fffffffu, 0};
  CHECK(x.r == want);
}

TEST_CASE("interp: wide loads and stores") {
  std::vector<unsigned char> mem(128, 0);
  for (unsigned i = 0; i < 64; ++i) mem[i] = static_cast<unsigned char>(i);
  launch l;
  l.shared_bytes = 16384;
  l.block = 1;
  const auto x = run(
      "ld.global.128 r4, [r0+16]\n"   // words at 16, 20, 24, 28
      "ld.global.64 r8, [r0+8]\n"     // words at 8, 12
      "ld.global.32 r10, [r0+4]\n"
      "st.shared.128 [r0+32], r4\n"
      "ld.shared.64 r12, [r0+40]\n"   // r6, r7
      "st.global.64 [r0+64], r12\n"
      "st.global.128 [r0+80], r8\n",  // r8..r11 (r11 = 0)
      l, mem);
  INFO(x.r.fault);
  REQUIRE(x.r.ok);
  CHECK(word(x.mem, 4) == 0x07060504u);
  CHECK(word(x.mem, 64) == word(x.mem, 24));
  CHECK(word(x.mem, 68) == word(x.mem, 28));
  CHECK(word(x.mem, 80) == word(x.mem, 8));
  CHECK(word(x.mem, 84) == word(x.mem, 12));
  CHECK(word(x.mem, 88) == 0x07060504u);
  CHECK(word(x.mem, 92) == 0);
  CHECK(x.r.thread_instructions == 7);
}

TEST_CASE("interp faults: misaligned and out of range accesses") {
  // Block 1 thread 3 (global index 7) stores to a misaligned address; the others store to 0.
  launch l;
  l.shared_bytes = 16384;
  l.grid = 2;
  l.block = 4;
  const auto x = run(
      "mov r0, %tid\n"
      "mov r1, %ctaid\n"
      "shl r2, r1, 2\n"
      "add r2, r2, r0\n"
      "setp.eq.s32 p0, r2, 7\n"
      "@p0 add r3, r3, 2\n"
      "st.global.32 [r3], r2\n",
      l, std::vector<unsigned char>(64, 0));
  CHECK_FALSE(x.r.ok);
  CHECK(x.r.fault == "block 1 thread 3 PC 6 (7: st.global.32 [r3], r2): misaligned global address 0x2");
  CHECK(word(x.mem, 0) == 6);   // the last store before the fault
  CHECK(x.r.thread_instructions == 4 * 7 + 3 * 7 + 6);

  launch one;
  one.block = 1;
  one.shared_bytes = 16384;
  const std::vector<unsigned char> mem(64, 0);
  auto fault = [&](const std::string& src) {
    auto r = run(src, one, mem);
    CHECK(r.mem == mem);  // a faulting instruction has no effect
    return r.r.ok ? std::string("(no fault)") : r.r.fault;
  };
  CHECK(fault("ld.global.64 r2, [r1+4]\n") ==
        "block 0 thread 0 PC 0 (1: ld.global.64 r2, [r1+4]): misaligned global address 0x4");
  CHECK(fault("ld.global.128 r4, [r1+8]\n") ==
        "block 0 thread 0 PC 0 (1: ld.global.128 r4, [r1+8]): misaligned global address 0x8");
  CHECK(fault("ld.global.32 r2, [r1+64]\n") ==
        "block 0 thread 0 PC 0 (1: ld.global.32 r2, [r1+64]): out-of-range global address 0x40");
  CHECK(fault("ld.global.128 r4, [r1+48]\nst.global.128 [r1+64], r4\n") ==
        "block 0 thread 0 PC 1 (2: st.global.128 [r1+64], r4): out-of-range global address 0x40");
  CHECK(fault("st.shared.32 [r1+16384], r1\n") ==
        "block 0 thread 0 PC 0 (1: st.shared.32 [r1+16384], r1): out-of-range shared address 0x4000");
  CHECK(fault("st.shared.32 [r1-4], r1\n") ==
        "block 0 thread 0 PC 0 (1: st.shared.32 [r1-4], r1): out-of-range shared address 0xfffffffc");
  CHECK(fault("st.shared.32 [r1+16382], r1\n") ==
        "block 0 thread 0 PC 0 (1: st.shared.32 [r1+16382], r1): misaligned shared address 0x3ffe");
  CHECK(fault("st.shared.32 [r1+16380], r1\nld.global.128 r0, [r1+48]\n") == "(no fault)");
}

TEST_CASE("interp faults: barrier deadlock names the warps") {
  launch l;
  l.shared_bytes = 16384;
  l.block = 64;
  const std::vector<unsigned char> mem(16, 0);
  const auto a = run(
      "mov r0, %tid\n"
      "setp.ge.s32 p0, r0, 32\n"
      "@p0 exit\n"
      "bar.sync\n"
      "exit\n",
      l, mem);
  CHECK_FALSE(a.r.ok);
  CHECK(a.r.fault ==
        "block 0: barrier deadlock: threads of warp 0 wait at PC 3 (4: bar.sync) but threads of warp 1 have exited");

  interp_config c16;
  c16.warp_size = 16;
  const auto b = run(
      "mov r0, %tid\n"
      "and r1, r0, 1\n"
      "setp.eq.s32 p0, r1, 1\n"
      "@p0 bra out\n"
      "bar.sync\n"
      "out: exit\n",
      l, mem, c16);
  CHECK_FALSE(b.r.ok);
  CHECK(b.r.fault ==
        "block 0: barrier deadlock: threads of warps 0, 1, 2, 3 wait at PC 4 (5: bar.sync) but threads of "
        "warps 0, 1, 2, 3 have exited");

  // Barriers are unnamed: even and odd threads meet at different bar.sync instructions.
  // Block 0 passes; in block 1 thread 5 exits first, which deadlocks both groups.
  launch g;
  g.shared_bytes = 16384;
  g.grid = 2;
  g.block = 32;
  const auto c = run(
      "mov r0, %tid\n"
      "mov r1, %ctaid\n"
      "mul r2, r1, 1000\n"
      "add r2, r2, r0\n"
      "setp.eq.s32 p0, r2, 1005\n"
      "@p0 exit\n"
      "and r3, r0, 1\n"
      "setp.eq.s32 p1, r3, 0\n"
      "@p1 bra even\n"
      "bar.sync\n"
      "exit\n"
      "even: bar.sync\n"
      "exit\n",
      g, mem);
  CHECK_FALSE(c.r.ok);
  CHECK(c.r.fault ==
        "block 1: barrier deadlock: threads of warp 0 wait at PC 9 (10: bar.sync) and threads of warp 0 "
        "wait at PC 11 (12: bar.sync) but threads of warp 0 have exited");
  // Block 0 ran to completion (11 instructions a thread); in block 1, thread 5 exited after 6
  // and the others reached their bar.sync after 10.
  CHECK(c.r.thread_instructions == 32 * 11 + 31 * 10 + 6);
}

TEST_CASE("interp faults: runaway kernel") {
  launch l;
  l.shared_bytes = 16384;
  l.block = 2;
  std::vector<unsigned char> mem(16, 0);
  interp_config c;
  c.max_instructions = 1000;
  const auto x = run("nop\nloop: bra loop\n", l, mem, c);
  CHECK_FALSE(x.r.ok);
  CHECK(x.r.fault == "runaway kernel: more than 1000 instructions (block 0 thread 0 PC 1 (2: bra loop))");
  CHECK(x.r.thread_instructions == 1000);

  // Exactly at the limit is fine.
  c.max_instructions = 4;
  const auto y = run("nop\nexit\n", l, mem, c);
  CHECK(y.r.ok);
  CHECK(y.r.thread_instructions == 4);
  c.max_instructions = 3;
  const auto z = run("nop\nexit\n", l, mem, c);
  CHECK_FALSE(z.r.ok);
  CHECK_THAT(z.r.fault, StartsWith("runaway kernel: more than 3 instructions (block 0 thread 1 PC 1"));
}

TEST_CASE("interp faults: ldparam out of range") {
  launch l;
  l.shared_bytes = 16384;
  l.block = 1;
  l.params = {7};
  std::vector<unsigned char> mem(16, 0);
  const auto x = run("ldparam r1, 0\nldparam r2, 1\n", l, mem);
  CHECK_FALSE(x.r.ok);
  CHECK(x.r.fault == "block 0 thread 0 PC 1 (2: ldparam r2, 1): parameter 1 beyond the 1 kernel parameters");
  CHECK(x.r.thread_instructions == 1);
  l.params.clear();
  const auto y = run("@p0 ldparam r1, 0\nldparam r1, 0\n", l, mem);  // guarded off: no fault
  CHECK(y.r.fault == "block 0 thread 0 PC 1 (2: ldparam r1, 0): parameter 0 beyond the 0 kernel parameters");
}

TEST_CASE("interp faults: malformed instructions and launches") {
  kernel k;
  instr in;
  in.code = op::wgmma;
  in.mma_n = 256;
  in.rd = 200;
  in.line = 1;
  in.text = "wgmma.m64n256k16.f32.bf16 r200, r0, r2, 1";
  k.code.push_back(in);
  std::vector<unsigned char> mem(16, 0);
  launch l;
  l.shared_bytes = 16384;
  auto r = interpret(k, l, mem, {});
  CHECK_FALSE(r.ok);
  CHECK(r.fault == "PC 0 (1: wgmma.m64n256k16.f32.bf16 r200, r0, r2, 1): invalid instruction: register group beyond r255");
  CHECK(r.thread_instructions == 0);

  k.code[0] = instr();
  k.code[0].code = op::bra;
  k.code[0].target = 2;
  r = interpret(k, l, mem, {});
  CHECK_THAT(r.fault, Contains("invalid instruction: branch target beyond the kernel"));

  k.code[0] = instr();
  k.code[0].code = op::ld;
  k.code[0].width = 8;
  k.code[0].rd = 255;
  r = interpret(k, l, mem, {});
  CHECK_THAT(r.fault, Contains("invalid instruction: register group beyond r255"));

  k.code[0] = instr();  // nop
  interp_config no_warps;
  no_warps.warp_size = 0;
  r = interpret(k, l, mem, no_warps);
  CHECK(r.fault == "invalid launch: warp size 0");
  l.grid = 0;
  r = interpret(k, l, mem, {});
  CHECK(r.ok);
  CHECK(r.thread_instructions == 0);
}

TEST_CASE("asm: ld.global.cg is a global load cached at the global level only") {
  const kernel k = as("ld.global.cg.32 r1, [r2]\nld.global.64 r4, [r2]\nld.global.cg.s8 r3, [r2+4]\nexit\n");
  CHECK(k.code[0].cg);
  CHECK(k.code[0].width == 4);
  CHECK_FALSE(k.code[1].cg);
  CHECK(k.code[2].cg);
  CHECK(k.code[2].sign);
  // Only loads from global memory take it.
  CHECK_THAT(asm_error("st.global.cg.32 [r2], r1\n"), Contains("access width"));
  CHECK_THAT(asm_error("ld.shared.cg.32 r1, [r2]\n"), Contains("access width"));
  CHECK_THAT(asm_error("ld.global.cg r1, [r2]\n"), Contains("width suffix"));
}

TEST_CASE("asm: mma.sync.aligned.m16n8k16 fields and errors") {
  const kernel k = as("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r12, r0, r4, r8\n"
                      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 r16, r0, r4, r16\n");
  CHECK(k.code[0].code == op::mma_sync);
  CHECK(k.code[0].mma_type == flynn::element_type::f16);
  CHECK((k.code[0].rd == 12 && k.code[0].ra == 0 && k.code[0].rb == 4 && k.code[0].rc == 8));
  CHECK(k.code[1].mma_type == flynn::element_type::bf16);
  CHECK(std::string(mnemonic(op::mma_sync)) == "mma.sync");
  CHECK(asm_error("mma.sync.m16n8k16.row.col.f32.f16.f16.f32 r12, r0, r4, r8\n") ==
        "t.s:1:9: expected .aligned (the form mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32, TYPE f16 or bf16), "
        "found '.m16n8k16'");
  CHECK(asm_error("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 r12, r0, r4, r8\n") ==
        "t.s:1:17: expected .m16n8k16 (the form mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32, TYPE f16 or "
        "bf16), found '.m16n8k8'");
  CHECK(asm_error("mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 r12, r0, r4, r8\n") ==
        "t.s:1:38: expected A's type .f16 or .bf16 (m16n8k16 takes 16-bit inputs), found '.tf32'");
  CHECK(asm_error("mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32 r12, r0, r4, r8\n") ==
        "t.s:1:42: expected B's type .f16 (the same as A's), found '.bf16'");
  CHECK(asm_error("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 r12, r0, r4, r8\n") ==
        "t.s:1:46: expected C's type .f32, found '.f16'");
  CHECK(asm_error("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.x r12, r0, r4, r8\n") ==
        "t.s:1:50: expected end of the mnemonic (mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32), found '.x'");
  CHECK(asm_error("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r253, r0, r4, r8\n") ==
        "t.s:1:51: expected D's registers r253 .. +3 within r255, found 'r253'");
  CHECK(asm_error("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r12, r0, r255, r8\n") ==
        "t.s:1:60: expected B's registers r255 .. +1 within r255, found 'r255'");
  CHECK_THAT(asm_error("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r12, r0, r4\n"),
             StartsWith("t.s:1:1: expected 4 operands"));
}

TEST_CASE("interp: mma.sync takes its fragments in the PTX layout (small integers, exact)") {
  // A[i][k] = i - k, B[k][j] = k + 2 j (column-major in memory), C[i][j] = 100 i + j, all
  // exact in f16 and fp32: D = A B + C is known in closed form. Each lane loads its fragments
  // from global memory (the layout of scenarios/gmma/kernels/mma_sync.s) and stores D.
  std::vector<unsigned char> mem(8192, 0);
  auto half = [](int v) { return flynn::from_f32(flynn::element_type::f16, float(v)); };
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 16; ++k) {
      const std::uint16_t h = half(i - k);
      std::memcpy(&mem[std::size_t(i * 32 + k * 2)], &h, 2);
    }
  for (int j = 0; j < 8; ++j)
    for (int k = 0; k < 16; ++k) {
      const std::uint16_t h = half(k + 2 * j);
      std::memcpy(&mem[std::size_t(512 + j * 32 + k * 2)], &h, 2);
    }
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      const float c = float(100 * i + j);
      std::memcpy(&mem[std::size_t(1024 + (i * 8 + j) * 4)], &c, 4);
    }
  const std::string src =
      "mov r201, %laneid\n shr r204, r201, 2\n and r205, r201, 3\n shl r206, r204, 5\n shl r207, r205, 2\n"
      " add r208, r206, r207\n ld.global.32 r0, [r208+0]\n ld.global.32 r1, [r208+256]\n ld.global.32 r2, [r208+16]\n"
      " ld.global.32 r3, [r208+272]\n ld.global.32 r4, [r208+512]\n ld.global.32 r5, [r208+528]\n shl r209, r205, 3\n"
      " add r209, r206, r209\n ld.global.32 r8, [r209+1024]\n ld.global.32 r9, [r209+1028]\n"
      " ld.global.32 r10, [r209+1280]\n ld.global.32 r11, [r209+1284]\n"
      " mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r12, r0, r4, r8\n"
      " shl r210, r201, 4\n st.global.32 [r210+4096], r12\n st.global.32 [r210+4100], r13\n"
      " st.global.32 [r210+4104], r14\n st.global.32 [r210+4108], r15\n exit\n";
  launch l;
  l.grid = 1;
  l.block = 32;
  const run_result r = run(src, l, mem);
  REQUIRE(r.r.ok);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned q = 0; q < 4; ++q) {
      const int i = int(lane / 4 + 8 * (q / 2)), j = int(2 * (lane % 4) + q % 2);
      int sum = 100 * i + j;
      for (int k = 0; k < 16; ++k) sum += (i - k) * (k + 2 * j);
      float got = 0;
      const std::uint32_t bits = word(r.mem, 4096 + 16 * lane + 4 * q);
      std::memcpy(&got, &bits, 4);
      INFO("lane " << lane << " register " << q);
      CHECK(got == float(sum));
    }
}

TEST_CASE("interp faults: mma.sync needs the whole warp") {
  launch l;
  l.grid = 1;
  l.block = 32;
  const run_result r = run("mov r1, %laneid\n setp.lt.s32 p0, r1, 16\n @p0 exit\n"
                           " mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r12, r0, r4, r8\n exit\n",
                           l, std::vector<unsigned char>(64, 0));
  CHECK_FALSE(r.r.ok);
  CHECK_THAT(r.r.fault, Contains("mma.sync needs all 32 threads of the warp"));
}

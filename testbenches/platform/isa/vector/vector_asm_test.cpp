// Vector machine assembler and golden interpreter tests: field encoding of every syntax
// form, labels and data, every class of assembly error (FILE:LINE:COL, expected/found), and
// the interpreter on the lecture's average loops, masks, gather/scatter, strip mining,
// packed SIMD and faults.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "flynn/common/bits.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/vector_asm.h"
#include "flynn/platform/vector_interp.h"

using namespace flynn::vec;
using flynn::double_to_bits;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

program as(const std::string& src) { return assemble(src, "t.s"); }

std::string asm_error(const std::string& src) {
  try {
    assemble(src, "t.s");
  } catch (const flynn::input_error& e) {
    return e.what();
  }
  return "(no error)";
}

// Memory of `bytes` bytes with the program's data loaded.
std::vector<unsigned char> memory_for(const program& p, std::size_t bytes = 1 << 16) {
  std::vector<unsigned char> m(bytes, 0);
  for (const auto& b : p.data)
    for (std::size_t i = 0; i < b.words.size(); ++i)
      for (unsigned k = 0; k < 8; ++k)
        m.at(b.address + 8 * i + k) = static_cast<unsigned char>(b.words[i] >> (8 * k));
  return m;
}

std::uint64_t word(const std::vector<unsigned char>& m, std::uint64_t addr) {
  std::uint64_t v = 0;
  for (unsigned k = 0; k < 8; ++k) v |= std::uint64_t{m.at(addr + k)} << (8 * k);
  return v;
}

std::uint64_t sym(const program& p, const std::string& name) {
  std::uint64_t a = 0;
  REQUIRE(p.find_symbol(name, a));
  return a;
}

struct run_result {
  program p;
  std::vector<unsigned char> mem;
  interp_result r;
};

run_result run(const std::string& src, interp_config c = {}, std::size_t bytes = 1 << 16) {
  run_result out;
  out.p = as(src);
  out.mem = memory_for(out.p, bytes);
  out.r = interpret(out.p, out.mem, c);
  return out;
}

// The lecture's 50-element arrays A, B and result C.
std::string average_data() {
  std::ostringstream s;
  s << ".data 0x100\nA: .word";
  for (int i = 0; i < 50; ++i) s << (i ? ", " : " ") << 3 * i + 1;
  s << "\nB: .word";
  for (int i = 0; i < 50; ++i) s << (i ? ", " : " ") << 1000 - 7 * i;
  s << "\nC: .space 50\nEND: .word 0x5a5a\n";
  return s.str();
}

void check_average(const run_result& x) {
  const std::uint64_t c = sym(x.p, "C");
  for (int i = 0; i < 50; ++i) {
    INFO("element " << i);
    CHECK(word(x.mem, c + 8 * static_cast<unsigned>(i)) ==
          static_cast<std::uint64_t>((3 * i + 1 + 1000 - 7 * i) >> 1));
  }
  CHECK(word(x.mem, sym(x.p, "END")) == 0x5a5a);
}

}  // namespace

// ---- ISA helpers --------------------------------------------------------------------

TEST_CASE("isa: classification and mnemonics") {
  std::set<std::string> names;
  for (unsigned i = 0; i < static_cast<unsigned>(op::count_); ++i) names.insert(mnemonic(static_cast<op>(i)));
  CHECK(names.size() == static_cast<std::size_t>(op::count_));
  CHECK(std::string(mnemonic(op::and_)) == "and");
  CHECK(std::string(mnemonic(op::or_)) == "or");
  CHECK(std::string(mnemonic(op::xor_)) == "xor");
  CHECK(std::string(mnemonic(op::pmaddwd)) == "pmaddwd");

  for (op o : {op::setvl, op::setvs, op::vmset, op::vmnot, op::vmpop, op::vld, op::vst, op::vldx,
               op::vstx, op::vadd, op::vdiv, op::vsra, op::vfmul, op::vcmpeq, op::vcmpgt})
    CHECK(is_vector(o));
  for (op o : {op::li, op::add, op::ld, op::st, op::dbnz, op::halt, op::padd, op::pmaddwd, op::fadd})
    CHECK_FALSE(is_vector(o));
  for (op o : {op::vld, op::vst, op::vldx, op::vstx}) CHECK(is_vector_memory(o));
  CHECK_FALSE(is_vector_memory(op::ld));
  CHECK_FALSE(is_vector_memory(op::vadd));
  CHECK(is_scalar_memory(op::ld));
  CHECK(is_scalar_memory(op::st));
  CHECK_FALSE(is_scalar_memory(op::vld));
  for (op o : {op::dbnz, op::beqz, op::bnez, op::br}) CHECK(is_branch(o));
  CHECK_FALSE(is_branch(op::halt));

  program p;
  p.symbols = {{"A", 8}, {"B", 16}};
  std::uint64_t a = 0;
  CHECK(p.find_symbol("B", a));
  CHECK(a == 16);
  CHECK_FALSE(p.find_symbol("C", a));
}

// ---- assembler: fields --------------------------------------------------------------

TEST_CASE("asm: scalar instruction fields") {
  const program p = as(
      "li r1, -42\n"            // 0
      "li r2, 0xff\n"           // 1
      "mov r3, r2\n"            // 2
      "add r4, r3, r2\n"        // 3
      "sub r5, r4, 7\n"         // 4
      "and r6, r5, -1\n"        // 5
      "fmul r7, r6, r5\n"       // 6
      "ld r8, [r1+16]\n"        // 7
      "ld r9, [r1-8]\n"         // 8
      "ld r10, [r1]\n"          // 9
      "ld r11, [r1]+\n"         // 10
      "st [r2+24], r3\n"        // 11
      "st [r2]+, r4\n"          // 12
      "slt r12, r1, r2\n"       // 13
      "seq r13, r1, 5\n"        // 14
      "shl r14, r1, 3\n"        // 15
      "halt\n");                // 16
  REQUIRE(p.code.size() == 17);
  CHECK(p.file == "t.s");
  const auto& c = p.code;
  CHECK((c[0].code == op::li && c[0].rd == 1 && c[0].imm == -42));
  CHECK(c[1].imm == 255);
  CHECK((c[2].code == op::mov && c[2].rd == 3 && c[2].ra == 2));
  CHECK((c[3].code == op::add && c[3].rd == 4 && c[3].ra == 3 && c[3].rb == 2 && c[3].kind == src2::reg));
  CHECK((c[4].code == op::sub && c[4].kind == src2::imm && c[4].imm == 7));
  CHECK((c[5].code == op::and_ && c[5].imm == -1));
  CHECK((c[6].code == op::fmul && c[6].rd == 7 && c[6].ra == 6 && c[6].rb == 5));
  CHECK((c[7].code == op::ld && c[7].rd == 8 && c[7].ra == 1 && c[7].imm == 16 && !c[7].post_inc));
  CHECK((c[8].ra == 1 && c[8].imm == -8));
  CHECK((c[9].ra == 1 && c[9].imm == 0 && !c[9].post_inc));
  CHECK((c[10].rd == 11 && c[10].ra == 1 && c[10].imm == 0 && c[10].post_inc));
  CHECK((c[11].code == op::st && c[11].ra == 2 && c[11].imm == 24 && c[11].rb == 3));
  CHECK((c[12].code == op::st && c[12].ra == 2 && c[12].rb == 4 && c[12].post_inc));
  CHECK((c[13].code == op::slt && c[13].kind == src2::reg));
  CHECK((c[14].code == op::seq && c[14].kind == src2::imm && c[14].imm == 5));
  CHECK(c[15].code == op::shl);
  CHECK(c[16].code == op::halt);
  for (std::size_t i = 0; i < c.size(); ++i) CHECK(c[i].line == i + 1);
  CHECK(c[10].text == "ld r11, [r1]+");
}

TEST_CASE("asm: vector instruction fields") {
  const program p = as(
      ".data\n"
      "A: .space 4\n"
      "B: .space 4\n"
      ".text\n"
      "setvl 50\n"                 // 0
      "setvl r3\n"                 // 1
      "setvl r4, r5\n"             // 2
      "setvs -2\n"                 // 3
      "setvs r6\n"                 // 4
      "vmset\n"                    // 5
      "vmnot\n"                    // 6
      "vmpop r7\n"                 // 7
      "vld v1, [r2+8]\n"           // 8
      "vld v2, B\n"                // 9
      "vst [r3], v4\n"             // 10
      "vst A+16, v5\n"             // 11
      "vldx v6, [r1], v7\n"        // 12
      "vstx [r1+8], v2, v3\n"      // 13
      "vadd v1, v2, v3\n"          // 14
      "vmul v1, v2, r9\n"          // 15
      "vshr v3, v2, 1\n"           // 16
      "vadd.m v1, v2, v3\n"        // 17
      "vld.m v0, [r1]\n"           // 18
      "vcmplt v1, v2\n"            // 19
      "vcmpeq v1, r2\n"            // 20
      "vcmpgt v1, -5\n"            // 21
      "vfadd v1, v2, r3\n"         // 22
      "vstx.m B, v1, v2\n");       // 23
  const auto& c = p.code;
  REQUIRE(c.size() == 24);
  CHECK((c[0].code == op::setvl && c[0].kind == src2::imm && c[0].imm == 50 && !c[0].has_rd));
  CHECK((c[1].kind == src2::reg && c[1].ra == 3 && !c[1].has_rd));
  CHECK((c[2].has_rd && c[2].rd == 4 && c[2].ra == 5));
  CHECK((c[3].code == op::setvs && c[3].kind == src2::imm && c[3].imm == -2));
  CHECK((c[4].code == op::setvs && c[4].kind == src2::reg && c[4].ra == 6));
  CHECK(c[5].code == op::vmset);
  CHECK(c[6].code == op::vmnot);
  CHECK((c[7].code == op::vmpop && c[7].rd == 7));
  CHECK((c[8].code == op::vld && c[8].rd == 1 && c[8].ra == 2 && c[8].imm == 8));
  CHECK((c[9].code == op::vld && c[9].rd == 2 && c[9].ra == no_reg && c[9].imm == 32));
  CHECK((c[10].code == op::vst && c[10].ra == 3 && c[10].imm == 0 && c[10].rb == 4));
  CHECK((c[11].ra == no_reg && c[11].imm == 16 && c[11].rb == 5));
  CHECK((c[12].code == op::vldx && c[12].rd == 6 && c[12].ra == 1 && c[12].rb == 7));
  CHECK((c[13].code == op::vstx && c[13].ra == 1 && c[13].imm == 8 && c[13].rd == 2 && c[13].rb == 3));
  CHECK((c[14].rd == 1 && c[14].ra == 2 && c[14].rb == 3 && c[14].kind == src2::vreg && !c[14].masked));
  CHECK((c[15].kind == src2::reg && c[15].rb == 9));
  CHECK((c[16].kind == src2::imm && c[16].imm == 1));
  CHECK((c[17].code == op::vadd && c[17].masked));
  CHECK((c[18].code == op::vld && c[18].masked));
  CHECK((c[19].code == op::vcmplt && c[19].ra == 1 && c[19].rb == 2 && c[19].kind == src2::vreg));
  CHECK((c[20].kind == src2::reg && c[20].rb == 2));
  CHECK((c[21].kind == src2::imm && c[21].imm == -5));
  CHECK((c[22].code == op::vfadd && c[22].kind == src2::reg));
  CHECK((c[23].code == op::vstx && c[23].masked && c[23].ra == no_reg && c[23].imm == 32));
}

TEST_CASE("asm: packed SIMD fields and widths") {
  const program p = as(
      "padd.b r1, r2, r3\npsub.h r4, r5, r6\npcmpeq.w r7, r8, r9\npcmpgt.B r1, r1, r1\n"
      "pand r1, r2, r3\npandn r4, r5, r6\npor r7, r8, r9\npmaddwd r10, r11, r12\n");
  const auto& c = p.code;
  REQUIRE(c.size() == 8);
  CHECK((c[0].code == op::padd && c[0].width == 8 && c[0].rd == 1 && c[0].ra == 2 && c[0].rb == 3));
  CHECK((c[1].code == op::psub && c[1].width == 16));
  CHECK((c[2].code == op::pcmpeq && c[2].width == 32));
  CHECK((c[3].code == op::pcmpgt && c[3].width == 8));
  CHECK((c[4].code == op::pand && c[4].width == 0));
  CHECK(c[5].code == op::pandn);
  CHECK(c[6].code == op::por);
  CHECK((c[7].code == op::pmaddwd && c[7].rd == 10 && c[7].ra == 11 && c[7].rb == 12));
}

TEST_CASE("asm: labels and forward references with comments and mixed case") {
  const program p = as(
      "; a comment line\n"
      "        li r1, X      // address of X\n"
      "start:  LD R2, [R1]+  ; upper case\n"
      "        BNEZ r2, done\n"
      "        br start\n"
      "done:\n"
      "        ld r3, X+8\n"
      "        ld r4, X - 8\n"
      "end:    halt\n"
      ".data 64\n"
      "X: .word 1, 2\n");
  const auto& c = p.code;
  REQUIRE(c.size() == 7);
  CHECK(c[0].imm == 64);
  CHECK(c[0].text == "li r1, X");
  CHECK(c[0].line == 2);
  CHECK((c[1].code == op::ld && c[1].rd == 2 && c[1].post_inc));
  CHECK(c[1].text == "LD R2, [R1]+");
  CHECK((c[2].code == op::bnez && c[2].target == 4));
  CHECK((c[3].code == op::br && c[3].target == 1));
  CHECK((c[4].ra == no_reg && c[4].imm == 72));
  CHECK(c[5].imm == 56);
  CHECK(c[6].line == 9);
  // Text labels are not data symbols.
  REQUIRE(p.symbols.size() == 1);
  CHECK(p.symbols[0] == std::make_pair(std::string("X"), std::uint64_t{64}));
}

TEST_CASE("asm: data directives and blocks and symbol addresses") {
  const program p = as(
      ".data\n"
      "A: .word 1, -1, 0x10\n"
      "D: .double 3.14, -2.5e3\n"
      "S: .space 2\n"
      "E:\n"
      ".data 0x200\n"
      "F: .word 7\n"
      ".text\n"
      "halt\n"
      ".data\n"
      "G: .word 9\n");
  REQUIRE(p.data.size() == 2);
  CHECK(p.data[0].address == 0);
  CHECK(p.data[0].words ==
        std::vector<std::uint64_t>{1, ~std::uint64_t{0}, 16, double_to_bits(3.14), double_to_bits(-2500.0), 0, 0});
  CHECK(p.data[1].address == 0x200);
  CHECK(p.data[1].words == std::vector<std::uint64_t>{7, 9});
  const std::vector<std::pair<std::string, std::uint64_t>> want = {
      {"A", 0}, {"D", 24}, {"S", 40}, {"E", 56}, {"F", 0x200}, {"G", 0x208}};
  CHECK(p.symbols == want);
  CHECK(sym(p, "E") == 56);
}

TEST_CASE("asm: .rept N ... .endr repeats instructions and data lines") {
  const program p = as("li r1, 0\n.rept 4\nadd r1, r1, r1\n.endr\nhalt\n.data\nT:\n.rept 3\n.word 7\n.endr\n");
  REQUIRE(p.code.size() == 6);
  CHECK(p.code[4].line == 3);
  REQUIRE(p.data.size() == 1);
  CHECK(p.data[0].words == std::vector<std::uint64_t>{7, 7, 7});
}

TEST_CASE("asm: assemble_file reads a file and reports unreadable ones") {
  const std::string path = "vector_asm_test_tmp.s";
  {
    std::ofstream f(path);
    f << "li r1, 5\nhalt\n";
  }
  const program p = assemble_file(path);
  std::remove(path.c_str());
  CHECK(p.file == path);
  CHECK(p.code.size() == 2);
  CHECK_THROWS_WITH(assemble_file("/nonexistent/x.s"),
                    "/nonexistent/x.s: expected a program file (vector assembly), found nothing (no such file)");
  CHECK_THROWS_WITH(assemble_file("/dev/zero"),
                    "/dev/zero: expected a program file (vector assembly), found a character device (only regular "
                    "files are read)");
  CHECK_THROWS_AS(assemble_file("/nonexistent/x.s"), flynn::input_error);
}

// ---- assembler: errors --------------------------------------------------------------

TEST_CASE("asm errors: unknown mnemonic with a suggestion") {
  CHECK(asm_error("halt\n  vaddd v1, v2, v3\n") ==
        "t.s:2:3: expected an instruction mnemonic (did you mean 'vadd'?), found 'vaddd'");
  CHECK(asm_error("frobnicate r1\n") == "t.s:1:1: expected an instruction mnemonic, found 'frobnicate'");
  CHECK_THAT(asm_error(".wrd 1\n"), StartsWith("t.s:1:1: expected a directive") &&
                                        Contains("did you mean '.word'?") && Contains("found '.wrd'"));
  CHECK(asm_error("halt\n5\n") == "t.s:2:1: expected an instruction, a directive or a label, found '5'");
}

TEST_CASE("asm errors: operand count") {
  CHECK(asm_error("add r1, r2\n") == "t.s:1:1: expected 3 operands (add rd, ra, rb|imm), found 2");
  CHECK(asm_error("mov r1, r2, r3\n") == "t.s:1:13: expected 2 operands (mov rd, ra), found 3");
  CHECK(asm_error("halt r1\n") == "t.s:1:6: expected no operands (halt), found 1");
  CHECK_THAT(asm_error("setvl r1, r2, r3\n"), StartsWith("t.s:1:15: expected 1 or 2 operands"));
  CHECK_THAT(asm_error("padd.b r1, r2\n"), StartsWith("t.s:1:1: expected 3 operands (padd.b|.h|.w rd, ra, rb)"));
  CHECK(asm_error("add r1, , r2\n") ==
        "t.s:1:9: expected a scalar register r0..r15, found ','");
}

TEST_CASE("asm errors: bad registers and operand kinds") {
  CHECK(asm_error("li r16, 5\n") == "t.s:1:4: expected a scalar register r0..r15, found 'r16'");
  CHECK(asm_error("vadd v8, v1, v2\n") == "t.s:1:6: expected a vector register v0..v7, found 'v8'");
  CHECK(asm_error("vadd v1, r3, v2\n") == "t.s:1:10: expected a vector register v0..v7, found 'r3'");
  CHECK(asm_error("vld v0, [x3]\n") == "t.s:1:10: expected a scalar register r0..r15, found 'x3'");
  CHECK(asm_error("add r1, r2, v3\n") ==
        "t.s:1:13: expected a scalar register r0..r15 or an integer, found 'v3'");
  CHECK(asm_error("vadd v1, v2, r99\n") ==
        "t.s:1:14: expected a vector register v0..v7, a scalar register r0..r15 or an integer, found 'r99'");
  CHECK(asm_error("vfadd v1, v2, 3\n") ==
        "t.s:1:15: expected a vector register v0..v7 or a scalar register r0..r15, found '3'");
  CHECK(asm_error("ld r1, r2\n") ==
        "t.s:1:8: expected a memory operand [rN+imm], [rN-imm], [rN], [rN]+ or a data label, found 'r2'");
  CHECK_THAT(asm_error("vld v0, [r1]+\n"),
             StartsWith("t.s:1:13: expected a memory operand") &&
                 Contains("post-increment [rN]+ is only for ld and st") && Contains("found '[r1]+'"));
  CHECK(asm_error("ld r1, [r1]+\n") ==
        "t.s:1:4: expected a destination register other than the post-incremented base r1, found 'r1'");
  CHECK(asm_error("br r1\n") == "t.s:1:4: expected a branch target (a text label), found 'r1'");
  CHECK(asm_error("fadd r1, r2, 4\n") == "t.s:1:14: expected a scalar register r0..r15, found '4'");
}

TEST_CASE("asm errors: bad numbers") {
  CHECK(asm_error("li r1, 12abc\n") == "t.s:1:8: expected a 64-bit integer (decimal or 0x hex), found '12abc'");
  CHECK(asm_error("li r1, 0x\n") == "t.s:1:8: expected a 64-bit integer (decimal or 0x hex), found '0x'");
  CHECK(asm_error("li r1, 18446744073709551616\n") ==
        "t.s:1:8: expected a 64-bit integer (decimal or 0x hex), found '18446744073709551616'");
  CHECK(asm_error("li r1, -9223372036854775809\n") ==
        "t.s:1:8: expected a 64-bit integer (decimal or 0x hex), found '-9223372036854775809'");
  CHECK(asm_error("ld r1, [r2+0xzz]\n") ==
        "t.s:1:12: expected a 64-bit integer (decimal or 0x hex), found '0xzz'");
  CHECK(asm_error(".data\n.word 1, 0xg\n") ==
        "t.s:2:10: expected a 64-bit integer (decimal or 0x hex), found '0xg'");
  CHECK(asm_error(".data\n.double 1.5x\n") == "t.s:2:9: expected a floating-point number, found '1.5x'");
  CHECK(asm_error(".data\n.word\n") == "t.s:2:6: expected a 64-bit integer (decimal or 0x hex), found end of line");
  CHECK_THAT(asm_error(".data\n.space -1\n"), StartsWith("t.s:2:8: expected a word count") && Contains("found '-1'"));
  CHECK_THAT(asm_error("setvl x\n"),
             StartsWith("t.s:1:7: expected a scalar register r0..r15 or an integer, found 'x'"));
  CHECK(asm_error("li r1, 5 5\n") == "t.s:1:8: expected a 64-bit integer (decimal or 0x hex), found '5 5'");
}

TEST_CASE("asm errors: labels") {
  CHECK(asm_error("halt\n  br nowhere\n") == "t.s:2:6: expected a defined label, found 'nowhere'");
  CHECK(asm_error("loop: dbnz r1, lop\n") ==
        "t.s:1:16: expected a defined label (did you mean 'loop'?), found 'lop'");
  CHECK(asm_error("li r1, Q+8\n") == "t.s:1:8: expected a defined label, found 'Q'");
  CHECK(asm_error("a: halt\nb: halt\n  a: halt\n") ==
        "t.s:3:3: expected a new label name ('a' is already defined at line 1), found 'a'");
  CHECK(asm_error("r3: halt\n") == "t.s:1:1: expected a label name that is not a register name, found 'r3'");
  CHECK(asm_error("halt\n.data\nA: .word 1\n.text\nbr A\n") ==
        "t.s:5:4: expected a branch target (a text label), found 'A' (a data label)");
  CHECK(asm_error("x: li r1, x\n") ==
        "t.s:1:11: expected a data label (text labels are branch targets), found 'x' (a text label)");
  // A duplicate across text and data labels.
  CHECK_THAT(asm_error("A: halt\n.data\nA: .word 1\n"), StartsWith("t.s:3:1: expected a new label name"));
}

TEST_CASE("asm errors: sections and directives") {
  CHECK(asm_error("halt\n.word 1\n") ==
        "t.s:2:1: expected an instruction (data directives belong in a .data section), found '.word'");
  CHECK_THAT(asm_error("halt\n.data\n  add r1, r2, r3\n"),
             StartsWith("t.s:3:3: expected a data directive") && Contains("found 'add'"));
  CHECK(asm_error("halt\n.data 12\n") ==
        "t.s:2:7: expected a data origin (a byte address that is a multiple of 8), found '12'");
  CHECK_THAT(asm_error("halt\n.data -8\n"), StartsWith("t.s:2:7: expected a data origin"));
  CHECK(asm_error("halt\n.text 5\n") == "t.s:2:7: expected end of line (.text takes no operand), found '5'");
  CHECK_THAT(asm_error("halt\n.data 16\n.word 1, 2\n.data 0\n.space 3\n"),
             StartsWith("t.s:5:1: expected data that does not overlap the data at 0x10..0x1f") &&
                 Contains("found '.space' at 0x0..0x17"));
}

TEST_CASE("asm errors: suffixes") {
  CHECK_THAT(asm_error("vcmplt.m v1, v2\n"), StartsWith("t.s:1:7: expected no suffix") && Contains("found '.m'"));
  CHECK_THAT(asm_error("add.m r1, r2, r3\n"), StartsWith("t.s:1:4: expected no suffix") && Contains("found '.m'"));
  CHECK_THAT(asm_error("padd r1, r2, r3\n"),
             StartsWith("t.s:1:1: expected a width suffix .b, .h or .w") && Contains("found 'padd'"));
  CHECK(asm_error("psub.q r1, r2, r3\n") == "t.s:1:5: expected a width suffix .b, .h or .w, found '.q'");
  CHECK(asm_error("vadd.x v1, v2, v3\n") == "t.s:1:5: expected no suffix or .m, found '.x'");
  CHECK_THAT(asm_error("pand.b r1, r2, r3\n"), StartsWith("t.s:1:5: expected no suffix"));
}

TEST_CASE("asm errors: empty program") {
  CHECK_THAT(asm_error(""), StartsWith("t.s:1:1: expected at least one instruction"));
  CHECK_THAT(asm_error("; only a comment\n\nstart:\n"), StartsWith("t.s:1:1: expected at least one instruction"));
  CHECK_THAT(asm_error(".data\nA: .word 1\n"), StartsWith("t.s:1:1: expected at least one instruction"));
}

// ---- interpreter --------------------------------------------------------------------

TEST_CASE("interp: the lecture's scalar average loop takes 304 instructions") {
  const auto x = run(
      "        li r0, 50\n"
      "        li r1, A\n"
      "        li r2, B\n"
      "        li r3, C\n"
      "loop:   ld r4, [r1]+\n"
      "        ld r5, [r2]+\n"
      "        add r6, r4, r5\n"
      "        shr r7, r6, 1\n"
      "        st [r3]+, r7\n"
      "        dbnz r0, loop\n" +
      average_data());
  REQUIRE(x.r.ok);
  CHECK(x.r.instructions == 304);
  CHECK(x.r.pc == 10);
  CHECK(x.r.r[0] == 0);
  CHECK(x.r.r[1] == sym(x.p, "A") + 400);
  check_average(x);
}

TEST_CASE("interp: the lecture's vector average takes 7 instructions and matches the scalar loop") {
  const std::string data = average_data();
  const auto v = run(
      "setvl 50\nsetvs 1\nvld v0, A\nvld v1, B\nvadd v2, v0, v1\nvshr v3, v2, 1\nvst C, v3\n" + data);
  REQUIRE(v.r.ok);
  CHECK(v.r.instructions == 7);
  check_average(v);
  const auto s = run(
      "li r0, 50\nli r1, A\nli r2, B\nli r3, C\nloop: ld r4, [r1]+\nld r5, [r2]+\n"
      "add r6, r4, r5\nshr r7, r6, 1\nst [r3]+, r7\ndbnz r0, loop\n" + data);
  REQUIRE(s.r.ok);
  CHECK(v.mem == s.mem);
}

TEST_CASE("interp: halt counts but running off the end does not") {
  const auto h = run("li r1, 1\nhalt\nli r1, 2\n");
  CHECK(h.r.ok);
  CHECK(h.r.instructions == 2);
  CHECK(h.r.pc == 1);
  CHECK(h.r.r[1] == 1);
  const auto e = run("li r1, 1\nli r2, 2\n");
  CHECK(e.r.instructions == 2);
  CHECK(e.r.pc == 2);
}

TEST_CASE("interp: scalar semantics") {
  const auto x = run(
      "li r1, -5\n"
      "li r2, 3\n"
      "sub r3, r2, r1\n"        // 8
      "mul r4, r1, r2\n"        // -15
      "shl r5, r2, 65\n"        // 3 << 1 = 6
      "shr r6, r1, 60\n"        // logical: 0xf
      "sra r7, r1, 1\n"         // -3
      "slt r8, r1, r2\n"        // 1 (signed)
      "slt r9, r2, r1\n"        // 0
      "seq r10, r2, 3\n"        // 1
      "li r11, 0x7fffffffffffffff\n"
      "add r11, r11, 1\n"       // wraps to INT64_MIN
      "xor r12, r2, -1\n"       // ~3
      "or r13, r2, 8\n"         // 11
      "li r14, D\n"
      "ld r14, [r14+8]\n"       // 2.5
      "li r15, D\n"
      "ld r15, [r15]\n"         // 1.5
      "fadd r0, r14, r15\n"     // 4.0
      "fmul r0, r0, r15\n"      // 6.0
      "fsub r0, r0, r14\n"      // 3.5
      "halt\n"
      ".data 8\nD: .double 1.5, 2.5\n");
  REQUIRE(x.r.ok);
  const auto& r = x.r.r;
  CHECK(r[3] == 8);
  CHECK(static_cast<std::int64_t>(r[4]) == -15);
  CHECK(r[5] == 6);
  CHECK(r[6] == 0xf);
  CHECK(static_cast<std::int64_t>(r[7]) == -3);
  CHECK(r[8] == 1);
  CHECK(r[9] == 0);
  CHECK(r[10] == 1);
  CHECK(r[11] == std::uint64_t{1} << 63);
  CHECK(r[12] == ~std::uint64_t{3});
  CHECK(r[13] == 11);
  CHECK(r[0] == double_to_bits(3.5));
}

TEST_CASE("interp: branches and post-increment stores") {
  const auto x = run(
      "        li r1, 3\n"
      "        li r2, 0\n"
      "        li r3, OUT\n"
      "loop:   add r2, r2, 10\n"
      "        st [r3]+, r2\n"
      "        dbnz r1, loop\n"
      "        beqz r1, zero\n"
      "        li r4, 99\n"
      "zero:   bnez r2, skip\n"
      "        li r5, 99\n"
      "skip:   br end\n"
      "        li r6, 99\n"
      "end:\n"
      ".data 0x40\nOUT: .space 4\n");
  REQUIRE(x.r.ok);
  CHECK(word(x.mem, 0x40) == 10);
  CHECK(word(x.mem, 0x48) == 20);
  CHECK(word(x.mem, 0x50) == 30);
  CHECK(word(x.mem, 0x58) == 0);
  CHECK(x.r.r[3] == 0x58);
  CHECK(x.r.r[4] == 0);
  CHECK(x.r.r[5] == 0);
  CHECK(x.r.r[6] == 0);
  CHECK(x.r.pc == 12);
  CHECK(x.r.instructions == 3 + 3 * 3 + 3);
}

TEST_CASE("interp: vector arithmetic and strides and compares and VL") {
  const auto x = run(
      "setvl 8\n"
      "vld v0, X\n"
      "vadd v1, v0, 100\n"
      "vdiv v2, v0, 0\n"         // x / 0 = 0
      "vdiv v7, v0, v7\n"        // x / 0 = 0 (v7 = 0)

      "li r1, -2\n"
      "vdiv v3, v0, r1\n"
      "vsra v4, v0, 1\n"
      "vshl v5, v0, v0\n"
      "setvs -1\n"
      "vld v6, X+56\n"          // reversed
      "setvs 1\n"
      "setvl 4\n"
      "vsub v1, v1, 100\n"      // elements 0..3 only
      "setvl 8\n"
      "vmset\n"
      "setvl 4\n"
      "vcmpeq v0, 12345\n"      // VM[0..4) = 0; VM[4..8) unchanged
      "setvl 8\n"
      "vmpop r2\n"              // 4
      "vcmplt v0, 0\n"
      "vmpop r3\n"              // 3 negatives
      "vmnot\n"
      "vmpop r4\n"              // 5
      "vst OUT, v1\n"
      "vst OUT+64, v2\n"
      "vst OUT+128, v3\n"
      "vst OUT+192, v4\n"
      "vst OUT+256, v5\n"
      "vst OUT+320, v6\n"
      "vst OUT+384, v7\n"
      "halt\n"
      ".data\n"
      "X: .word 5, -3, 8, 0, -1, 7, -9, 2\n"
      ".data 0x100\n"
      "OUT: .space 56\n");
  REQUIRE(x.r.ok);
  const std::int64_t xs[8] = {5, -3, 8, 0, -1, 7, -9, 2};
  const std::uint64_t out = 0x100;
  for (unsigned i = 0; i < 8; ++i) {
    INFO("element " << i);
    const auto e = [&](unsigned reg) { return static_cast<std::int64_t>(word(x.mem, out + 64 * reg + 8 * i)); };
    CHECK(e(0) == (i < 4 ? xs[i] : xs[i] + 100));
    CHECK(e(1) == 0);
    CHECK(e(2) == xs[i] / -2);
    CHECK(e(3) == (xs[i] >> 1));
    CHECK(static_cast<std::uint64_t>(e(4)) == (static_cast<std::uint64_t>(xs[i]) << (static_cast<std::uint64_t>(xs[i]) & 63)));
    CHECK(e(5) == xs[7 - i]);
    CHECK(e(6) == 0);
  }
  CHECK(x.r.r[2] == 4);
  CHECK(x.r.r[3] == 3);
  CHECK(x.r.r[4] == 5);
  // INT64_MIN / -1 wraps to INT64_MIN
  const auto y = run("setvl 1\nli r1, 0x8000000000000000\nli r2, -1\nvadd v0, v0, r1\nvdiv v1, v0, r2\nvst 0, v1\n");
  REQUIRE(y.r.ok);
  CHECK(word(y.mem, 0) == std::uint64_t{1} << 63);
}

TEST_CASE("interp: masked vector operations") {
  const auto x = run(
      "setvl 8\n"
      "vld v0, X\n"
      "vcmplt v0, 0\n"            // VM = negatives
      "vadd v1, v0, 0\n"          // copy
      "vsub.m v1, v7, v0\n"       // v1 = |x| (v7 = 0)
      "vst Y, v1\n"
      "vmnot\n"
      "vst.m Z, v0\n"             // only non-negative elements written
      "li r1, P\n"
      "vld v2, P\n"
      "vld.m v2, Q\n"             // non-negative positions from Q, others keep P
      "vst W, v2\n"
      // masked gather: cleared elements point far outside memory and must not be read
      "vmnot\n"                   // VM = negatives again
      "vld v3, IDX\n"
      "vldx.m v4, [r1], v3\n"
      "vstx.m [r1], v3, v0\n"
      "halt\n"
      ".data\n"
      "X: .word 5, -3, 8, 0, -1, 7, -9, 2\n"
      "Y: .space 8\n"
      "Z: .word 11, 11, 11, 11, 11, 11, 11, 11\n"
      "P: .word 100, 101, 102, 103, 104, 105, 106, 107\n"
      "Q: .word 200, 201, 202, 203, 204, 205, 206, 207\n"
      "W: .space 8\n"
      "IDX: .word 0x100000, 1, 0x100000, 0x100000, 4, 0x100000, 6, 0x100000\n");
  REQUIRE(x.r.ok);
  const std::int64_t xs[8] = {5, -3, 8, 0, -1, 7, -9, 2};
  const std::uint64_t y = sym(x.p, "Y"), z = sym(x.p, "Z"), w = sym(x.p, "W"), p = sym(x.p, "P");
  for (unsigned i = 0; i < 8; ++i) {
    INFO("element " << i);
    const bool neg = xs[i] < 0;
    CHECK(static_cast<std::int64_t>(word(x.mem, y + 8 * i)) == (neg ? -xs[i] : xs[i]));
    CHECK(static_cast<std::int64_t>(word(x.mem, z + 8 * i)) == (neg ? 11 : xs[i]));
    CHECK(word(x.mem, w + 8 * i) == (neg ? 100 + i : 200 + i));
    // the masked scatter wrote x[i] to P[i] for the negative elements (IDX[i] = i there)
    CHECK(static_cast<std::int64_t>(word(x.mem, p + 8 * i)) == (neg ? xs[i] : 100 + static_cast<std::int64_t>(i)));
  }
}

TEST_CASE("interp: gather and scatter of doubles") {
  const auto x = run(
      "setvl 4\n"
      "vld v0, IDX\n"
      "vld v1, VAL\n"
      "li r1, OUT\n"
      "vstx [r1], v0, v1\n"
      "vldx v2, [r1], v0\n"
      "vst BACK, v2\n"
      "halt\n"
      ".data\n"
      "IDX: .word 0, 2, 6, 7\n"
      "VAL: .double 3.14, 6.5, 71.2, 2.71\n"
      "BACK: .space 4\n"
      "OUT: .word -1, -1, -1, -1, -1, -1, -1, -1, -1\n");
  REQUIRE(x.r.ok);
  const std::uint64_t out = sym(x.p, "OUT"), back = sym(x.p, "BACK");
  const std::uint64_t want[9] = {double_to_bits(3.14), ~0ull, double_to_bits(6.5), ~0ull, ~0ull, ~0ull,
                                 double_to_bits(71.2), double_to_bits(2.71), ~0ull};
  for (unsigned i = 0; i < 9; ++i) {
    INFO("word " << i);
    CHECK(word(x.mem, out + 8 * i) == want[i]);
  }
  const double vals[4] = {3.14, 6.5, 71.2, 2.71};
  for (unsigned i = 0; i < 4; ++i) CHECK(word(x.mem, back + 8 * i) == double_to_bits(vals[i]));
}

TEST_CASE("interp: strip mining 527 elements with the setvl rd ra form") {
  std::ostringstream src;
  src << "        li r0, 527\n"
         "        li r1, A\n"
         "        li r2, B\n"
         "        li r3, C\n"
         "loop:   setvl r4, r0\n"
         "        vld v0, [r1]\n"
         "        vld v1, [r2]\n"
         "        vadd v2, v0, v1\n"
         "        vst [r3], v2\n"
         "        shl r5, r4, 3\n"
         "        add r1, r1, r5\n"
         "        add r2, r2, r5\n"
         "        add r3, r3, r5\n"
         "        sub r0, r0, r4\n"
         "        bnez r0, loop\n"
         "        halt\n"
         ".data 0x1000\nA: .word ";
  for (int i = 0; i < 527; ++i) src << (i ? ", " : "") << i;
  src << "\nB: .word ";
  for (int i = 0; i < 527; ++i) src << (i ? ", " : "") << 10000 * i;
  src << "\nC: .space 527\nGUARD: .word 0x77\n";
  const auto x = run(src.str());
  REQUIRE(x.r.ok);
  CHECK(x.r.instructions == 4 + 9 * 11 + 1);
  CHECK(x.r.r[4] == 527 - 8 * 64);
  const std::uint64_t c = sym(x.p, "C");
  for (unsigned i = 0; i < 527; ++i) {
    INFO("element " << i);
    CHECK(word(x.mem, c + 8 * i) == 10001ull * i);
  }
  CHECK(word(x.mem, sym(x.p, "GUARD")) == 0x77);
}

TEST_CASE("interp: packed SIMD") {
  const auto x = run(
      "li r1, 0x01FF7F80FF00FE10\n"
      "li r2, 0x0101018001010203\n"
      "padd.b r3, r1, r2\n"
      "li r4, 0x1122334455667788\n"
      "li r5, 0x1100330055007700\n"
      "pcmpeq.b r6, r4, r5\n"
      "li r7, 0x0001000200037FFF\n"      // h: 0x7fff, 3, 2, 1
      "li r8, 0x000100030002FFFF\n"      // h: -1, 2, 3, 1
      "pmaddwd r9, r7, r8\n"
      "li r10, 0x8000800080008000\n"
      "pmaddwd r11, r10, r10\n"
      "pcmpgt.h r12, r7, r8\n"
      "psub.w r13, r4, r5\n"
      "pandn r14, r4, r5\n"
      "padd.h r15, r10, r10\n"
      "pand r0, r4, r5\n"
      "halt\n");
  REQUIRE(x.r.ok);
  const auto& r = x.r.r;
  CHECK(r[3] == 0x0200800000010013ull);
  CHECK(r[6] == 0xFF00FF00FF00FF00ull);
  // d0 = 0x7fff * -1 + 3 * 2 = -32761; d1 = 2 * 3 + 1 * 1 = 7
  CHECK(r[9] == ((7ull << 32) | static_cast<std::uint32_t>(-32761)));
  // (-32768)^2 * 2 = 2^31 wraps to 0x80000000 in each 32-bit result
  CHECK(r[11] == 0x8000000080000000ull);
  // signed 16-bit: 0x7fff > -1, 3 > 2, 2 < 3, 1 == 1
  CHECK(r[12] == 0x000000000000FFFFull + 0x00000000FFFF0000ull);
  CHECK(r[13] == (((0x11223344ull - 0x11003300ull) << 32) | (0x55667788ull - 0x55007700ull)));
  CHECK(r[14] == (~0x1122334455667788ull & 0x1100330055007700ull));
  CHECK(r[15] == 0);
  CHECK(r[0] == (0x1122334455667788ull & 0x1100330055007700ull));
}

TEST_CASE("interp: faults") {
  SECTION("misaligned address") {
    const auto x = run("li r1, 4\n  ld r2, [r1]\n");
    CHECK_FALSE(x.r.ok);
    CHECK(x.r.fault == "PC 1 (2: ld r2, [r1]): misaligned address 0x4");
    CHECK(x.r.pc == 1);
    CHECK(x.r.instructions == 1);
  }
  SECTION("out-of-range scalar address") {
    const auto x = run("li r2, 7\nst 64, r2\n", {}, 64);
    CHECK(x.r.fault == "PC 1 (2: st 64, r2): out-of-range address 0x40");
  }
  SECTION("out-of-range vector element: the store changes nothing") {
    const auto x = run("li r1, 9\nsetvl 4\nvadd v0, v0, r1\nvst [r2+40], v0\n", {}, 64);
    CHECK_FALSE(x.r.ok);
    CHECK(x.r.fault == "PC 3 (4: vst [r2+40], v0): out-of-range address 0x40");
    CHECK(word(x.mem, 40) == 0);
  }
  SECTION("misaligned gather index after a stride") {
    const auto x = run("setvs 1\nsetvl 2\nvld v0, [r0+4]\n");
    CHECK(x.r.fault == "PC 2 (3: vld v0, [r0+4]): misaligned address 0x4");
  }
  SECTION("VL above the register length") {
    const auto x = run("setvl 64\nsetvl 65\n");
    CHECK(x.r.fault == "PC 1 (2: setvl 65): VL 65 above the register length 64");
    interp_config c;
    c.max_vl = 32;
    const auto y = run("li r1, 33\nsetvl r1\n", c);
    CHECK(y.r.fault == "PC 1 (2: setvl r1): VL 33 above the register length 32");
    const auto z = run("li r1, 1000\nsetvl r2, r1\n", c);
    CHECK(z.r.ok);
    CHECK(z.r.r[2] == 32);
  }
  SECTION("runaway program") {
    interp_config c;
    c.max_instructions = 1000;
    const auto x = run("li r1, 1\nloop: add r1, r1, 1\nbr loop\n", c);
    CHECK_FALSE(x.r.ok);
    CHECK(x.r.fault == "PC 2 (3: br loop): runaway program: more than 1000 instructions");
    CHECK(x.r.instructions == 1000);
  }
}

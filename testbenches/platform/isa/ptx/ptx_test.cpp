// The PTX front end: the reader on the shipped nvcc PTX and on bad input, .loc/.file, the
// register allocation of the lowering, and the lowering checked against the golden PTX
// interpreter through the SIMT ISA's own golden interpreter (no timing involved).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "flynn/platform/errors.h"
#include "flynn/platform/ptx.h"
#include "flynn/platform/ptx_interp.h"
#include "flynn/platform/ptx_lower.h"
#include "flynn/platform/simt_interp.h"
#include "flynn/common/bits.h"
#include "flynn/tensor/numeric.h"

namespace {

const std::string src = FLYNN_SOURCE_DIR;

std::string ptx_error(const std::string& text) {
  try {
    (void)flynn::ptx::read(text, "t.ptx");
  } catch (const flynn::input_error& e) {
    return e.what();
  }
  return "(no error)";
}

// A kernel body wrapped in an entry with one .u64 and one .u32 parameter.
std::string kernel(const std::string& body, const std::string& regs = ".reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n") {
  return ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k(\n.param .u64 k_param_0,\n.param .u32 k_param_1\n)\n{\n" +
         regs + body + "}\n";
}

// Runs a kernel on both golden interpreters, the PTX's and (lowered) the SIMT ISA's, from
// `global`: both finish, execute as many thread instructions and leave the same memory,
// which is returned.
std::vector<unsigned char> both_golden(const flynn::ptx::module& m, const flynn::ptx::kernel& k,
                                       const flynn::ptx::lowered& low, const flynn::simt::launch& l,
                                       std::vector<unsigned char> global) {
  auto other = global;
  const auto a = flynn::ptx::interpret(m, k, l, global, {});
  const auto b = flynn::simt::interpret(low.code, l, other, {});
  REQUIRE(a.ok);
  REQUIRE(b.ok);
  CHECK(a.thread_instructions == b.thread_instructions);
  CHECK(a.thread_digest == b.thread_digest);  // (and thread by thread)
  CHECK(global == other);
  return global;
}

}  // namespace

TEST_CASE("the shipped nvcc PTX reads: entries, parameters and their offsets, shared variables") {
  const auto m = flynn::ptx::read_file(src + "/workloads/cuda/ptx/vecadd.ptx");
  REQUIRE(m.kernels.size() == 1);
  const auto& k = m.kernels[0];
  CHECK(k.name == "vecadd");
  REQUIRE(k.params.size() == 4);
  CHECK(k.params[0].offset == 0);
  CHECK(k.params[2].offset == 16);
  CHECK(k.params[3].offset == 24);
  CHECK(k.params[3].type == flynn::ptx::dtype::u32);
  CHECK(k.param_bytes == 28);
  CHECK(k.code.size() == 22);
  const auto t = flynn::ptx::read_file(src + "/workloads/cuda/ptx/transpose.ptx");
  REQUIRE(t.kernels.size() == 2);
  CHECK(t.kernels[0].static_shared == 4096);
  CHECK(t.kernels[1].static_shared == 4224);  // 32 x 33 floats
  const auto s = flynn::ptx::read_file(src + "/workloads/cuda/ptx/sgemm_tiled.ptx");
  CHECK(s.kernels[0].shared.size() == 2);
  CHECK(s.kernels[0].shared[1].offset == 1024);
  for (const auto& e : std::filesystem::directory_iterator(src + "/workloads/cuda/ptx")) {
    INFO(e.path().string());
    CHECK_NOTHROW(flynn::ptx::read_file(e.path().string()));
  }
}

TEST_CASE("the warp-specialised Hopper GEMM reads: TMA, mbarriers, wgmma, elect.sync, setmaxnreg") {
  const auto m = flynn::ptx::read_file(src + "/workloads/cuda/ptx/gemm_ws.ptx");
  const auto& k = m.kernels.at(0);
  CHECK(k.params.at(0).bytes == 128);  // a CUtensorMap by value
  CHECK(k.params.at(0).align == 128);
  CHECK(k.params.at(2).offset == 256);
  std::map<flynn::ptx::opcode, int> n;
  for (const auto& in : k.code) ++n[in.op];
  using flynn::ptx::opcode;
  CHECK(n[opcode::mbar_init] == 8);
  CHECK(n[opcode::tma_load] == 10);
  CHECK(n[opcode::wgmma_mma] == 12);
  CHECK(n[opcode::elect] == 1);
  CHECK(n[opcode::setmaxnreg] == 2);
  for (const auto& in : k.code) {
    if (in.op == opcode::wgmma_mma) {
      CHECK(in.rank == 128);
      CHECK(in.group.size() == 64);  // the accumulators
      CHECK(in.type == flynn::ptx::dtype::bf16);
    }
    if (in.op == opcode::tma_load) CHECK(in.group.size() == 2);  // the coordinates
  }
  // Lowered: the accumulators one group of 64 registers, the tensor maps the two CUtensorMap
  // parameters; the kernel fits 384 threads in the core's 64 K registers.
  const auto low = flynn::ptx::lower(m, k);
  CHECK(low.tensor_map_params == std::vector<unsigned>{0, 1});
  CHECK(low.registers * 384 <= 65536);
  CHECK(low.predicates <= 8);
  for (const auto& in : low.code.code)
    if (in.code == flynn::simt::op::wgmma) {
      CHECK(in.mma_n == 128);
      CHECK(in.mma_scale_pred);
    }
}

TEST_CASE("the Hopper GEMM from PTX: both golden interpreters agree, and equal a host GEMM") {
  const auto m = flynn::ptx::read_file(src + "/workloads/cuda/ptx/gemm_ws.ptx");
  const auto& k = m.kernels.at(0);
  const auto low = flynn::ptx::lower(m, k);
  // C (128 x 128) = A (128 x 192) x B^T (B: 128 x 192), bf16 in, fp32 out: three K tiles,
  // so the two-stage main loop and the odd tile after it both run.
  constexpr unsigned M = 128, N = 128, K = 192;
  constexpr std::uint64_t a_at = 0x1000, b_at = 0x10000, c_at = 0x20000;
  std::vector<unsigned char> global(0x40000, 0);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::uint64_t i = 0; i < std::uint64_t(M) * K * 2; ++i) {
    const std::uint16_t x = static_cast<std::uint16_t>(flynn::float_to_bits(u(rng)) >> 16);
    std::memcpy(&global[a_at + 2 * (i % (std::uint64_t(M) * K))] + (i >= std::uint64_t(M) * K ? b_at - a_at : 0), &x, 2);
  }
  flynn::simt::launch l;
  l.grid = 1;
  l.block = 384;
  l.shared_bytes = 4 * (16384 + 16384) + 64;
  l.params.assign(69, 0);
  l.params[64] = static_cast<std::uint32_t>(c_at);
  l.params[66] = M;
  l.params[67] = N;
  l.params[68] = K;
  for (const std::uint64_t base : {a_at, b_at}) {
    flynn::tensor_descriptor d;
    d.rank = 2;
    d.elem_bytes = 2;
    d.global_base = base;
    d.dims = {K, 128, 0, 0, 0};
    d.strides = {0, K * 2, 0, 0, 0};
    d.box = {64, 128, 0, 0, 0};
    d.swizzle = flynn::swizzle_mode::b128;
    l.tensor_maps.push_back(d);
  }
  l.tensor_map_offsets = {0, 128};
  const auto out = both_golden(m, k, low, l, global);
  auto elem = [&](std::uint64_t at) {
    std::uint16_t x = 0;
    std::memcpy(&x, &global[at], 2);
    return flynn::bf16_to_f32(x);
  };
  unsigned wrong = 0;
  for (unsigned i = 0; i < M; ++i)
    for (unsigned j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (unsigned kk = 0; kk < K; ++kk) acc = std::fma(elem(a_at + 2 * (i * K + kk)), elem(b_at + 2 * (j * K + kk)), acc);
      float got = 0.0f;
      std::memcpy(&got, &out[c_at + 4 * (i * N + j)], 4);
      wrong += got != acc;
    }
  CHECK(wrong == 0);  // (exact products of bf16, added in k order: the same roundings)
  // A tensor map the launch does not have: the PTX interpreter names the parameter address.
  l.tensor_map_offsets = {0, 64};
  auto g2 = global;
  const auto r = flynn::ptx::interpret(m, k, l, g2, {});
  REQUIRE_FALSE(r.ok);
  CHECK(r.fault.find("cp.async.bulk.tensor: 0x80 is not the address of a tensor-map parameter") != std::string::npos);
}

TEST_CASE("the per-thread instruction check tells threads apart where the totals agree") {
  using flynn::simt::thread_count_term;
  // Threads 0 and 1 of block 0 with 3 and 5 instructions, or 5 and 3: the same total.
  const std::uint64_t a = thread_count_term(0, 0, 3) + thread_count_term(0, 1, 5);
  const std::uint64_t b = thread_count_term(0, 0, 5) + thread_count_term(0, 1, 3);
  CHECK(a != b);
  // One instruction moved from a thread of block 0 to the same thread of block 1.
  CHECK(thread_count_term(0, 7, 4) + thread_count_term(1, 7, 4) != thread_count_term(0, 7, 3) + thread_count_term(1, 7, 5));
  // A divergent kernel: its threads run different numbers of instructions, both golden
  // interpreters count each the same.
  const auto m = flynn::ptx::read(kernel("mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 5;\n@%p1 bra $L;\n"
                                          "add.s32 %r2, %r1, 1;\nadd.s32 %r2, %r2, 1;\n$L:\nret;\n"),
                                   "t.ptx");
  const auto& k = m.kernels.at(0);
  flynn::simt::launch l;
  l.block = 32;
  l.params.assign(3, 0);
  std::vector<unsigned char> g(1024, 0);
  const auto low = flynn::ptx::lower(m, k);
  auto g2 = g;
  const auto x = flynn::ptx::interpret(m, k, l, g, {});
  const auto y = flynn::simt::interpret(low.code, l, g2, {});
  REQUIRE(x.ok);
  REQUIRE(y.ok);
  CHECK(x.thread_instructions == 5 * 4 + 27 * 6);
  CHECK(x.thread_digest == y.thread_digest);
  std::uint64_t d = 0;
  for (unsigned t = 0; t < 32; ++t) d += thread_count_term(0, t, t < 5 ? 4 : 6);
  CHECK(x.thread_digest == d);
}

TEST_CASE(".loc and .file name the CUDA line in the golden interpreter's faults") {
  const auto m = flynn::ptx::read_file(src + "/testbenches/cli/kernels/vecadd_lineinfo.ptx");
  const auto& k = m.kernels.at(0);
  REQUIRE(m.files.at(1) == "vecadd.cu");
  const auto& ld = k.code.at(15);
  CHECK(ld.text == "ld.global.f32 %f1, [%rd8]");
  CHECK(ld.loc_line == 4);
  CHECK(flynn::ptx::where(m, k, ld) == src + "/testbenches/cli/kernels/vecadd_lineinfo.ptx:51 (ld.global.f32 %f1, [%rd8]), vecadd.cu:4");
  // A pointer past the memory: the interpreter's fault names both lines.
  flynn::simt::launch l;
  l.grid = 1;
  l.block = 32;
  l.params = {0x10000, 0, 0x10000, 0, 0x10000, 0, 32};
  std::vector<unsigned char> global(4096, 0);
  const auto r = flynn::ptx::interpret(m, k, l, global, {});
  REQUIRE_FALSE(r.ok);
  INFO(r.fault);
  CHECK(r.fault.find("vecadd_lineinfo.ptx:51 (ld.global.f32 %f1, [%rd8]), vecadd.cu:4: out-of-range global address 0x10000") !=
        std::string::npos);
}

TEST_CASE("bad PTX: the file, line and column, what was expected and what was found") {
  CHECK(ptx_error(kernel("frob.b32 %r1, %r2;\nret;\n")) ==
        "t.ptx:12:1: expected a supported instruction (docs/isa/ptx.md), found 'frob.b32'");
  CHECK(ptx_error(kernel("add.s32 %r1, %r2, %r9;\nret;\n")) ==
        "t.ptx:12:19: expected a declared register (did you mean '%r0'?), found '%r9' (undeclared)");
  CHECK(ptx_error(kernel("add.s32 %r1, %rd1, %r2;\nret;\n")) ==
        "t.ptx:12:14: expected a 32-bit register for .s32 (type mismatch), found '%rd1' (.b64)");
  CHECK(ptx_error(kernel("add.s32 %p1, %r1, %r2;\nret;\n")) ==
        "t.ptx:12:9: expected a .s32 register, found '%p1' (.pred)");
  CHECK(ptx_error(kernel("add.s32 %r1, %r2, %r3\nret;\n")) == "t.ptx:13:1: expected ',' or ';' after the instruction, found 'ret'");
  CHECK(ptx_error(kernel("bra $L__nowhere;\nret;\n")) == "t.ptx:12:5: expected a label defined in the kernel, found '$L__nowhere'");
  CHECK(ptx_error(kernel("$L: ret;\n$L: ret;\n")) == "t.ptx:13:1: expected a new label name ('$L' is defined already), found '$L'");
  CHECK(ptx_error(kernel("ld.global.v4.u64 {%rd0, %rd1, %rd2, %rd3}, [%rd1];\nret;\n")) ==
        "t.ptx:12:1: expected a supported instruction (docs/isa/ptx.md); vector accesses of 4-byte elements (.v2, .v4) or 8-byte ones (.v2), found 'ld.global.v4.u64'");
  CHECK(ptx_error(kernel("ld.global.v2.u32 {%r1, %r1}, [%rd1];\nret;\n")) ==
        "t.ptx:12:18: expected distinct registers in the vector, found '{%r1,%r1}'");
  CHECK(ptx_error(kernel("ld.global.v4.u32 {%r1, %r2}, [%rd1];\nret;\n")) == "t.ptx:12:18: expected a vector of 4 registers, found 2");
  CHECK(ptx_error(kernel("ld.param.u32 %r1, [k_param_9];\nret;\n")) ==
        "t.ptx:12:20: expected a parameter of the kernel (did you mean 'k_param_0'?), found 'k_param_9'");
  CHECK(ptx_error(kernel("ld.param.u64 %rd1, [0];\nret;\n")) ==
        "t.ptx:12:21: expected a parameter name (a parameter is read by name), found '0'");
  CHECK(ptx_error(kernel("ld.param.u64 %rd1, [k_param_1];\nret;\n")) ==
        "t.ptx:12:20: expected an access inside parameter 'k_param_1' (4 bytes), found '[k_param_1]'");
  CHECK(ptx_error(kernel("mov.u32 %r1, %clock;\nret;\n")) ==
        "t.ptx:12:14: expected a supported special register (%tid, %ntid, %ctaid, %nctaid .x/.y/.z, %laneid, %warpid), found '%clock'");
  CHECK(ptx_error(kernel("mov.u32 %r1, 4294967296;\nret;\n")) == "t.ptx:12:14: expected an immediate that fits .u32, found '4294967296'");
  CHECK(ptx_error(".version 9.0\n.target sm_90a\n.address_size 64\n.visible .func f()\n{\nret;\n}\n") ==
        "t.ptx:4:10: expected .entry (device functions, .func, are not supported: inline them), found '.func'");
  CHECK(ptx_error(".version 9.0\n.target sm_90a\n.address_size 32\n") ==
        "t.ptx:3:15: expected 64 (the only address size supported), found '32'");
  CHECK(ptx_error(".version 9.0\n") == "t.ptx:2:1: expected a .entry kernel, found none in the file");
  CHECK(ptx_error(".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\nret;\n") ==
        "t.ptx:5:1: expected a '}' closing this '{', found the end of the file");
}

TEST_CASE("labels are local to their { } scope, as nvcc's repeated inline assembly needs") {
  const auto m = flynn::ptx::read(kernel("{\nw: add.s32 %r1, %r1, 1;\nsetp.lt.s32 %p1, %r1, 3;\n@%p1 bra w;\n}\n"
                                         "{\nw: add.s32 %r2, %r2, 1;\nsetp.lt.s32 %p1, %r2, 5;\n@%p1 bra w;\n}\n"
                                         "bra.uni done;\nadd.s32 %r1, %r1, 1;\ndone: ret;\n"),
                                  "t.ptx");
  const auto& code = m.kernels.at(0).code;
  REQUIRE(code.size() == 9);
  CHECK(code[2].target == 0);  // each scope's own 'w'
  CHECK(code[5].target == 3);
  CHECK(code[6].target == 8);  // a branch inside or outside a scope to a label of the kernel's body
  // A label of an inner scope is not visible outside it.
  CHECK(ptx_error(kernel("{\nin: ret;\n}\nbra in;\n")) == "t.ptx:15:5: expected a label defined in the kernel, found 'in'");
}

TEST_CASE("vector accesses: a group's registers are consecutive, in their order") {
  // Each thread loads a float4, stores its elements reversed and scaled, and a v2 of u32.
  const auto m = flynn::ptx::read(
      kernel("mov.u32 %r1, %tid.x;\nld.param.u64 %rd1, [k_param_0];\nmul.wide.u32 %rd2, %r1, 16;\nadd.s64 %rd3, %rd1, %rd2;\n"
             "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd3];\nmul.f32 %f5, %f4, 0f40000000;\n"
             "add.f32 %f6, %f3, %f5;\nadd.f32 %f7, %f2, %f6;\nadd.f32 %f8, %f1, %f7;\n"
             "st.global.v4.f32 [%rd3+4096], {%f5, %f6, %f7, %f8};\nld.global.v2.u32 {%r2, %r3}, [%rd3+8];\n"
             "st.global.v2.u32 [%rd3+8192], {%r2, %r3};\nret;\n",
             ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<9>;\n"),
      "t.ptx");
  const auto& k = m.kernels.at(0);
  const auto low = flynn::ptx::lower(m, k);
  const auto reg = [&](const char* name) {
    for (std::size_t r = 0; r < k.regs.size(); ++r)
      if (k.regs[r].name == name) return low.placement[r];
    return -1;
  };
  CHECK(reg("%f1") % 4 == 0);  // a 128-bit group starts at a multiple of 4
  CHECK(reg("%f2") == reg("%f1") + 1);
  CHECK(reg("%f4") == reg("%f1") + 3);
  CHECK(reg("%f8") == reg("%f5") + 3);  // the stored group
  CHECK(reg("%r3") == reg("%r2") + 1);
  CHECK(low.code.code[4].width == 16);
  flynn::simt::launch l;
  l.grid = 2;
  l.block = 32;
  l.params = {0x1000, 0, 0};
  std::vector<unsigned char> global(0x4000);
  for (std::size_t i = 0; i < global.size(); ++i) global[i] = static_cast<unsigned char>(i * 13 + 1);
  both_golden(m, k, low, l, global);
  // The same registers in another order (or with other members) cannot be consecutive both
  // ways: refused, naming the instruction.
  const auto swapped = flynn::ptx::read(
      kernel("ld.global.v2.u32 {%r2, %r3}, [%rd1];\nst.global.v2.u32 [%rd1+8], {%r3, %r2};\nret;\n"), "t.ptx");
  try {
    (void)flynn::ptx::lower(swapped, swapped.kernels[0]);
    FAIL("a register in two groups lowered");
  } catch (const flynn::input_error& e) {
    CHECK(std::string(e.what()) == "t.ptx:13: expected vector operands that group a register with the same others each time, "
                                   "found 'st.global.v2.u32 [%rd1+8], {%r3, %r2}' (%r3 is in another group)");
  }
}

TEST_CASE("a parameter's address is its offset in the parameter space, as both golden interpreters see it") {
  const auto m = flynn::ptx::read(
      kernel("mov.b64 %rd1, k_param_1;\ncvta.param.u64 %rd2, %rd1;\nld.param.u64 %rd3, [k_param_0];\n"
             "cvt.u32.u64 %r1, %rd2;\nselp.u32 %r2, 1, 0, %p0;\nadd.s32 %r1, %r1, %r2;\nst.global.u32 [%rd3], %r1;\nret;\n"),
      "t.ptx");
  const auto& k = m.kernels.at(0);
  const auto low = flynn::ptx::lower(m, k);
  flynn::simt::launch l;
  l.grid = 1;
  l.block = 1;
  l.params = {64, 0, 5};
  const auto g = both_golden(m, k, low, l, std::vector<unsigned char>(256));
  CHECK(g[64] == 8);  // k_param_1's offset, + selp's 0 (%p0 never set)
}

TEST_CASE("registers by live ranges: ranges that never overlap share a register") {
  // Eight predicates live at once fit; a ninth does not.
  std::string eight, regs = ".reg .b32 %r<2>;\n.reg .pred %p<10>;\n";
  for (int i = 0; i < 8; ++i) eight += "setp.eq.s32 %p" + std::to_string(i) + ", %r1, " + std::to_string(i) + ";\n";
  std::string use;
  for (int i = 0; i < 8; ++i) use += "@%p" + std::to_string(i) + " add.s32 %r1, %r1, 1;\n";
  const auto ok = flynn::ptx::read(kernel(eight + use + "ret;\n", regs), "t.ptx");
  CHECK(flynn::ptx::lower(ok, ok.kernels[0]).predicates == 8);
  const auto nine = flynn::ptx::read(
      kernel(eight + "setp.eq.s32 %p8, %r1, 8;\n" + use + "@%p8 add.s32 %r1, %r1, 1;\nret;\n", regs), "t.ptx");
  try {
    (void)flynn::ptx::lower(nine, nine.kernels[0]);
    FAIL("nine live predicates lowered");
  } catch (const flynn::input_error& e) {
    CHECK(std::string(e.what()).find("more than 8 predicates live at once at 'setp.eq.s32 %p8, %r1, 8'") != std::string::npos);
  }
  // transpose declares 24 predicates, but few are live at once.
  const auto t = flynn::ptx::read_file(src + "/workloads/cuda/ptx/transpose.ptx");
  const auto lt = flynn::ptx::lower(t, t.kernels[0]);
  CHECK(lt.predicates <= 8);
  CHECK(lt.code.code.size() == t.kernels[0].code.size());  // one for one
  // 64-bit values sit in even-aligned pairs.
  for (std::size_t r = 0; r < t.kernels[0].regs.size(); ++r)
    if (flynn::ptx::size_of(t.kernels[0].regs[r].type) == 8 && lt.placement[r] >= 0) CHECK(lt.placement[r] % 2 == 0);
  // A value live around a loop keeps its register through the loop.
  const auto loop = flynn::ptx::read(kernel("mov.u32 %r1, 0;\nmov.u32 %r2, 5;\n$L: add.s32 %r3, %r1, 1;\nadd.s32 %r1, %r3, 0;\n"
                                            "setp.lt.s32 %p1, %r1, %r2;\n@%p1 bra $L;\nret;\n"),
                                     "t.ptx");
  const auto ll = flynn::ptx::lower(loop, loop.kernels[0]);
  CHECK(ll.placement[2] != ll.placement[1]);  // %r2 (the bound) is live throughout the loop
  CHECK(ll.placement[2] != ll.placement[3]);
}

// Every shipped kernel, lowered and run on the SIMT ISA's golden interpreter, leaves the
// same memory and executes as many thread instructions as the PTX's golden interpreter.
TEST_CASE("the lowering computes what the PTX computes (the two golden interpreters agree)") {
  struct launch_case {
    const char* file;
    const char* entry;
    std::array<unsigned, 3> grid, block;
    std::vector<std::uint64_t> params;  // each written at its parameter's offset
  };
  // Buffers at 0x1000 (in), 0x9000 (second in), 0x11000 (out); counts chosen so that guards
  // cut into the last block.
  const std::vector<launch_case> cases = {
      {"vecadd.ptx", "vecadd", {5, 1, 1}, {64, 1, 1}, {0x1000, 0x9000, 0x11000, 300}},
      {"saxpy.ptx", "saxpy", {2, 1, 1}, {64, 1, 1}, {300, 0x40200000, 0x1000, 0x9000}},
      {"index2d.ptx", "index2d", {2, 2, 1}, {16, 8, 1}, {0x1000, 0x11000, 30, 13, 3}},
      {"reduce_shared.ptx", "reduce_shared", {3, 1, 1}, {128, 1, 1}, {0x1000, 0x11000, 300}},
      {"reduce_shfl.ptx", "reduce_shfl", {3, 1, 1}, {128, 1, 1}, {0x1000, 0x11000, 300}},
      {"histogram.ptx", "histogram", {2, 1, 1}, {256, 1, 1}, {0x1000, 2000, 0x11000}},
      {"sgemm_tiled.ptx", "sgemm_tiled", {2, 2, 1}, {16, 16, 1}, {0x1000, 0x9000, 0x11000, 32, 32, 32}},
      {"transpose.ptx", "transpose_naive", {2, 2, 1}, {32, 8, 1}, {0x1000, 0x11000, 64, 40}},
      {"transpose.ptx", "transpose_padded", {2, 2, 1}, {32, 8, 1}, {0x1000, 0x11000, 40, 64}},
  };
  std::mt19937 rng(7);
  for (const auto& c : cases) {
    INFO(c.entry);
    const auto m = flynn::ptx::read_file(src + "/workloads/cuda/ptx/" + c.file);
    const auto& k = flynn::ptx::find_kernel(m, c.entry);
    const auto low = flynn::ptx::lower(m, k);
    flynn::simt::launch l;
    l.grid_xyz = c.grid;
    l.block_xyz = c.block;
    l.grid = c.grid[0] * c.grid[1] * c.grid[2];
    l.block = c.block[0] * c.block[1] * c.block[2];
    l.shared_bytes = (k.static_shared + 3) / 4 * 4;
    std::vector<unsigned char> bytes((k.param_bytes + 3) / 4 * 4, 0);
    for (std::size_t i = 0; i < k.params.size(); ++i) std::memcpy(&bytes[k.params[i].offset], &c.params[i], k.params[i].bytes);
    l.params.resize(bytes.size() / 4);
    std::memcpy(l.params.data(), bytes.data(), bytes.size());
    std::vector<unsigned char> global(0x20000);
    for (std::size_t i = 0x1000; i < 0x11000; i += 4) {  // small floats and integers
      const std::uint32_t v = (rng() & 1) ? 0x3f800000u + (rng() & 0x7fffff) : rng() % 2000;
      std::memcpy(&global[i], &v, 4);
    }
    CHECK(both_golden(m, k, low, l, global) != global);  // the kernel wrote something
  }
}

TEST_CASE("ld.global.cg lowers to a load cached at the global level only; other cache operators to plain loads") {
  const auto m = flynn::ptx::read(
      kernel("ld.param.u64 %rd1, [k_param_0];\nld.global.cg.u32 %r1, [%rd1];\nld.global.ca.u32 %r2, [%rd1+4];\n"
             "add.s32 %r3, %r1, %r2;\nst.global.u32 [%rd1+8], %r3;\nret;\n",
             ".reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n"),
      "t.ptx");
  const auto low = flynn::ptx::lower(m, m.kernels.at(0));
  CHECK(low.code.code[1].code == flynn::simt::op::ld);
  CHECK(low.code.code[1].cg);
  CHECK_FALSE(low.code.code[2].cg);
}

TEST_CASE("PTX wgmma for fp8 (m64n64k32, e4m3 x e5m2) and tf32 (m64n64k8): read, lowered with their types, both golden interpreters agree") {
  // 128 threads copy 8 KB from global to the shared array (A e4m3 at 0, B e5m2 at 2048, A
  // and B tf32 at 4096 and 6144: K-major core matrices, LBO 128, SBO 256), then one fp8 and
  // one tf32 wgmma, and each thread stores its 64 accumulators.
  std::string body =
      "mov.u32 %r1, %tid.x;\nld.param.u64 %rd1, [k_param_0];\ncvta.to.global.u64 %rd1, %rd1;\n"
      "mov.u32 %r2, sm;\nshl.b32 %r3, %r1, 2;\nmov.u32 %r4, 0;\n"
      "$L_copy:\nmad.lo.s32 %r5, %r4, 512, %r3;\ncvt.u64.u32 %rd2, %r5;\nadd.s64 %rd3, %rd1, %rd2;\n"
      "ld.global.u32 %r6, [%rd3];\nadd.s32 %r7, %r2, %r5;\nst.shared.u32 [%r7], %r6;\n"
      "add.s32 %r4, %r4, 1;\nsetp.lt.u32 %p1, %r4, 16;\n@%p1 bra $L_copy;\nbar.sync 0;\n";
  // Descriptors: SBO 256 / 16 in bits 32-45, LBO 128 / 16 in bits 16-29, start / 16.
  const auto desc = [](unsigned start) {
    return std::to_string((std::uint64_t(256 >> 4) << 32) | (std::uint64_t(128 >> 4) << 16) | (start >> 4));
  };
  body += "mov.b64 %rd4, " + desc(0) + ";\nmov.b64 %rd5, " + desc(2048) + ";\nmov.b64 %rd6, " + desc(4096) +
          ";\nmov.b64 %rd7, " + desc(6144) + ";\nwgmma.fence.sync.aligned;\n";
  std::string d8, dt;
  for (unsigned i = 0; i < 32; ++i) {
    d8 += (i ? ", %f" : "%f") + std::to_string(i);
    dt += (i ? ", %f" : "%f") + std::to_string(32 + i);
  }
  body += "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2 {" + d8 + "}, %rd4, %rd5, 0, 1, 1, 0, 0;\n";
  body += "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {" + dt + "}, %rd6, %rd7, 0, 1, 1, 0, 0;\n";
  body += "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n"
          "mul.wide.u32 %rd2, %r1, 256;\nadd.s64 %rd3, %rd1, %rd2;\n";
  for (unsigned i = 0; i < 64; ++i)
    body += "st.global.f32 [%rd3+" + std::to_string(65536 + 4 * i) + "], %f" + std::to_string(i) + ";\n";
  body += "ret;\n";
  const auto m = flynn::ptx::read(
      kernel(".shared .align 1024 .b8 sm[8192];\n" + body,
             ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<64>;\n.reg .pred %p<2>;\n"),
      "t.ptx");
  const auto& k = m.kernels.at(0);
  unsigned seen = 0;
  for (const auto& in : k.code)
    if (in.op == flynn::ptx::opcode::wgmma_mma) {
      CHECK(in.rank == 64);
      CHECK(in.mma_a == (seen ? flynn::element_type::tf32 : flynn::element_type::e4m3));
      CHECK(in.mma_b == (seen ? flynn::element_type::tf32 : flynn::element_type::e5m2));
      ++seen;
    }
  CHECK(seen == 2);
  const auto low = flynn::ptx::lower(m, k);
  unsigned lowered = 0;
  for (const auto& in : low.code.code)
    if (in.code == flynn::simt::op::wgmma) {
      CHECK(in.mma_type == (lowered ? flynn::element_type::tf32 : flynn::element_type::e4m3));
      CHECK(in.mma_b_type == (lowered ? flynn::element_type::tf32 : flynn::element_type::e5m2));
      ++lowered;
    }
  CHECK(lowered == 2);
  flynn::simt::launch l;
  l.grid = 1;
  l.block = 128;
  l.shared_bytes = 8192;
  l.params = {0, 0, 0};
  std::vector<unsigned char> global(65536 + 128 * 256);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (unsigned i = 0; i < 2048; ++i) global[i] = flynn::f32_to_e4m3(u(rng));
  for (unsigned i = 0; i < 2048; ++i) global[2048 + i] = flynn::f32_to_e5m2(u(rng));
  for (unsigned i = 0; i < 1024; ++i) {
    const float x = u(rng);
    std::memcpy(&global[4096 + 4 * i], &x, 4);
  }
  const auto out = both_golden(m, k, low, l, global);
  unsigned nonzero = 0;
  for (std::size_t i = 65536; i < out.size(); i += 4) {
    float x = 0;
    std::memcpy(&x, &out[i], 4);
    nonzero += x != 0.0f;
  }
  CHECK(nonzero > 128 * 60);
}

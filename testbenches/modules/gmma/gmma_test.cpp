// Group-of-warps MMA: the sharing scope changes instructions, register-file and shared-
// memory traffic and throughput; D always equals the reference GEMM.
#include <catch2/catch.hpp>

#include "flynn/gmma/mma_engine.h"
#include "flynn/memory/banked_memory.h"
#include "flynn/platform/stats_writer.h"

using namespace flynn;

namespace {
banked_memory::params smem_params() {
  banked_memory::params p;
  p.size_bytes = 1 << 17;
  p.word_bytes = 4;
  p.banks = 32;
  p.latency = 29;
  p.bank_busy = 1;
  return p;
}

// The warp generation: 32 threads, operands from registers, m16 n8 k16 instructions.
mma_engine::params warp_generation() {
  mma_engine::params p;
  p.scope_threads = 32;
  p.operands = operand_path::registers;
  p.instr_m = 16;
  p.instr_n = 8;
  p.instr_k = 16;
  return p;
}
}  // namespace

TEST_CASE("the warpgroup generation streams MMAs at least twice as fast as the warp generation") {
  mma_engine::params warp = warp_generation();
  warp.k = 256;
  mma_engine::params group = warp;
  group.scope_threads = 128;
  group.operands = operand_path::shared;
  group.instr_m = 64;
  group.instr_n = 64;
  banked_memory m1("m1", smem_params()), m2("m2", smem_params());
  mma_engine e1("warp", warp), e2("warpgroup", group);
  e1.smem.bind(m1.port(0));
  e2.smem.bind(m2.port(0));
  sc_core::sc_start();
  CHECK(e1.matches_reference());
  CHECK(e2.matches_reference());
  const auto s1 = stats_to_json(e1.stats()), s2 = stats_to_json(e2.stats());
  CHECK(s2["fma_per_cycle"].get<double>() >= 2.0 * s1["fma_per_cycle"].get<double>());
  CHECK(s2["rf_reads"].get<double>() == 0.0);
  CHECK(s1["smem_reads"].get<int>() == 16 * 80);
  CHECK(s2["smem_reads"].get<int>() == 16 * 32);
  // The shared memory saw exactly the requests the engines counted, one wavefront each.
  CHECK(stats_to_json(m2.stats())["wavefronts"] == 16 * 32);
}

TEST_CASE("shared-memory wavefronts follow the bound memory's width") {
  // The warpgroup reads 64 x 16 + 16 x 64 fp16 = 4096 B in 32 requests of 128 B: one
  // wavefront each on 32 banks x 4 B or 8 banks x 16 B (128 B per wavefront), two on
  // 16 banks x 4 B (64 B per wavefront).
  banked_memory::params narrow = smem_params(), wide_words = smem_params();
  narrow.banks = 16;
  wide_words.banks = 8;
  wide_words.word_bytes = 16;
  banked_memory m32("m32", smem_params()), m16("m16", narrow), m8("m8", wide_words);
  mma_engine e32("e32", mma_engine::params{}), e16("e16", mma_engine::params{}), e8("e8", mma_engine::params{});
  e32.smem.bind(m32.port(0));
  e16.smem.bind(m16.port(0));
  e8.smem.bind(m8.port(0));
  sc_core::sc_start();
  CHECK(e32.matches_reference());
  CHECK(e16.matches_reference());
  CHECK(e8.matches_reference());
  const auto s32 = stats_to_json(e32.stats()), s16 = stats_to_json(e16.stats()), s8 = stats_to_json(e8.stats());
  CHECK(s32["smem_requests"] == 32);
  CHECK(s16["smem_requests"] == 32);
  CHECK(s32["smem_reads"] == 32);
  CHECK(s16["smem_reads"] == 64);  // half the width: twice the wavefronts
  CHECK(s8["smem_reads"] == 32);   // the same width in fewer, wider banks
  // The engine counts what the memory served.
  CHECK(stats_to_json(m16.stats())["wavefronts"] == s16["smem_reads"]);
  // Half the wavefront width is half the bandwidth: the reads take longer.
  CHECK(s16["mma_cycles"].get<double>() > s32["mma_cycles"].get<double>());
}

TEST_CASE("a wider warp instruction halves the instructions and the A fragment re-reads") {
  // Warp generation, 16 x 8 x 16 vs 16 x 16 x 16: per warp and K block 8 or 4 instructions,
  // each reading A (16 x 16 fp16: 4 registers of 32 lanes x 4 B) and its B columns (8 or 16
  // x 16 fp16: 2 or 4 registers). B is read once either way; A once per instruction.
  const mma_engine::params narrow = warp_generation();
  mma_engine::params wide = narrow;
  wide.instr_n = 16;
  banked_memory m1("m1", smem_params()), m2("m2", smem_params());
  mma_engine e1("narrow", narrow), e2("wide", wide);
  e1.smem.bind(m1.port(0));
  e2.smem.bind(m2.port(0));
  sc_core::sc_start();
  CHECK(e2.matches_reference());
  const auto s1 = stats_to_json(e1.stats()), s2 = stats_to_json(e2.stats());
  CHECK(s1["hw_instructions"] == 32);
  CHECK(s2["hw_instructions"] == 16);
  CHECK(s1["rf_reads"] == 32 * (4 + 2));
  CHECK(s2["rf_reads"] == 16 * (4 + 4));
  CHECK(s1["rf_read_bytes"] == 128 * s1["rf_reads"].get<int>());
}

TEST_CASE("bf16 operands also match the reference bit for bit") {
  mma_engine::params p;
  p.type = element_type::bf16;
  p.k = 64;
  banked_memory m("m", smem_params());
  mma_engine e("e", p);
  e.smem.bind(m.port(0));
  sc_core::sc_start();
  CHECK(e.matches_reference());
}

TEST_CASE("an instruction shape that does not tile the units is refused") {
  mma_engine::params p;
  p.scope_threads = 32;
  p.instr_m = 24;
  CHECK_FALSE(p.check().empty());
  p = mma_engine::params{};
  p.scope_threads = 16;
  CHECK_THAT(p.check().front().expected, Catch::Contains("8, 32 or 128"));
}

#include "flynn/gmma/matrix_descriptor.h"

TEST_CASE("matrix descriptors encode and decode the wgmma bit layout") {
  matrix_descriptor d;
  d.start_address = 0x1400;
  d.leading_byte_offset = 16;
  d.stride_byte_offset = 1024;
  d.swizzle = swizzle_mode::b128;
  const std::uint64_t bits = d.encode();
  CHECK((bits & 0x3fff) == 0x140);
  CHECK(((bits >> 16) & 0x3fff) == 1);
  CHECK(((bits >> 32) & 0x3fff) == 64);
  CHECK((bits >> 62) == 1);
  matrix_descriptor back;
  REQUIRE(matrix_descriptor::decode(bits, back).empty());
  CHECK(back.start_address == d.start_address);
  CHECK(back.stride_byte_offset == 1024);
  CHECK(back.swizzle == swizzle_mode::b128);
  CHECK_THAT(matrix_descriptor::decode(bits | (1ull << 15), back), Catch::Contains("reserved bits 0x8000"));
}

TEST_CASE("invalid matrix descriptors name the field") {
  matrix_descriptor d;
  d.start_address = 0x1408;
  CHECK_THAT(d.validate(), Catch::Contains("start address = 5128: expected a multiple of 16"));
  d.start_address = 0x1400;
  d.stride_byte_offset = 40;
  CHECK_THAT(d.validate(), Catch::Contains("stride byte offset = 40"));
  d.stride_byte_offset = 64;
  d.swizzle = swizzle_mode::b128;
  d.start_address = 0x1480;
  CHECK_THAT(d.validate(), Catch::Contains("1024-byte-aligned 128B swizzle pattern"));
  d.start_address = 0x1000;
  CHECK_THAT(d.validate(), Catch::Contains("multiple of the 128-byte swizzle row"));
  d.stride_byte_offset = 1024;
  CHECK(d.validate().empty());
  d.start_address = 0x1060;  // a K slice 96 bytes into the pattern's first row
  CHECK(d.validate().empty());
  d.start_address = 0x1000;
  d.start_address = 1u << 20;
  CHECK_THAT(d.validate(), Catch::Contains("less than 256 KiB"));
}

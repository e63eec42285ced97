// SIMT core tests through the platform: scheduler policies, divergence and reconvergence,
// coalescing, shared-memory bank conflicts, barriers, deadlock and fault reports.
#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "flynn/memory/banked_memory.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/simt_asm.h"
#include "flynn/platform/simt_interp.h"
#include "flynn/platform/stats_writer.h"
#include "flynn/simt/isa.h"
#include "flynn/simt/scheduler.h"
#include "flynn/simt/simt_core.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct fixture {
  fs::path dir;
  flynn::module_registry reg;
  flynn::scenario_doc sd;
  std::unique_ptr<flynn::platform> p;

  fixture(const std::string& kernel, json workload, json overrides = json::object()) {
    dir = fs::temp_directory_path() / ("flynn-simt-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "k.s") << kernel;
    workload["kernel"] = "k.s";
    workload["core"] = "sm";
    workload["memory"] = "gmem";
    json s = {{"extends", std::string(FLYNN_SOURCE_DIR) + "/scenarios/simt/simt_base.json"},
              {"name", "t"},
              {"workload", workload}};
    s.merge_patch(overrides);
    std::ofstream(dir / "s.json") << s.dump(2);
    sd = flynn::load_scenario_doc((dir / "s.json").string());
    flynn::register_builtin_modules(reg);
  }
  ~fixture() { fs::remove_all(dir); }
  flynn::run_result run(std::uint64_t max_cycles = 10000000) {
    p = std::make_unique<flynn::platform>(sd, reg);
    return p->run(max_cycles);
  }
  json stats(const std::string& m) const { return flynn::stats_to_json(p->find(m)->stats()); }
};

// out[tid] = in[tid * stride_words] (stride in parameter 2).
const char* strided_copy = R"(
        mov   r2, %tid
        ldparam r6, 0
        ldparam r7, 1
        ldparam r8, 2
        mul   r3, r2, r8
        shl   r3, r3, 2
        add   r9, r6, r3
        ld.global.32 r10, [r9]
        shl   r4, r2, 2
        add   r9, r7, r4
        st.global.32 [r9], r10
        exit
)";

}  // namespace

TEST_CASE("scheduler policies pick warps in their order") {
  std::vector<flynn::warp_view> v(4);
  for (int i = 0; i < 4; ++i) v[static_cast<std::size_t>(i)] = {true, 0, static_cast<std::uint64_t>(10 - i)};
  const std::uint64_t now = 5;
  flynn::lrr_scheduler lrr;
  CHECK(lrr.pick(v, now) == 0);
  CHECK(lrr.pick(v, now) == 1);
  v[2].ready_at = 6;  // ready one cycle later
  CHECK(lrr.pick(v, now) == 3);
  CHECK(lrr.pick(v, now + 1) == 0);
  CHECK(lrr.pick(v, now + 1) == 1);
  CHECK(lrr.pick(v, now + 1) == 2);  // ready now
  flynn::gto_scheduler gto;
  CHECK(gto.pick(v, now) == 3);  // oldest (age 7)
  CHECK(gto.pick(v, now) == 3);  // greedy: the same warp while it stays ready
  v[3].ready_at = flynn::warp_view::never;
  CHECK(gto.pick(v, now) == 1);  // then the oldest ready one (age 9)
  CHECK(gto.pick(v, now + 1) == 1);
  CHECK(gto.pick(std::vector<flynn::warp_view>(4), now) == -1);  // none ready
  flynn::two_level_scheduler two(2);
  for (auto& x : v) x.ready_at = now;
  CHECK(two.pick(v, now) == 0);  // active set {0, 1}
  CHECK(two.pick(v, now) == 1);
  CHECK(two.pick(v, now) == 0);
  two.long_latency(0);      // 0 leaves the set; 2 joins
  CHECK(two.pick(v, now) == 1);
  CHECK(two.pick(v, now) == 2);
  CHECK(two.pick(v, now - 1) == -1);  // none ready yet
}

TEST_CASE("a sub-partition's scheduler picks only its slots (first, first + stride, ...), in its policy's order") {
  std::vector<flynn::warp_view> v(8);
  for (int i = 0; i < 8; ++i) v[static_cast<std::size_t>(i)] = {true, 0, static_cast<std::uint64_t>(10 - i)};
  const std::uint64_t now = 5;
  flynn::lrr_scheduler lrr;
  lrr.serve(1, 4);  // slots 1 and 5
  CHECK(lrr.pick(v, now) == 1);
  CHECK(lrr.pick(v, now) == 5);
  CHECK(lrr.pick(v, now) == 1);
  v[1].ready_at = v[5].ready_at = flynn::warp_view::never;
  CHECK(lrr.pick(v, now) == -1);  // the others are ready, but not its own
  flynn::gto_scheduler gto;
  gto.serve(2, 4);  // slots 2 and 6: 6 is the older
  CHECK(gto.pick(v, now) == 6);
  flynn::two_level_scheduler two(1);
  two.serve(3, 4);  // slots 3 and 7, an active set of one
  CHECK(two.pick(v, now) == 3);
  CHECK(two.pick(v, now) == 3);
  two.long_latency(3);  // 7 joins
  CHECK(two.pick(v, now) == 7);
  flynn::lrr_scheduler none;
  none.serve(9, 4);  // past the slots
  CHECK(none.pick(v, now) == -1);
}

TEST_CASE("warp_policies: each entry builds its policy's class") {
  using flynn::warp_policy;
  CHECK(dynamic_cast<flynn::lrr_scheduler*>(flynn::make_scheduler(warp_policy::lrr, 2).get()));
  CHECK(dynamic_cast<flynn::gto_scheduler*>(flynn::make_scheduler(warp_policy::gto, 2).get()));
  CHECK(dynamic_cast<flynn::two_level_scheduler*>(flynn::make_scheduler(warp_policy::two_level, 2).get()));
  CHECK(flynn::choice_names(flynn::warp_policies) == "lrr, gto or two_level");
  CHECK_THROWS_AS(flynn::make_scheduler(static_cast<warp_policy>(99), 2), std::invalid_argument);
}

TEST_CASE("coalescing: unit stride is one transaction per warp and stride 32 is 32") {
  json init = json::array({{{"address", 0}, {"iota", 2048}}});
  fixture unit(strided_copy, {{"grid", 1}, {"block", 32}, {"params", {0, 65536, 1}}, {"init", init}});
  REQUIRE_FALSE(unit.run().failed());
  CHECK(unit.stats("sm")["global_transactions"] == 2);  // one load, one store
}

TEST_CASE("coalescing: lanes at consecutive addresses in lane order or reversed are one transaction with the same data") {
  // out[tid] = in[31 - tid] (a stride of -1 word from in[31], in 32-bit arithmetic): the
  // load's lanes name one segment in reverse order (a request with each lane's address),
  // the store's in order (a plain burst); both are checked against the golden
  // interpreter's memory.
  json init = json::array({{{"address", 0}, {"iota", 64}}});
  fixture f(strided_copy, {{"grid", 1}, {"block", 32}, {"params", {124, 4096, 0xffffffffu}}, {"init", init}});
  auto r = f.run();
  INFO(r.message);
  REQUIRE_FALSE(r.failed());
  f.p->verify(r);
  INFO(r.message);
  CHECK_FALSE(r.failed());
  CHECK(f.stats("sm")["global_transactions"] == 2);
  CHECK(f.stats("gmem")["word_accesses"] == 64);  // 32 words read, 32 written
  CHECK(f.stats("gmem")["wavefronts"] == 2);
}

TEST_CASE("coalescing: a stride of 32 words touches one segment per thread") {
  json init = json::array({{{"address", 0}, {"iota", 2048}}});
  fixture f(strided_copy, {{"grid", 1}, {"block", 32}, {"params", {0, 65536, 32}}, {"init", init}});
  const auto r = f.run();
  INFO(r.message);
  REQUIRE_FALSE(r.failed());
  CHECK(f.stats("sm")["global_transactions"] == 33);  // 32 for the load, 1 for the store
  CHECK(f.stats("sm")["transactions_per_request"].get<double>() == Approx(16.5));
}

TEST_CASE("shared memory: a stride of 2 words is a 2-way bank conflict") {
  const char* k = R"(
        mov   r2, %tid
        shl   r3, r2, 3           ; 8-byte stride: 2 lanes per bank
        st.shared.32 [r3], r2
        ld.shared.32 r4, [r3]
        exit
)";
  fixture f(k, {{"grid", 1}, {"block", 32}, {"shared_bytes", 256}});
  REQUIRE_FALSE(f.run().failed());
  CHECK(f.stats("smem")["wavefronts"] == 4);  // 2 requests x 2 wavefronts
  CHECK(f.stats("sm")["shared_requests"] == 2);
}

TEST_CASE("divergence: half the lanes on each path then full again") {
  const char* k = R"(
        mov   r4, %laneid
        setp.lt.s32 p0, r4, 16
        @!p0 bra else
        add   r1, r4, 1
        bra   join
else:   add   r1, r4, 2
join:   add   r1, r1, 3
        exit
)";
  fixture f(k, {{"grid", 1}, {"block", 32}});
  const auto r = f.run();
  INFO(r.message);
  REQUIRE_FALSE(r.failed());
  const auto s = f.stats("sm");
  // mov, setp, bra: 32 lanes; add, bra (then) and add (else): 16; add, exit: 32.
  CHECK(s["active_lanes_per_issue"][32] == 5);
  CHECK(s["active_lanes_per_issue"][16] == 3);
  CHECK(s["divergent_branches"] == 1);
}

TEST_CASE("barrier deadlock: threads exit before a barrier others wait on") {
  const char* k = R"(
        mov   r2, %tid
        setp.ge.s32 p0, r2, 32
        @p0 exit
        bar.sync
        exit
)";
  fixture f(k, {{"grid", 1}, {"block", 64}});
  const auto r = f.run();
  CHECK(r.state == flynn::run_result::status::fault);
  CHECK_THAT(r.message, Catch::Contains("barrier deadlock") && Catch::Contains("block 0 warp 0"));
}

TEST_CASE("an out-of-range global access is a fault naming warp thread PC and address") {
  const char* k = R"(
        mov   r2, %tid
        shl   r3, r2, 2
        add   r3, r3, 1048576
        ld.global.32 r4, [r3]
        exit
)";
  fixture f(k, {{"grid", 1}, {"block", 32}});
  const auto r = f.run();
  CHECK(r.state == flynn::run_result::status::fault);
  CHECK_THAT(r.message, Catch::Contains("warp 0") && Catch::Contains("PC 3") && Catch::Contains("0x100000"));
}

TEST_CASE("a misaligned global access is a fault") {
  const char* k = R"(
        mov   r3, 2
        ld.global.32 r4, [r3]
        exit
)";
  fixture f(k, {{"grid", 1}, {"block", 32}});
  const auto r = f.run();
  CHECK(r.state == flynn::run_result::status::fault);
  CHECK_THAT(r.message, Catch::Contains("misaligned global address 0x2"));
}

TEST_CASE("a runaway kernel is stopped by the cycle limit") {
  const char* k = R"(
loop:   add   r1, r1, 1
        bra   loop
)";
  fixture f(k, {{"grid", 1}, {"block", 32}});
  const auto r = f.run(20000);
  CHECK(r.state == flynn::run_result::status::cycle_limit);
  CHECK_THAT(r.message, Catch::Contains("0 of 1 blocks finished"));
}

TEST_CASE("a block larger than the core is bad input") {
  fixture f("exit\n", {{"grid", 1}, {"block", 2048}});
  CHECK_THROWS_WITH(f.run(), Catch::Contains("workload.block") && Catch::Contains("does not fit"));
}

TEST_CASE("dwf merges threads of different warps only where their lanes are free") {
  // Even warps take the then-path in even lanes, odd warps in odd lanes: paths merge.
  // Every warp takes the second region's then-path in lane 0 only: no merge.
  const char* k = R"(
        mov   r4, %laneid
        mov   r7, %warpid
        add   r8, r4, r7
        and   r8, r8, 1
        setp.eq.s32 p0, r8, 0
        @!p0 bra else1
        add   r1, r4, 1
        bra   join1
else1:  add   r1, r4, 2
join1:  setp.eq.s32 p1, r4, 0
        @!p1 bra join2
        add   r1, r1, 5
join2:  exit
)";
  fixture f(k, {{"grid", 1}, {"block", 256}}, {{"modules", {{"sm", {{"divergence", "dwf"}}}}}});
  const auto r = f.run();
  INFO(r.message);
  REQUIRE_FALSE(r.failed());
  const auto s = f.stats("sm");
  CHECK(s["dwf_merged_warps"].get<int>() >= 2);    // then- and else-paths of region 1
  CHECK(s["dwf_lane_collisions"].get<int>() >= 1); // lane 0 of both warps in region 2
  CHECK(s["active_lanes_per_issue"][1] == 8);      // region 2: one thread per warp, never merged
}

TEST_CASE("dwf with several instructions in flight merges only warps whose operands are ready") {
  // The shipped dwf kernel: each divergent region starts from a value loaded from global
  // memory. With a scoreboard (inflight > 1) a warp may reach the region's PC while its load
  // is still in flight; joining another warp's issue then would read the register before the
  // data arrived, and the golden check would fail.
  std::ifstream in(std::string(FLYNN_SOURCE_DIR) + "/scenarios/simt/kernels/dwf.s");
  const std::string k((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!k.empty());
  fixture f(k,
            {{"grid", 4},
             {"block", 256},
             {"params", {0, 8192}},
             {"init", {{{"address", 0}, {"random", 1024}, {"seed", 6}, {"min", 0}, {"max", 1000}}}}},
            {{"modules", {{"sm", {{"divergence", "dwf"}, {"scheduler", "gto"}, {"inflight", 2}}}}}});
  const auto r = f.run();
  INFO(r.message);
  REQUIRE_FALSE(r.failed());  // the golden check passed
  CHECK(f.stats("sm")["dwf_merged_warps"].get<int>() > 0);
}

// ---------------------------------------------------------------------------- elect.sync

TEST_CASE("elect.sync with a register membermask: the lowest executing lane it names leads") {
  // Lanes 0-3 leave; lanes 4-31 elect with the membermask 0xfffffff0 in a register: each
  // learns lane 4, and only lane 4 is the leader. The timed core is checked against the
  // golden interpreter too (the run fails otherwise).
  std::vector<std::uint32_t> leader(28, 4), is_leader(28, 0);
  is_leader[0] = 1;
  fixture f(R"(
        mov   r2, %tid
        setp.lt.u32 p1, r2, 4
   @p1  bra   out
        mov   r4, 0xfffffff0
        elect.sync r1|p2, r4
        selp  r3, 1, 0, p2
        shl   r5, r2, 2
        st.global.32 [r5+0], r1
        st.global.32 [r5+128], r3
out:    exit
)",
            {{"grid", 1}, {"block", 32},
             {"expect", {{{"address", 16}, {"values", leader}}, {{"address", 144}, {"values", is_leader}}}}});
  const auto r = f.run();
  INFO(r.message);
  CHECK_FALSE(r.failed());
}

// ---------------------------------------------------------------------------- operand collector

namespace {
// One warp (slot 0): sources r4, r8 and r12 share a bank of 4 (and of 1), r5 does not; a
// register named twice is read once. The cycles the instructions waited for their sources.
std::uint64_t operand_conflicts(unsigned banks, unsigned width = 1) {
  fixture f("        mov   r4, 1\n        mov   r8, 2\n        mov   r12, 3\n"
            "        add   r1, r4, r8\n"         // 4 banks: r4, r8 in bank 0: one cycle
            "        ffma  r2, r4, r8, r12\n"    // three in bank 0: two cycles
            "        add   r3, r4, r5\n"         // banks 0 and 1: none
            "        add   r6, r4, r4\n"         // one register: none
            "        exit\n",
            {{"grid", 1}, {"block", 32}},
            {{"modules", {{"sm", {{"operand_banks", banks}, {"operand_bank_width", width}}}}}});
  const auto r = f.run();
  INFO(r.message);
  REQUIRE_FALSE(r.failed());  // the golden check passed
  return f.stats("sm")["operand_conflict_cycles"].get<std::uint64_t>();
}
}  // namespace

TEST_CASE("operand collector: sources in one register-file bank are read one a cycle (4 banks)") {
  CHECK(operand_conflicts(4) == 1 + 2);
}

TEST_CASE("operand collector: with one bank every source after the first costs a cycle") {
  CHECK(operand_conflicts(1) == 1 + 2 + 1);
}

TEST_CASE("operand collector: off (0 banks) nothing waits") { CHECK(operand_conflicts(0) == 0); }

TEST_CASE("operand collector: banks two registers wide read two sources of a bank in one cycle") {
  // 4 banks of 2: the add's two sources in bank 0 take one cycle, the ffma's three two.
  CHECK(operand_conflicts(4, 2) == 0 + 1);
}

// ---------------------------------------------------------------------------- sub-partitions

namespace {
// `warps` warps of `body` (each instruction on its own destination, reading only r0, so a
// warp may issue one a cycle with 16 in flight) on 32-lane sub-partitions; the run's cycles.
// With `stat`, that statistic of the core instead.
std::uint64_t issue_rate_run(unsigned warps, json sm, const std::string& body, const char* stat = nullptr) {
  json base = {{"lanes", 32}, {"inflight", 16}, {"lat_alu", 4}, {"lat_sfu", 16}};
  base.merge_patch(sm);
  fixture f("        mov   r0, %tid\n" + body + "        exit\n", {{"grid", 1}, {"block", 32 * warps}},
            {{"modules", {{"sm", base}}}});
  const auto r = f.run();
  INFO(r.message);
  REQUIRE_FALSE(r.failed());
  return stat ? f.stats("sm")[stat].get<std::uint64_t>() : r.cycles;
}
// n independent adds, destinations r1 .. r32 in turn.
std::string independent_adds(unsigned n) {
  std::string b;
  for (unsigned i = 0; i < n; ++i) b += "        add   r" + std::to_string(1 + i % 32) + ", r0, 1\n";
  return b;
}
// n pairs of an fsqrt and an add, destinations r1 .. r32 in turn.
std::string sfu_and_adds(unsigned n) {
  std::string b;
  for (unsigned i = 0; i < n; ++i)
    b += "        fsqrt r" + std::to_string(1 + (2 * i) % 32) + ", r0\n        add   r" + std::to_string(2 + (2 * i) % 32) +
         ", r0, 1\n";
  return b;
}
// 4 warps x (mov, 64 adds, exit) = 264 warp instructions; the last completes 1 + 4 cycles
// after it issues.
constexpr std::uint64_t adds_issues = 4 * 66;
}  // namespace

TEST_CASE("sub-partitions: one scheduler issues one warp instruction a cycle") {
  const std::uint64_t c = issue_rate_run(4, {{"sub_partitions", 1}}, independent_adds(64));
  CHECK(c >= adds_issues);
  CHECK(c <= adds_issues + 8);
}

TEST_CASE("sub-partitions: four schedulers issue four a cycle from four warps, one on each") {
  const std::uint64_t c = issue_rate_run(4, {{"sub_partitions", 4}}, independent_adds(64));
  CHECK(c >= adds_issues / 4);
  CHECK(c <= adds_issues / 4 + 8);
}

TEST_CASE("sub-partitions: warp slot s issues on sub-partition s mod 4, so two warps issue two a cycle") {
  // Warps 0 and 1 on sub-partitions 0 and 1; sub-partitions 2 and 3 have no warp.
  const std::uint64_t c = issue_rate_run(2, {{"sub_partitions", 4}}, independent_adds(64));
  CHECK(c >= 66);
  CHECK(c <= 66 + 8);
}

TEST_CASE("sub-partitions: eight warps on four sub-partitions still issue four a cycle") {
  const std::uint64_t c = issue_rate_run(8, {{"sub_partitions", 4}}, independent_adds(64));
  CHECK(c >= 2 * 66);
  CHECK(c <= 2 * 66 + 8);
}

// Dispatch ports: 4 warps x 32 (fsqrt, add) pairs on one sub-partition.
TEST_CASE("dispatch ports: sfu instructions on 4 sfu lanes hold them 8 cycles while the adds issue") {
  // 128 fsqrt x 8 cycles: the adds (and movs, exits) issue under them.
  const std::uint64_t c = issue_rate_run(4, {{"sfu_lanes", 4}}, sfu_and_adds(32));
  CHECK(c >= 128 * 8);
  CHECK(c <= 128 * 8 + 40);
}

TEST_CASE("dispatch ports: cycles the ready warps wait for the busy sfu lanes are structural idle cycles") {
  // The 1024 sfu cycles less the cycles that issue (the 264 instructions, the fsqrt among
  // them) are cycles without an issue, and in each a warp is ready but for the sfu lanes.
  const std::uint64_t idle = issue_rate_run(4, {{"sfu_lanes", 4}}, sfu_and_adds(32), "idle_cycles_structural");
  CHECK(idle >= 1024 - 264 - 8);
  CHECK(idle <= 1024 - 264);
}

TEST_CASE("dispatch ports: sfu instructions that share 4 lanes hold every instruction behind them") {
  // Every instruction holds the 4 lanes 8 cycles: (128 + 128 + 8) x 8.
  const std::uint64_t c = issue_rate_run(4, {{"lanes", 4}}, sfu_and_adds(32));
  CHECK(c >= 264 * 8);
  CHECK(c <= 264 * 8 + 40);
}

TEST_CASE("sub-partitions: each has its own sfu lanes") {
  // 4 sub-partitions of one warp each: 32 fsqrt x 8 cycles per sub-partition, in parallel.
  const std::uint64_t c = issue_rate_run(4, {{"sub_partitions", 4}, {"sfu_lanes", 4}}, sfu_and_adds(32));
  CHECK(c >= 32 * 8);
  CHECK(c <= 32 * 8 + 40);
}

TEST_CASE("sub-partitions: each has its own register-file banks") {
  // ffma r.., r0, r0, r32 reads r0 and r32 from one bank of 2: one conflict cycle, and the
  // bank is free again by the next ffma (a mov of an immediate, which reads nothing, between).
  // The four warps are the first of their sub-partitions (all in the same bank position) and
  // issue their ffma in the same cycles: 4 x 16 = 64 cycles when each sub-partition has its own
  // banks (one shared set would make them wait for each other).
  std::string b = "        mov   r32, 1\n";
  for (unsigned i = 0; i < 16; ++i)
    b += "        ffma  r" + std::to_string(1 + i) + ", r0, r0, r32\n        mov   r" + std::to_string(17 + i) + ", 5\n";
  CHECK(issue_rate_run(4, {{"sub_partitions", 4}, {"operand_banks", 2}}, b, "operand_conflict_cycles") == 64);
}

// ---------------------------------------------------------------------------- scoreboard

namespace {
// One warp, 4 instructions in flight, after a load from global memory: the cycles nothing
// could issue (the core's idle cycles waiting on memory or on a register), which the load's
// 200-cycle latency fills when the next instruction waits for it.
std::uint64_t memory_wait(const std::string& body, unsigned inflight = 4) {
  fixture f("        mov   r1, 0\n        mov   r2, 256\n" + body + "        exit\n", {{"grid", 1}, {"block", 32}},
            {{"modules", {{"sm", {{"inflight", inflight}}}}}});
  const auto r = f.run();
  INFO(body << r.message);
  REQUIRE_FALSE(r.failed());
  const auto st = f.stats("sm");
  return st["idle_cycles_memory"].get<std::uint64_t>() + st["idle_cycles_scoreboard"].get<std::uint64_t>();
}
}  // namespace

// (One run per test case: SystemC elaborates once per process.)
TEST_CASE("scoreboard: independent instructions issue under a long load, whatever their unused fields") {
  // None of them names r0 (the unused rb and rc fields of `add r3, r4, 1` hold 0): nothing waits.
  CHECK(memory_wait("        ld.global.32 r0, [r1]\n        add r3, r4, 1\n        add r5, r6, 2\n"
                    "        not r7, r8\n        mov r9, 3\n        st.global.32 [r2], r3\n") == 0);
}

TEST_CASE("scoreboard: an instruction that reads a register being loaded waits for it") {
  CHECK(memory_wait("        ld.global.32 r0, [r1]\n        add r3, r4, 1\n        add r5, r0, 2\n") >= 150);
}

TEST_CASE("scoreboard: a write to a register being loaded waits for the load (WAW)") {
  CHECK(memory_wait("        ld.global.32 r0, [r1]\n        mov r0, 7\n") >= 150);
}

TEST_CASE("scoreboard: a 64-bit store waits for its second register") {
  CHECK(memory_wait("        ld.global.32 r5, [r1]\n        st.global.64 [r2], r4\n") >= 150);  // stores r4, r5
}

TEST_CASE("scoreboard: a 32-bit store does not wait for the register after its own") {
  CHECK(memory_wait("        ld.global.32 r5, [r1]\n        st.global.32 [r2], r4\n") == 0);
}

TEST_CASE("scoreboard: a 128-bit store waits for its last register") {
  CHECK(memory_wait("        ld.global.32 r7, [r1]\n        st.global.128 [r2], r4\n") >= 150);  // r4..r7
}

TEST_CASE("scoreboard: a use of the second register of a 64-bit load waits for it") {
  CHECK(memory_wait("        ld.global.64 r4, [r1]\n        add r6, r5, 1\n") >= 150);
}

TEST_CASE("in-flight limit: a load in flight leaves one slot of two to the instructions behind it") {
  // 8 lanes: an add occupies them 4 cycles and completes 4 later, so each of the 6 adds
  // after the first (and the exit) waits 4 cycles for the one before to leave the pipeline,
  // not for the 200-cycle load.
  const std::uint64_t waited = memory_wait(
      "        ld.global.32 r0, [r1]\n        add r3, r4, 1\n        add r5, r6, 1\n        add r7, r8, 1\n"
      "        add r9, r10, 1\n        add r11, r12, 1\n        add r13, r14, 1\n", 2);
  CHECK(waited == 6 * 4);
}

// ---------------------------------------------------------------------------- reads/writes

namespace {
std::vector<unsigned> regs(const flynn::simt::reg_set& s) {
  std::vector<unsigned> v;
  s.for_each([&](unsigned r) { v.push_back(r); });
  std::sort(v.begin(), v.end());
  return v;
}
flynn::simt::instr one(const std::string& text) { return flynn::simt::assemble(text + "\n", "k.s").code.at(0); }

// The golden interpreter as an oracle for reads() and writes(): one thread runs the
// instruction with r0..r15 and p0..p7 set, then stores r0..r15, p0..p7 and the shared
// memory to global memory.
constexpr unsigned window = 16;
constexpr std::uint32_t dump = 4096, shared_dump = 6144, shared_size = 1024;
std::uint32_t initial(unsigned k) { return 256 + 32 * k; }  // 16-byte aligned addresses in both spaces

struct outcome {
  bool ok = false;
  std::vector<unsigned char> global;
  std::uint32_t word(std::uint32_t addr) const {
    std::uint32_t v = 0;
    std::memcpy(&v, &global[addr], 4);
    return v;
  }
};

outcome run_one(const std::string& instruction, const std::array<std::uint32_t, window>& r, unsigned preds) {
  std::string k;
  for (unsigned i = 0; i < window; ++i) k += "mov r" + std::to_string(i) + ", " + std::to_string(r[i]) + "\n";
  k += "mov r20, 1\n";
  for (unsigned p = 0; p < 8; ++p) k += "setp.eq.s32 p" + std::to_string(p) + ", r20, " + std::to_string((preds >> p) & 1) + "\n";
  k += instruction + "\nmov r30, " + std::to_string(dump) + "\n";
  for (unsigned i = 0; i < window; ++i) k += "st.global.32 [r30+" + std::to_string(4 * i) + "], r" + std::to_string(i) + "\n";
  for (unsigned p = 0; p < 8; ++p)
    k += "selp r31, r20, 0, p" + std::to_string(p) + "\nst.global.32 [r30+" + std::to_string(64 + 4 * p) + "], r31\n";
  k += "mov r32, 0\ncopy: ld.shared.32 r33, [r32]\nst.global.32 [r32+" + std::to_string(shared_dump) +
       "], r33\nadd r32, r32, 4\nsetp.lt.u32 p7, r32, " + std::to_string(shared_size) + "\n@p7 bra copy\nexit\n";
  flynn::simt::launch l;
  l.grid = 1;
  l.block = 1;
  l.params = {12345, 678};
  l.shared_bytes = shared_size;
  outcome o;
  o.global.resize(8192);
  for (std::size_t i = 0; i < o.global.size(); ++i) o.global[i] = static_cast<unsigned char>(i * 7 + 3);
  o.ok = flynn::simt::interpret(flynn::simt::assemble(k, "probe.s"), l, o.global, {}).ok;
  return o;
}

// The same result, but for the dump slot of what was perturbed (its own value).
bool same(const outcome& a, const outcome& b, std::uint32_t ignore_slot) {
  if (a.ok != b.ok) return false;
  if (!a.ok) return true;
  for (std::uint32_t x = 0; x < a.global.size(); x += 4)
    if (x != ignore_slot && a.word(x) != b.word(x)) return false;
  return true;
}

// Every register in reads() changes the result for some value (it is read), every other
// one never does (nothing else is read); registers outside writes() keep their values
// (nothing else is written) and those in it change (they are written).
void cross_check(const std::string& instruction) {
  INFO(instruction);
  const flynn::simt::instr in = one(instruction);
  const flynn::simt::reg_set rd = flynn::simt::reads(in), wr = flynn::simt::writes(in);
  const std::array<std::uint32_t (*)(std::uint32_t), 5> perturb = {
      [](std::uint32_t v) { return v + 16; }, [](std::uint32_t v) { return v + 1; },
      [](std::uint32_t v) { return v >> 4; }, [](std::uint32_t v) { return v ^ 0x80000000u; },
      [](std::uint32_t v) { return v ^ 0x4b000000u; }};  // small, odd, negative, a large float
  std::array<std::uint32_t, window> base_r{};
  for (unsigned k = 0; k < window; ++k) base_r[k] = initial(k);
  std::array<bool, window> reg_matters{}, reg_written{};
  std::array<bool, 8> pred_matters{}, pred_written{};
  for (unsigned preds : {0xaau, 0x55u}) {  // each predicate both ways (a guard on and off)
    const outcome base = run_one(instruction, base_r, preds);
    REQUIRE(base.ok);
    for (unsigned k = 0; k < window; ++k) {
      const bool changed = base.word(dump + 4 * k) != initial(k);
      reg_written[k] = reg_written[k] || changed;
      if (!wr.has(k)) CHECK_FALSE(changed);
      for (auto f : perturb) {
        auto r = base_r;
        r[k] = f(r[k]);
        const bool unaffected = same(base, run_one(instruction, r, preds), dump + 4 * k);
        if (!rd.has(k)) CHECK(unaffected);
        reg_matters[k] = reg_matters[k] || !unaffected;
      }
    }
    for (unsigned p = 0; p < 8; ++p) {
      const bool changed = base.word(dump + 64 + 4 * p) != ((preds >> p) & 1);
      pred_written[p] = pred_written[p] || changed;
      if (!wr.has_pred(p)) CHECK_FALSE(changed);
      const bool unaffected = same(base, run_one(instruction, base_r, preds ^ (1u << p)), dump + 64 + 4 * p);
      if (!rd.has_pred(p)) CHECK(unaffected);
      pred_matters[p] = pred_matters[p] || !unaffected;
    }
  }
  for (unsigned k = 0; k < window; ++k) {
    if (rd.has(k)) CHECK(reg_matters[k]);
    if (wr.has(k)) CHECK(reg_written[k]);
  }
  for (unsigned p = 0; p < 8; ++p) {
    if (rd.has_pred(p)) CHECK(pred_matters[p]);
    if (wr.has_pred(p)) CHECK(pred_written[p]);
  }
}
}  // namespace

TEST_CASE("reads() and writes() name exactly the registers the golden interpreter reads and writes") {
  using flynn::simt::op;
  const std::vector<std::string> probes = {
      "mov r1, r2", "mov r1, 7", "mov r1, %laneid", "ldparam r1, 0",
      "add r1, r2, r3", "add r1, r2, 9", "sub r1, r2, r3", "mul r1, r2, 5", "mulhi r1, r2, r3",
      "mad r1, r2, r3, r4", "div r1, r2, r3", "rem r1, r2, r3", "and r1, r2, r3", "or r1, r2, 6",
      "xor r1, r2, r3", "not r1, r2", "shl r1, r2, r3", "shr r1, r2, 3", "sra r1, r2, r3", "min r1, r2, r3",
      "max r1, r2, 9", "fadd r1, r2, r3", "fsub r1, r2, r3", "fmul r1, r2, r3", "ffma r1, r2, r3, r4",
      "fmin r1, r2, r3", "fmax r1, r2, r3", "fdiv r1, r2, r3", "fsqrt r1, r2", "cvt.f.s r1, r2",
      "cvt.s.f r1, r2", "setp.lt.s32 p2, r2, r3", "setp.ne.u32 p2, r2, 320", "selp r1, r2, r3, p3",
      "selp r1, r2, 4, p3", "selp r1, 7, r2, p3", "selp r1, 1, 0, p4", "ld.global.32 r1, [r2+16]", "ld.global.64 r4, [r2]", "ld.global.128 r8, [r3]",
      "ld.shared.64 r4, [r2]", "st.global.32 [r2+16], r1", "st.global.64 [r2], r4", "st.global.128 [r3], r8",
      "st.shared.64 [r2], r6", "@p1 add r1, r2, r3", "@!p2 st.global.64 [r2], r4", "@p1 ld.global.64 r8, [r3]",
      "nop", "bar.sync",
      // 64-bit values in register pairs, predicate logic, narrow accesses (the PTX lowering's)
      "mov64 r2, r4", "mov64 r2, 7", "add64 r2, r4, r6", "add64 r2, r4, 9", "mul.wide.s32 r2, r4, r5",
      "mul.wide.u32 r2, r4, 7", "mul.wide.u16 r1, r2, r3", "mul.wide.s16 r1, r2, 5", "cvt64.s32 r2, r3",
      "cvt64.u32 r2, r3", "plogic.and p1, p2, p3", "plogic.or p1, p2, p3", "plogic.xor p1, p2, p3",
      "plogic.not p2, p4", "ld.global.8 r1, [r2+16]", "ld.global.s16 r1, [r2]", "ld.shared.s8 r1, [r2+3]",
      "st.global.8 [r2+17], r1", "st.shared.16 [r2+2], r6", "ld.global.32 r1, [64]", "st.shared.32 [8], r3",
      "ldparam.64 r2, 0", "mov r1, %tid.y", "@p1 add64 r2, r4, r6", "atom.global.add.u32 r1, [r2+16], r3",
      "atom.shared.exch.u32 r1, [r2], r3", "atom.shared.add.u32 r1, [r2+8], 1", "atom.global.max.s32 r1, [r2+4], r5", "shfl.down r1|p2, r2, 1, r4, 1",
      "shfl.idx r1, r2, 0, 31, 1", "@p3 shfl.bfly r1, r2, r6, 31, 0xffffffff", "logic64.and r2, r4, r6",
      "logic64.or r2, r4, 65536", "logic64.xor r2, r4, r6", "elect.sync r1|p2, 0xffffffff",
      "@p1 elect.sync p2, 1"};
  std::vector<bool> covered(static_cast<std::size_t>(op::count_));
  for (const auto& p : probes) {
    cross_check(p);
    covered[static_cast<std::size_t>(one(p).code)] = true;
  }
  // Every synchronous opcode is probed (branches and exit change the path, not registers:
  // they read only their guard; mma.sync needs its whole warp, and the next test case lists
  // its operands).
  for (std::size_t c = 0; c < covered.size(); ++c) {
    const auto o = static_cast<op>(c);
    if (!flynn::simt::is_async(o) && o != op::bra && o != op::exit && o != op::mma_sync) CHECK(covered[c]);
  }
}

TEST_CASE("reads() and writes() of branches and the asynchronous instructions") {
  using flynn::simt::reads;
  using flynn::simt::writes;
  using V = std::vector<unsigned>;
  CHECK(regs(reads(one("@p3 bra x\nx: nop"))).empty());
  CHECK(reads(one("@p3 bra x\nx: nop")).preds == 1u << 3);
  CHECK(regs(reads(one("@!p1 exit"))).empty());
  // Coordinates: one register per dimension of the launch's tensor map.
  CHECK(regs(reads(one("tma.load [r4+16], 0, [r8], r10"), 2)) == V{4, 8, 10, 11});
  CHECK(regs(reads(one("tma.store [r4], 1, r20"), 3)) == V{4, 20, 21, 22});
  CHECK(regs(writes(one("tma.load [r4], 0, [r8], r10"))).empty());
  // wgmma: descriptor pairs or the .rs fragment, the accumulators when scale-d is 1.
  CHECK(regs(reads(one("wgmma.m64n16k16.f32.bf16 r0, r8, r10, 1"))) == V{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(regs(reads(one("wgmma.m64n16k16.f32.bf16 r0, r8, r10, 0"))) == V{8, 9, 10, 11});
  CHECK(regs(reads(one("wgmma.m64n16k16.f32.f16.rs r0, r12, r10, 0"))) == V{10, 11, 12, 13, 14, 15});
  CHECK(regs(writes(one("wgmma.m64n16k16.f32.bf16 r0, r8, r10, 0"))) == V{0, 1, 2, 3, 4, 5, 6, 7});
  // mma.sync: A (4), B (2) and C (4) in, D (4) out.
  CHECK(regs(reads(one("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r12, r0, r4, r8"))) ==
        V{0, 1, 2, 3, 4, 5, 8, 9, 10, 11});
  CHECK(regs(writes(one("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 r12, r0, r4, r8"))) == V{12, 13, 14, 15});
  CHECK(flynn::simt::highest_register(one("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 r20, r0, r30, r8")) == 31);
  CHECK(regs(reads(one("mbarrier.init [r2+8], r3"))) == V{2, 3});
  CHECK(regs(reads(one("mbarrier.init [r2], 1"))) == V{2});
  CHECK(regs(reads(one("mbarrier.arrive [r6]"))) == V{6});
  CHECK(regs(reads(one("mbarrier.wait [r2], r5"))) == V{2, 5});
  for (const char* none : {"wgmma.commit_group", "wgmma.wait_group 1", "tma.wait"})
    CHECK(regs(reads(one(none))).empty());
  // Register allocation sees the same operands.
  CHECK(flynn::simt::highest_register(one("setp.lt.s32 p0, r1, r9")) == 9);
  CHECK(flynn::simt::highest_register(one("tma.load [r4], 0, [r8], r10")) == 14);
}

// Two cores on one global memory (a port each): `sm` stores each word's own address to word tid of 0x1000
// early in the run; the reader, after a delay loop of some 500 cycles, loads those words and
// stores them at 0x2000. The reader's loads reach the memory long after the writes have
// landed, so they see the written values whichever core's process SystemC runs first (the
// reader's instance name puts it before or after `sm`) and with any quantum: the memory grants
// both cores' requests in simulated-time order and a load takes its data from the memory as
// it is at the load's own cycle.
namespace {
const char* early_writer = R"(
        mov   r2, %tid
        shl   r3, r2, 2
        add   r5, r3, 4096
        st.global.32 [r5], r5
        exit
)";
// The reader without the delay: its loads meet the writer's stores in the same banks at the
// same cycles.
const std::string eager_reader = R"(
        mov   r2, %tid
        shl   r3, r2, 2
        add   r4, r3, 4096
        ld.global.32 r5, [r4]
        add   r6, r3, 8192
        st.global.32 [r6], r5
        exit
)";
const std::string late_reader = R"(
        mov   r1, 0
loop:   add   r1, r1, 1
        setp.lt.s32 p0, r1, 20
        @p0 bra loop)" + eager_reader;

// A second SIMT core, `name`, beside the workload's core `sm` of the base platform: it gets
// a port of its own on `gmem` (banks shared by the ports), a small shared memory, and
// `kernel` (one block of 32 threads).
struct second_core {
  std::string base = "simt/simt_base.json";
  std::string workload_kernel = early_writer;
  std::string name, kernel;
  unsigned quantum = 1000;
  std::uint64_t peek_at = 0x2000;  // 32 words of gmem returned as "data"
};

// One simulation per process: each run goes in a child process, which writes the words at
// peek_at and the stats to a file.
json run_second_core(const second_core& c) {
  const fs::path out = fs::temp_directory_path() / ("flynn-two-cores-" + std::to_string(::getpid()) + ".json");
  const pid_t child = ::fork();
  if (child == 0) {
    json result;
    try {
      fixture f(c.workload_kernel, json::object(), {{"extends", std::string(FLYNN_SOURCE_DIR) + "/scenarios/" + c.base}});
      json& d = f.sd.doc;
      if (!d["workload"].contains("grid")) d["workload"]["grid"] = 1u;
      if (!d["workload"].contains("block")) d["workload"]["block"] = 32u;
      json& gmem = d["modules"]["gmem"];
      const unsigned port = gmem.value("shared_ports", 1u);  // the new port: after the shared ones
      REQUIRE(gmem.value("load_ports", 0u) + gmem.value("store_ports", 0u) == 0);
      gmem["shared_ports"] = port + 1;
      gmem["multiported_banks"] = false;
      d["modules"]["sm"]["quantum"] = c.quantum;
      d["modules"]["smem2"] = {{"type", "banked_memory"}, {"size_bytes", 1024u}, {"word_bytes", 4u}, {"banks", 32u}};
      d["modules"][c.name] = {{"type", "simt_core"}, {"quantum", c.quantum}};
      d["bindings"].push_back(json::array({c.name + ".global", "gmem.port" + std::to_string(port)}));
      d["bindings"].push_back(json::array({c.name + ".shared", "smem2.port0"}));
      f.p = std::make_unique<flynn::platform>(f.sd, f.reg);
      auto* core = dynamic_cast<flynn::simt_core*>(f.p->find(c.name));
      flynn::simt_launch l;
      l.grid = 1;
      l.block = 32;
      core->load(flynn::simt::assemble(c.kernel, "second.s"), l);
      const auto r = f.p->simulate(1000000);
      result["message"] = r.message;
      result["failed"] = r.failed();
      std::array<std::uint32_t, 32> got{};
      dynamic_cast<flynn::banked_memory*>(f.p->find("gmem"))->peek(c.peek_at, reinterpret_cast<unsigned char*>(got.data()),
                                                                  sizeof got);
      result["data"] = got;
      result["gmem"] = f.stats("gmem");
      result["second"] = f.stats(c.name);
    } catch (const std::exception& e) {
      result["message"] = e.what();
      result["failed"] = true;
    }
    std::ofstream(out) << result.dump();
    std::_Exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  json result;
  std::ifstream(out) >> result;
  fs::remove(out);
  return result;
}

json run_two_cores(const std::string& reader_name, unsigned quantum, const std::string& reader_kernel = late_reader) {
  second_core c;
  c.name = reader_name;
  c.kernel = reader_kernel;
  c.quantum = quantum;
  return run_second_core(c);
}
}  // namespace

TEST_CASE("two cores on one memory: a load sees the stores of earlier cycles whatever the process order") {
  for (unsigned quantum : {1u, 1000u}) {
    const json before = run_two_cores("a_reader", quantum), after = run_two_cores("z_reader", quantum);
    for (const json* r : {&before, &after}) {
      INFO("quantum " << quantum << ": " << r->at("message").get<std::string>());
      REQUIRE_FALSE(r->at("failed").get<bool>());
      for (unsigned i = 0; i < 32; ++i) {
        INFO("thread " << i);
        CHECK(r->at("data")[i] == 0x1000 + 4 * i);
      }
    }
    CHECK(before["gmem"] == after["gmem"]);
    CHECK(before["second"] == after["second"]);
  }
}

TEST_CASE("two cores contending for the same banks are granted in simulated-time order, whatever the process order") {
  for (unsigned quantum : {1u, 1000u}) {
    INFO("quantum " << quantum);
    const json before = run_two_cores("a_reader", quantum, eager_reader),
               after = run_two_cores("z_reader", quantum, eager_reader);
    REQUIRE_FALSE(before["failed"].get<bool>());
    REQUIRE_FALSE(after["failed"].get<bool>());
    CHECK(before["gmem"]["bank_conflicts"].get<std::uint64_t>() > 0);  // they do meet
    CHECK(before["gmem"] == after["gmem"]);
    CHECK(before["second"] == after["second"]);
    CHECK(before["data"] == after["data"]);
  }
}

// tma_copy.json's copy, started after a delay loop by a core running ahead of simulated time,
// while a second core stores a word into row 60 of the source tensor early in the run: the
// copy's rows are read at their cycles, after the store has landed, so the destination
// receives the stored word, whichever core's process SystemC runs first.
namespace {
// tma_copy.s with a delay loop before its copy.
std::string delayed_copy() {
  std::ifstream in(std::string(FLYNN_SOURCE_DIR) + "/scenarios/gmma/kernels/tma_copy.s");
  std::string text, line;
  while (std::getline(in, line)) {
    text += line + "\n";
    if (line.find("@p0  exit") != std::string::npos)
      text += "        mov   r9, 0\nloop:   add   r9, r9, 1\n        setp.lt.s32 p1, r9, 20\n   @p1  bra   loop\n";
  }
  REQUIRE(text.find("loop:") != std::string::npos);
  return text;
}
const char* early_store = R"(
        mov   r1, %tid
        setp.ne.s32 p0, r1, 0
   @p0  exit
        mov   r6, 7680                  ; row 60 of tensor 0 (128 bytes a row)
        mov   r7, 12345
        st.global.32 [r6], r7
        exit
)";
}  // namespace

TEST_CASE("tma.load reads global memory at its cycles: it sees another core's earlier store") {
  const std::string copy = delayed_copy();
  for (const char* name : {"a_store", "z_store"}) {
    second_core c;
    c.base = "gmma/tma_copy.json";
    c.workload_kernel = copy;
    c.name = name;
    c.kernel = early_store;
    c.peek_at = 8192 + 7680;  // row 60 of the destination tensor
    const json r = run_second_core(c);
    INFO(name << ": " << r["message"].get<std::string>());
    REQUIRE_FALSE(r["failed"].get<bool>());
    CHECK(r["data"][0] == 12345);
  }
}

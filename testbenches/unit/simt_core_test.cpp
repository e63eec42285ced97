// SIMT core tests through the platform: scheduler policies, divergence and reconvergence,
// coalescing, shared-memory bank conflicts, barriers, deadlock and fault reports.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "flynn/platform/errors.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/stats_writer.h"
#include "flynn/simt/scheduler.h"

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
  for (int i = 0; i < 4; ++i) v[static_cast<std::size_t>(i)] = {true, true, static_cast<std::uint64_t>(10 - i)};
  flynn::lrr_scheduler lrr;
  CHECK(lrr.pick(v) == 0);
  CHECK(lrr.pick(v) == 1);
  v[2].ready = false;
  CHECK(lrr.pick(v) == 3);
  flynn::gto_scheduler gto;
  CHECK(gto.pick(v) == 3);  // oldest (age 7)
  CHECK(gto.pick(v) == 3);  // greedy: the same warp while it stays ready
  v[3].ready = false;
  CHECK(gto.pick(v) == 1);  // then the oldest ready one (age 9)
  flynn::two_level_scheduler two(2);
  for (auto& x : v) x.ready = true;
  CHECK(two.pick(v) == 0);  // active set {0, 1}
  CHECK(two.pick(v) == 1);
  CHECK(two.pick(v) == 0);
  two.long_latency(0);      // 0 leaves the set; 2 joins
  CHECK(two.pick(v) == 1);
  CHECK(two.pick(v) == 2);
}

TEST_CASE("coalescing: unit stride is one transaction per warp and stride 32 is 32") {
  json init = json::array({{{"address", 0}, {"iota", 2048}}});
  fixture unit(strided_copy, {{"grid", 1}, {"block", 32}, {"params", {0, 65536, 1}}, {"init", init}});
  REQUIRE_FALSE(unit.run().failed());
  CHECK(unit.stats("sm")["global_transactions"] == 2);  // one load, one store
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

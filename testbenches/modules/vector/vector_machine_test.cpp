// Vector machine tests through the platform: chaining corner cases, masks, VL changes,
// functional-mismatch detection, simulated faults and bad programs.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "flynn/memory/banked_memory.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/stats_writer.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A scenario extending the shipped Cray base platform, with its own program.
struct fixture {
  fs::path dir;
  flynn::module_registry reg;
  flynn::scenario_doc sd;
  std::unique_ptr<flynn::platform> p;

  fixture(const std::string& program, json overrides = json::object()) {
    dir = fs::temp_directory_path() / ("flynn-vm-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "prog.s") << program;
    json s = {{"extends", std::string(FLYNN_SOURCE_DIR) + "/scenarios/vector/cray_base.json"},
              {"name", "t"},
              {"workload", {{"program", "prog.s"}, {"init", json::array()}}}};
    s.merge_patch(overrides);
    std::ofstream(dir / "s.json") << s.dump(2);
    sd = flynn::load_scenario_doc((dir / "s.json").string());
    flynn::register_builtin_modules(reg);
  }
  ~fixture() { fs::remove_all(dir); }
  flynn::run_result run(std::uint64_t max_cycles = 100000) {
    p = std::make_unique<flynn::platform>(sd, reg);
    return p->run(max_cycles);
  }
  json stats(const std::string& m) const { return flynn::stats_to_json(p->find(m)->stats()); }
};

// The lecture's program as shipped: C[i] = (A[i] + B[i]) >> 1 for 50 elements.
std::string shipped_program(const std::string& name) {
  const std::string path = std::string(FLYNN_SOURCE_DIR) + "/scenarios/vector/programs/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
const std::string average = shipped_program("average_vector.s");

}  // namespace

TEST_CASE("cray1 chaining: a consumer that misses the chain slot waits for the whole vector") {
  // The store issues only when the port frees (cycle 122), after the first shifted element
  // (cycle 78): it missed the slot and waits for all of v3 (cycle 127): 127 + 49 + 11 = 187.
  fixture f(average, {{"modules", {{"vpu", {{"chaining", "cray1"}}}}}});
  const auto r = f.run();
  REQUIRE_FALSE(r.failed());
  CHECK(r.cycles == 187);
  CHECK(f.stats("vpu")["unchained_operands"] == 1);
  CHECK(f.stats("vpu")["chained_operands"] == 2);
}

TEST_CASE("flexible chaining forwards element by element; none waits for whole vectors") {
  fixture f(average, {{"modules", {{"vpu", {{"chaining", "flexible"}}}}}});
  const auto r = f.run();
  REQUIRE_FALSE(r.failed());
  CHECK(r.cycles == 182);
  CHECK(f.stats("vpu")["chained_operands"] == 3);
}

TEST_CASE("chaining across a VL change reads the producer's elements in flight") {
  // vadd with VL 20 chains on the first 20 elements of a load issued with VL 50.
  fixture f(R"(
        setvl 50
        vld   v0, A
        setvl 20
        vadd  v1, v0, v0
        vst   B, v1
        .data 0
A:      .space 50
B:      .space 50
)",
            {{"modules", {{"vpu", {{"chaining", "flexible"}}}}},
             {"workload", {{"init", json::array({{{"symbol", "A"}, {"iota", 50}, {"start", 1}}})},
                           {"expect", json::array({{{"symbol", "B"}, {"iota", 20}, {"start", 2}, {"step", 2}}})}}}});
  const auto r = f.run();
  INFO(r.message);
  REQUIRE_FALSE(r.failed());
  // load issued at 1, element i back at 12 + i; setvl at 2; vadd issues at 3 and chains:
  // element i starts at 12 + i, done 16 + i; the store waits for the port (held by the load
  // until 61) and then streams: 61 + 19 + 11 = 91.
  CHECK(r.cycles == 91);
  CHECK(f.stats("vpu")["chained_operands"] == 2);
}

TEST_CASE("a run whose memory differs from the golden interpreter is a mismatch") {
  fixture f(average);
  auto r = f.run();
  REQUIRE_FALSE(r.failed());
  // Corrupt one word of C after the run and check again.
  auto* mem = dynamic_cast<flynn::banked_memory*>(f.p->find("mem"));
  const std::uint64_t bad = 12345;
  mem->poke(800 + 8 * 7, reinterpret_cast<const unsigned char*>(&bad), 8);
  flynn::run_result again;
  f.p->verify(again);
  CHECK(again.state == flynn::run_result::status::mismatch);
  CHECK_THAT(again.message, Catch::Contains("856") && Catch::Contains("golden"));
}

TEST_CASE("expected values that the program does not produce are a mismatch") {
  fixture f(average, {{"workload", {{"expect", json::array({{{"symbol", "C"}, {"values", {1, 2, 3}}}})}}}});
  const auto r = f.run();
  CHECK(r.state == flynn::run_result::status::mismatch);
  CHECK_THAT(r.message, Catch::Contains("workload.expect[0]"));
}

TEST_CASE("a misaligned vector address is a fault naming the PC - instruction and address") {
  fixture f(R"(
        li    r1, 4
        setvl 8
        vld   v0, [r1]
)");
  const auto r = f.run();
  CHECK(r.state == flynn::run_result::status::fault);
  CHECK_THAT(r.message, Catch::Contains("PC 2") && Catch::Contains("vld") && Catch::Contains("[r1]") &&
                             Catch::Contains("misaligned address 0x4"));
}

TEST_CASE("an out-of-range scalar load is a fault naming the address") {
  fixture f(R"(
        li    r1, 1048576
        ld    r2, [r1]
)");
  const auto r = f.run();
  CHECK(r.state == flynn::run_result::status::fault);
  CHECK_THAT(r.message, Catch::Contains("PC 1") && Catch::Contains("0x100000") && Catch::Contains("ADDRESS_ERROR"));
}

TEST_CASE("VL above the register length is a fault") {
  fixture f(R"(
        setvl 65
)");
  const auto r = f.run();
  CHECK(r.state == flynn::run_result::status::fault);
  CHECK_THAT(r.message, Catch::Contains("VL 65 above the register length 64"));
}

TEST_CASE("a runaway program is stopped by the cycle limit with its PC reported") {
  fixture f(R"(
loop:   add   r1, r1, 1
        br    loop
)");
  const auto r = f.run(5000);
  CHECK(r.state == flynn::run_result::status::cycle_limit);
  CHECK(r.cycles == 5000);
  CHECK_THAT(r.message, Catch::Contains("program not finished at PC"));
}

TEST_CASE("assembler errors in a scenario's program are bad input with file:line:col") {
  fixture f(R"(
        setvl 8
        vadd  v1, v9, v0
)");
  try {
    f.p = std::make_unique<flynn::platform>(f.sd, f.reg);
    FAIL("no error");
  } catch (const flynn::input_error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("prog.s:3:19") && Catch::Contains("v9"));
  }
}

TEST_CASE("a workload image naming an unknown symbol is bad input with a suggestion") {
  fixture f(average, {{"workload", {{"init", json::array({{{"symbol", "AA"}, {"iota", 4}}})}}}});
  try {
    f.p = std::make_unique<flynn::platform>(f.sd, f.reg);
    FAIL("no error");
  } catch (const flynn::input_error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("workload.init[0].symbol") && Catch::Contains("did you mean 'A'"));
  }
}

TEST_CASE("masked execution: density-time spends unit time only on set mask bits") {
  const char* prog = R"(
        setvl 16
        vld   v0, A
        vcmpne v0, 0
        vadd.m v1, v0, 100
        vst   B, v1
        .data 0
A:      .word 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0
B:      .space 16
)";
  json expect = json::array({{{"symbol", "B"}, {"values", {101, 0, 0, 0, 102, 0, 0, 0, 103, 0, 0, 0, 104, 0, 0, 0}}}});
  fixture f(prog, {{"modules", {{"vpu", {{"masking", "density_time"}}}}}, {"workload", {{"expect", expect}}}});
  const auto r = f.run();
  INFO(r.message);
  REQUIRE_FALSE(r.failed());
  CHECK(f.stats("vpu")["fu_add_busy_cycles"] == 4);
  CHECK(f.stats("vpu")["fu_add_elements"] == 4);
}

TEST_CASE("masked execution: simple implementation takes a slot per element") {
  const char* prog = R"(
        setvl 16
        vld   v0, A
        vcmpne v0, 0
        vadd.m v1, v0, 100
        vst   B, v1
        .data 0
A:      .word 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0
B:      .space 16
)";
  fixture f(prog, {{"modules", {{"vpu", {{"masking", "simple"}}}}}});
  const auto r = f.run();
  REQUIRE_FALSE(r.failed());
  CHECK(f.stats("vpu")["fu_add_busy_cycles"] == 16);
  CHECK(f.stats("vpu")["masked_off_elements"] == 12);
}

namespace {

// A vector load of A and a store of it to C, while a traffic generator (`writer`, an AT
// initiator on a third memory port) writes A[50] at cycle `write_cycle`. The load's element 50
// is read from memory at about cycle 52, long after the scalar unit dispatched the load.
struct racing_write {
  std::uint64_t written = 0, copied = 0;
  flynn::run_result r;
};
racing_write race(const std::string& writer, unsigned write_cycle) {
  const char* copy = R"(
        setvl 64
        setvs 1
        vld   v0, A
        vst   C, v0
        .data 0
A:      .space 64
C:      .space 64
)";
  fixture f(copy, {{"modules",
                    {{"mem", {{"shared_ports", 3}}},
                     {writer,
                      {{"type", "traffic_generator"}, {"at", true}, {"start_cycle", write_cycle},
                       {"streams", json::array({{{"kind", "linear"}, {"base", 400}, {"count", 1}, {"size", 8},
                                                 {"write", true}}})}}}}},
                   {"bindings", json::array({json::array({"cpu.mem", "mem.port0"}), json::array({"cpu.vpu", "vpu.dispatch"}),
                                             json::array({"vpu.port0", "mem.port1"}),
                                             json::array({writer + ".out", "mem.port2"})})},
                   {"workload", {{"init", json::array({{{"symbol", "A"}, {"random", 64}, {"seed", 3}, {"min", 1},
                                                        {"max", 1000}}})}}}});
  racing_write w;
  w.r = f.run();
  auto* mem = dynamic_cast<flynn::banked_memory*>(f.p->find("mem"));
  mem->peek(400, reinterpret_cast<unsigned char*>(&w.written), 8);
  mem->peek(512 + 400, reinterpret_cast<unsigned char*>(&w.copied), 8);
  return w;
}

}  // namespace

// The load is dispatched at cycle 2 but its element 50 reads memory at its own cycle: a write
// made in between by another initiator is seen, as on hardware, and one made after it is not.
// The same whatever order the processes run in (the writer named before or after the vector
// machine's instances).
void check_seen(const racing_write& w) {
  CHECK(w.r.state == flynn::run_result::status::mismatch);  // the golden interpreter has no writer
  CHECK(w.written != 0);
  CHECK(w.copied == w.written);
}
void check_not_seen(const racing_write& w) {
  CHECK(w.copied != w.written);
  CHECK(w.copied >= 1);
  CHECK(w.copied <= 1000);  // A[50] as initialised
}
TEST_CASE("a vector load reads memory at its element's cycle: an earlier write is seen (writer first)") {
  check_seen(race("a_writer", 30));
}
TEST_CASE("a vector load reads memory at its element's cycle: an earlier write is seen (writer last)") {
  check_seen(race("z_writer", 30));
}
TEST_CASE("a vector load reads memory at its element's cycle: a later write is not seen (writer first)") {
  check_not_seen(race("a_writer", 200));
}
TEST_CASE("a vector load reads memory at its element's cycle: a later write is not seen (writer last)") {
  check_not_seen(race("z_writer", 200));
}

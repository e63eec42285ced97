// Scenario loading and platform elaboration: every input error names the file the bad
// value came from, its JSON path, what was expected and what was found; valid scenarios
// elaborate with every default resolved; extends and --set merge in the documented order.
// Each test case runs in its own process (SystemC elaborates once), so each builds at most
// one platform.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <string>

#include "flynn/common/format.h"
#include "flynn/common/registry.h"
#include "flynn/memory/banked_memory.h"
#include "flynn/memory/cache.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/json_params.h"
#include "flynn/platform/output.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/scenario.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

// A fresh folder for one test's scenario files, removed afterwards.
struct temp_folder {
  fs::path dir;
  explicit temp_folder(const std::string& tag) {
    dir = fs::temp_directory_path() /
          ("flynn-scenario-test-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~temp_folder() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  temp_folder(const temp_folder&) = delete;
  temp_folder& operator=(const temp_folder&) = delete;

  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = path(name);
    std::ofstream out(p, std::ios::binary);
    out << text;
    return p;
  }
};

// Builds (elaborates) a platform from a loaded scenario.
void build(const flynn::scenario_doc& sd) {
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  flynn::platform p(sd, reg);
}

// Runs `f`, which must throw flynn::input_error; returns its message.
std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const flynn::input_error& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("expected flynn::input_error, got another exception: " << e.what());
  }
  FAIL("expected flynn::input_error, nothing was thrown");
  return {};
}

// Loads `file`, applies `sets`, builds: must fail with input_error; returns the message.
std::string build_error(const std::string& file, const std::vector<std::string>& sets = {}) {
  return input_error_of([&] {
    flynn::scenario_doc sd = flynn::load_scenario_doc(file);
    for (const auto& s : sets) flynn::apply_override(sd, s);
    build(sd);
  });
}

// A valid two-module scenario; `mem_extra` and `gen_extra` are spliced into the module
// objects, `top_extra` into the top level, `bindings` replaces the bindings array.
std::string scenario_text(const std::string& mem_extra = "", const std::string& gen_extra = "",
                          const std::string& top_extra = "",
                          const std::string& bindings = R"([["gen.out", "mem.port0"]])") {
  return R"({
  "name": "t",)" + top_extra + R"(
  "modules": {
    "mem": {"type": "banked_memory", "size_bytes": 4096)" +
         mem_extra + R"(},
    "gen": {"type": "traffic_generator",
            "streams": [{"kind": "linear", "base": 0, "stride": 8, "count": 16, "size": 8}])" +
         gen_extra + R"(}
  },
  "bindings": )" + bindings + R"(
}
)";
}

}  // namespace

// ------------------------------------------------------------------------ top level

TEST_CASE("unknown top-level key: names file and key - suggests the nearest key") {
  temp_folder t("unknown-top-key");
  const std::string f = t.write("s.json", R"({
  "name": "t",
  "modles": {"mem": {"type": "banked_memory"}}
})");
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": modles: expected"));
  CHECK_THAT(e, Contains("one of the scenario keys"));
  CHECK_THAT(e, Contains("did you mean 'modules'?"));
  CHECK_THAT(e, Contains("found unknown key 'modles'"));
}

TEST_CASE("missing modules") {
  temp_folder t("missing-modules");
  const std::string f = t.write("s.json", R"({"name": "t", "clock_ns": 1.0})");
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": modules: expected"));
  CHECK_THAT(e, Contains("an object of module instances"));
  CHECK_THAT(e, Contains("found nothing (missing)"));
}

TEST_CASE("module without a type") {
  temp_folder t("missing-type");
  const std::string f = t.write("s.json", R"({"name": "t", "modules": {"mem": {"banks": 4}}})");
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": modules.mem.type: expected a module type name"));
  CHECK_THAT(e, Contains("found nothing (missing)"));
}

TEST_CASE("unknown module type: lists the types and suggests the nearest") {
  temp_folder t("unknown-type");
  const std::string f =
      t.write("s.json", R"({"name": "t", "modules": {"mem": {"type": "banked_mem"}}})");
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": modules.mem.type: expected a module type ("));
  CHECK_THAT(e, Contains("banked_memory"));
  CHECK_THAT(e, Contains("traffic_generator"));
  CHECK_THAT(e, Contains("did you mean 'banked_memory'?"));
  CHECK_THAT(e, Contains("found 'banked_mem'"));
}

// ------------------------------------------------------------------------ module parameters

TEST_CASE("unknown module parameter: suggests the nearest parameter") {
  temp_folder t("unknown-param");
  const std::string f = t.write("s.json", scenario_text(R"(, "bankz": 8)"));
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": modules.mem.bankz: expected a parameter of this module"));
  CHECK_THAT(e, Contains("did you mean 'banks'?"));
  CHECK_THAT(e, Contains("found unknown key 'bankz'"));
}

TEST_CASE("parameter of the wrong type") {
  temp_folder t("wrong-type");
  const std::string f = t.write("s.json", scenario_text(R"(, "banks": "16")"));
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": modules.mem.banks: expected an unsigned integer"));
  CHECK_THAT(e, Contains("found the string \"16\""));
}

TEST_CASE("parameter out of range") {
  temp_folder t("out-of-range");
  const std::string f = t.write("s.json", scenario_text(R"(, "banks": 0)"));
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": modules.mem.banks: expected an unsigned integer in [1, 4096]"));
  CHECK_THAT(e, Contains("found the number 0"));
}

TEST_CASE("parameter constraint: word_bytes must be a power of two") {
  temp_folder t("word-bytes");
  const std::string f = t.write("s.json", scenario_text(R"(, "word_bytes": 3)"));
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": modules.mem.word_bytes: expected a power of two"));
  CHECK_THAT(e, Contains("found 3"));
}

TEST_CASE("invalid choice lists the choices") {
  temp_folder t("bad-choice");
  const std::string f = t.write("s.json", scenario_text(R"(, "mapping": "hashed")"));
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": modules.mem.mapping: expected one of"));
  CHECK_THAT(e, Contains("\"word\""));
  CHECK_THAT(e, Contains("\"block\""));
  CHECK_THAT(e, Contains("\"xor\""));
  CHECK_THAT(e, Contains("found the string \"hashed\""));
}

TEST_CASE("error inside a list element names the element path") {
  temp_folder t("list-element");
  const std::string f = t.write("s.json", R"({
  "name": "t",
  "modules": {
    "mem": {"type": "banked_memory", "size_bytes": 4096},
    "gen": {"type": "traffic_generator", "streams": [{"kind": "lineer", "count": 4}]}
  },
  "bindings": [["gen.out", "mem.port0"]]
})");
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": modules.gen.streams[0].kind: expected one of"));
  CHECK_THAT(e, Contains("\"linear\""));
  CHECK_THAT(e, Contains("did you mean 'linear'?"));
  CHECK_THAT(e, Contains("found the string \"lineer\""));
}

TEST_CASE("constraint failure inside a list element names the element path") {
  temp_folder t("list-constraint");
  const std::string f = t.write("s.json", scenario_text());
  const std::string e = build_error(f, {"modules.gen.streams.0.count=0"});
  CHECK_THAT(e, Contains("--set modules.gen.streams.0.count=0: modules.gen.streams[0].count: "
                         "expected at least 1"));
  CHECK_THAT(e, Contains("found 0"));
}

// ------------------------------------------------------------------------ bindings

TEST_CASE("binding to an instance that does not exist") {
  temp_folder t("dangling");
  const std::string f =
      t.write("s.json", scenario_text("", "", "", R"([["gen.out", "ghost.port0"]])"));
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": bindings[0][1]: expected \"instance.socket\" naming an instance"));
  CHECK_THAT(e, Contains("mem"));
  CHECK_THAT(e, Contains("found 'ghost.port0'"));
}

TEST_CASE("binding to a socket that does not exist") {
  temp_folder t("no-socket");
  const std::string f =
      t.write("s.json", scenario_text("", "", "", R"([["gen.out", "mem.port7"]])"));
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": bindings[0][1]: expected a socket of mem (port0)"));
  CHECK_THAT(e, Contains("did you mean 'port0'?"));
  CHECK_THAT(e, Contains("found 'port7'"));
}

TEST_CASE("the same initiator bound twice") {
  temp_folder t("duplicate");
  const std::string f = t.write(
      "s.json", scenario_text(R"(, "shared_ports": 2)", "", "",
                              R"([["gen.out", "mem.port0"], ["gen.out", "mem.port1"]])"));
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": bindings[1][0]: expected a socket bound only once"));
  CHECK_THAT(e, Contains("found 'gen.out' bound again"));
}

TEST_CASE("a socket left unbound") {
  temp_folder t("unbound");
  const std::string f = t.write("s.json", scenario_text(R"(, "shared_ports": 2)"));
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": bindings: expected a binding for every socket"));
  CHECK_THAT(e, Contains("found socket 'mem.port1' left unbound"));
}

TEST_CASE("a target socket in the initiator position") {
  temp_folder t("reversed");
  const std::string f =
      t.write("s.json", scenario_text("", "", "", R"([["mem.port0", "gen.out"]])"));
  const std::string e = build_error(f);
  CHECK_THAT(e, Contains(f + ": bindings[0][0]: expected an initiator socket"));
  CHECK_THAT(e, Contains("found 'mem.port0'"));
}

// ------------------------------------------------------------------------ files

TEST_CASE("malformed JSON reports FILE:LINE:COL") {
  temp_folder t("malformed");
  SECTION("a stray character") {
    // A trailing comma: the '}' at line 3, column 3 is where a key was expected.
    const std::string f = t.write("s.json", "{\n  \"name\": \"t\",\n  }\n");
    const std::string e = input_error_of([&] { flynn::load_scenario_doc(f); });
    CHECK_THAT(e, Contains(f + ":3:3: malformed JSON"));
  }
  SECTION("a missing comma") {
    // The parser notices the missing comma at the key on line 3 (columns 3..11).
    const std::string f = t.write("s.json", "{\n  \"name\": \"t\"\n  \"modules\": {}\n}\n");
    const std::string e = input_error_of([&] { flynn::load_scenario_doc(f); });
    REQUIRE_THAT(e, Contains(f + ":3:"));
    const int col = std::stoi(e.substr(f.size() + 3));
    CHECK(col >= 3);
    CHECK(col <= 11);
    CHECK_THAT(e, Contains("malformed JSON"));
  }
}

TEST_CASE("unreadable (missing) file") {
  temp_folder t("missing-file");
  const std::string f = t.path("nothere.json");
  const std::string e = input_error_of([&] { flynn::load_scenario_doc(f); });
  CHECK_THAT(e, Contains(f + ": expected a scenario file (JSON), found nothing (no such file)"));
}

TEST_CASE("a directory as scenario") {
  temp_folder t("dir-as-scenario");
  const std::string d = t.path("");
  const std::string e = input_error_of([&] { flynn::load_scenario_doc(d); });
  CHECK_THAT(e, Contains("expected a scenario file (JSON), found a directory"));
}

TEST_CASE("extends of a missing file") {
  temp_folder t("extends-missing");
  const std::string f = t.write("s.json", R"({"extends": "nothere.json", "name": "t"})");
  const std::string e = input_error_of([&] { flynn::load_scenario_doc(f); });
  CHECK_THAT(e, Contains(f + ": extends: expected an existing file"));
  CHECK_THAT(e, Contains("nothere.json"));
  CHECK_THAT(e, Contains("(no such file)"));
}

TEST_CASE("extends cycle") {
  temp_folder t("extends-cycle");
  const std::string a = t.write("a.json", R"({"extends": "b.json", "name": "t"})");
  t.write("b.json", R"({"extends": "a.json"})");
  const std::string e = input_error_of([&] { flynn::load_scenario_doc(a); });
  CHECK_THAT(e, Contains("a.json"));
  CHECK_THAT(e, Contains("extends"));
  CHECK_THAT(e, Contains("cycle"));
}

TEST_CASE("an error in a value from a base file names the base file") {
  temp_folder t("base-origin");
  const std::string base = t.write("base.json", scenario_text(R"(, "banks": 0)"));
  const std::string derived = t.write("derived.json", R"({
  "extends": "base.json",
  "name": "derived",
  "modules": {"mem": {"latency": 20}}
})");
  const std::string e = build_error(derived);
  CHECK_THAT(e, Contains("base.json: modules.mem.banks: expected an unsigned integer"));
  CHECK_THAT(e, Contains("found the number 0"));
  CHECK_THAT(e, !Contains("derived.json"));
  CHECK(e.rfind(t.path("base.json") + ": ", 0) == 0);
}

TEST_CASE("an error in a value from the extending file names the extending file") {
  temp_folder t("derived-origin");
  t.write("base.json", scenario_text());
  const std::string derived = t.write("derived.json", R"({
  "extends": "base.json",
  "modules": {"mem": {"latency": 0}}
})");
  const std::string e = build_error(derived);
  CHECK_THAT(e, Contains(derived + ": modules.mem.latency: expected an unsigned integer"));
  CHECK_THAT(e, !Contains("base.json"));
}

// ------------------------------------------------------------------------ --set

TEST_CASE("an error in a value given with an override names --set") {
  temp_folder t("set-origin");
  const std::string f = t.write("s.json", scenario_text());
  const std::string e = build_error(f, {"modules.mem.banks=0"});
  CHECK_THAT(e, Contains("--set modules.mem.banks=0: modules.mem.banks: expected an unsigned "
                         "integer in [1, 4096]"));
  CHECK_THAT(e, Contains("found the number 0"));
  CHECK_THAT(e, !Contains("s.json"));
}

TEST_CASE("override with an array index out of range") {
  temp_folder t("set-index");
  const std::string f = t.write("s.json", scenario_text());
  flynn::scenario_doc sd = flynn::load_scenario_doc(f);
  const std::string e =
      input_error_of([&] { flynn::apply_override(sd, "modules.gen.streams.5.base=0"); });
  CHECK_THAT(e, Contains("--set modules.gen.streams.5.base=0"));
  CHECK_THAT(e, Contains("modules.gen.streams has 1 elements"));
  CHECK_THAT(e, Contains("index 5 is out of range"));
}

TEST_CASE("override with a non-numeric index into an array") {
  temp_folder t("set-index-word");
  const std::string f = t.write("s.json", scenario_text());
  flynn::scenario_doc sd = flynn::load_scenario_doc(f);
  const std::string e =
      input_error_of([&] { flynn::apply_override(sd, "modules.gen.streams.first.base=0"); });
  CHECK_THAT(e, Contains("modules.gen.streams is an array; expected an index, found 'first'"));
}

TEST_CASE("override without '='") {
  temp_folder t("set-no-eq");
  const std::string f = t.write("s.json", scenario_text());
  flynn::scenario_doc sd = flynn::load_scenario_doc(f);
  const std::string e = input_error_of([&] { flynn::apply_override(sd, "modules.mem.banks"); });
  CHECK_THAT(e, Contains("--set modules.mem.banks: expected PATH=VALUE"));
}

// ------------------------------------------------------------------------ valid scenarios

TEST_CASE("a valid scenario elaborates - resolves every default and runs") {
  temp_folder t("valid");
  const std::string f = t.write("s.json", scenario_text("", "", R"(
  "clock_ns": 2.5,)"));
  const flynn::scenario_doc sd = flynn::load_scenario_doc(f);
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  flynn::platform p(sd, reg);

  REQUIRE(p.modules().size() == 2);
  REQUIRE(p.find("mem") != nullptr);
  REQUIRE(p.find("gen") != nullptr);
  CHECK(p.target_of("gen.out") == p.find("mem"));
  CHECK(p.spec().name == "t");
  CHECK(p.spec().clock_ns == 2.5);

  const auto& r = p.resolved();
  CHECK(r["name"] == "t");
  CHECK(r["clock_ns"] == 2.5);
  const auto& mem = r["modules"]["mem"];
  CHECK(mem["type"] == "banked_memory");
  CHECK(mem["size_bytes"] == 4096);  // given
  // Defaults appear although the scenario does not give them.
  CHECK(mem["latency"] == 11);
  CHECK(mem["banks"] == 16);
  CHECK(mem["word_bytes"] == 8);
  CHECK(mem["mapping"] == "word");
  CHECK(mem["shared_ports"] == 1);
  CHECK(mem["dmi"] == true);
  // The module clock is inherited from the scenario's clock_ns.
  CHECK(mem["clock_ns"] == 2.5);
  const auto& gen = r["modules"]["gen"];
  CHECK(gen["type"] == "traffic_generator");
  CHECK(gen["at"] == false);
  CHECK(gen["clock_ns"] == 2.5);
  REQUIRE(gen["streams"].size() == 1);
  CHECK(gen["streams"][0]["kind"] == "linear");
  CHECK(gen["streams"][0]["count"] == 16);
  CHECK(gen["streams"][0].contains("write"));
  CHECK(gen["streams"][0].contains("lanes"));
  CHECK(gen["streams"][0].contains("seed"));
  REQUIRE(r["bindings"].size() == 1);
  CHECK(r["bindings"][0][0] == "gen.out");
  CHECK(r["bindings"][0][1] == "mem.port0");

  const flynn::run_result res = p.run(0);
  INFO(res.message);
  CHECK(res.state == flynn::run_result::status::ok);
  CHECK(res.cycles > 0);
  CHECK(res.sim_time_ns() == Approx(2.5 * double(res.cycles)));
}

TEST_CASE("a module clock_ns given explicitly overrides the scenario clock") {
  temp_folder t("module-clock");
  const std::string f = t.write("s.json", scenario_text(R"(, "clock_ns": 0.5)", "", R"(
  "clock_ns": 2.0,)"));
  const flynn::scenario_doc sd = flynn::load_scenario_doc(f);
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  flynn::platform p(sd, reg);
  CHECK(p.resolved()["modules"]["mem"]["clock_ns"] == 0.5);
  CHECK(p.resolved()["modules"]["gen"]["clock_ns"] == 2.0);
}

TEST_CASE("extends and overrides merge: an override wins over the derived file - which wins over the base") {
  temp_folder t("merge");
  const std::string base =
      t.write("base.json", scenario_text(R"(, "banks": 16, "latency": 11, "word_bytes": 8)", "",
                                         R"(
  "description": "base description",)"));
  fs::create_directories(t.dir / "sub");
  // Paths in extends are relative to the extending file.
  const std::string derived = t.write("sub/derived.json", R"({
  "extends": "../base.json",
  "name": "derived",
  "modules": {"mem": {"banks": 8, "latency": 20}}
})");
  flynn::scenario_doc sd = flynn::load_scenario_doc(derived);
  flynn::apply_override(sd, "modules.mem.latency=30");
  flynn::apply_override(sd, "modules.gen.streams.0.stride=16");

  CHECK(sd.doc["modules"]["mem"]["latency"] == 30);
  CHECK(sd.doc["modules"]["mem"]["banks"] == 8);
  CHECK(sd.doc["modules"]["mem"]["word_bytes"] == 8);
  CHECK(sd.doc["modules"]["mem"]["type"] == "banked_memory");
  CHECK(sd.doc["name"] == "derived");
  CHECK(sd.doc["description"] == "base description");
  CHECK_FALSE(sd.doc.contains("extends"));
  CHECK(sd.origin_of("modules.mem.latency") == "--set modules.mem.latency=30");
  CHECK(sd.origin_of("modules.mem.banks") == derived);
  CHECK_THAT(sd.origin_of("modules.mem.word_bytes"), Contains("base.json"));
  CHECK_THAT(sd.origin_of("modules.gen.streams[0].stride"),
             Contains("--set modules.gen.streams.0.stride=16"));

  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  flynn::platform p(sd, reg);
  const auto& mem = p.resolved()["modules"]["mem"];
  CHECK(mem["latency"] == 30);
  CHECK(mem["banks"] == 8);
  CHECK(mem["word_bytes"] == 8);
  CHECK(mem["size_bytes"] == 4096);
  CHECK(p.resolved()["modules"]["gen"]["streams"][0]["stride"] == 16);
  CHECK(p.resolved()["modules"]["gen"]["streams"][0]["count"] == 16);
  CHECK(p.spec().name == "derived");
  CHECK(p.spec().description == "base description");
}

TEST_CASE("a scenario without a name takes the file's stem") {
  temp_folder t("stem-name");
  const std::string f = t.write("my-scenario.json", R"({
  "modules": {"mem": {"type": "banked_memory", "size_bytes": 4096},
              "gen": {"type": "traffic_generator", "streams": [{"count": 4}]}},
  "bindings": [["gen.out", "mem.port0"]]
})");
  const flynn::scenario_doc sd = flynn::load_scenario_doc(f);
  CHECK(sd.doc["name"] == "my-scenario");
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  flynn::platform p(sd, reg);
  CHECK(p.spec().name == "my-scenario");
}

// ------------------------------------------------------------------------ provenance

TEST_CASE("fnv1a64_hex gives the published FNV-1a 64 values") {
  CHECK(flynn::fnv1a64_hex("") == "cbf29ce484222325");
  CHECK(flynn::fnv1a64_hex("a") == "af63dc4c8601ec8c");
  CHECK(flynn::fnv1a64_hex("foobar") == "85944171f73967e8");
}

TEST_CASE(
    "the run record lists every input, names the workload's copy and fingerprints file contents") {
  temp_folder t("run-record");
  const fs::path src = fs::path(FLYNN_SOURCE_DIR) / "scenarios/vector";
  fs::create_directories(t.dir / "programs");
  for (const char* f : {"average_vector.json", "cray_base.json", "programs/average_vector.s"})
    fs::copy_file(src / f, t.dir / f);
  const std::string prog = t.path("programs/average_vector.s");
  flynn::scenario_doc sd = flynn::load_scenario_doc(t.path("average_vector.json"));
  flynn::apply_override(sd, "modules.mem.banks=8");
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  flynn::platform p(sd, reg);

  const flynn::run_record r = flynn::make_run_record(p, sd, 1234);
  REQUIRE(r.inputs.size() == 3);
  CHECK(r.inputs[0].role == "scenario");
  CHECK(r.inputs[1].role == "extends");
  CHECK(r.inputs[2].role == "program");
  CHECK(r.inputs[2].json_path == "workload.program");
  CHECK(r.inputs[2].copy == "inputs/average_vector.s");
  CHECK(r.config["workload"]["program"] == "inputs/average_vector.s");
  CHECK(r.config["max_cycles"] == 1234);  // the effective limit, --max-cycles included
  CHECK(r.config["modules"]["mem"]["banks"] == 8);
  CHECK(r.fingerprint.size() == 16);

  // The same inputs give the same fingerprint; any change to a file's contents another.
  CHECK(flynn::make_run_record(p, sd, 1234).fingerprint == r.fingerprint);
  CHECK(flynn::make_run_record(p, sd, 1235).fingerprint != r.fingerprint);
  {
    std::ofstream out(prog, std::ios::app);
    out << "; a comment\n";
  }
  CHECK(flynn::make_run_record(p, sd, 1234).fingerprint != r.fingerprint);
  {
    std::ofstream out(t.path("cray_base.json"), std::ios::app);
    out << "\n";
  }
  // The record holds the files as the scenario was loaded from them (not read again): a
  // change shows in a scenario loaded after it.
  CHECK(flynn::make_run_record(p, sd, 1234).inputs[1].text == r.inputs[1].text);
  const flynn::scenario_doc reloaded = flynn::load_scenario_doc(t.path("average_vector.json"));
  const flynn::run_record changed = flynn::make_run_record(p, reloaded, 1234);
  CHECK(changed.inputs[1].text != r.inputs[1].text);
  CHECK(changed.fingerprint != flynn::make_run_record(p, sd, 1234).fingerprint);

  const nlohmann::json prov =
      flynn::provenance_json(r, {"flynn", "run", "x.json"}, {"modules.mem.banks=8"}, t.path("out"));
  CHECK(prov["sets"] == nlohmann::json::array({"modules.mem.banks=8"}));
  CHECK(prov["inputs"][2]["file"] ==
        "../programs/average_vector.s");  // relative to the output folder
  CHECK(prov["inputs"][2]["fnv1a64"] == flynn::fnv1a64_hex(r.inputs[2].text));
  CHECK(prov["fingerprint"] == r.fingerprint);
}

// ------------------------------------------------------------------------ golden checks

TEST_CASE("golden checks find memories and traffic through their interfaces, and catch a changed byte") {
  const flynn::scenario_doc sd = flynn::load_scenario_doc(std::string(FLYNN_SOURCE_DIR) + "/scenarios/memory/base.json");
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  flynn::platform p(sd, reg);
  flynn::run_result r = p.simulate(0);
  REQUIRE_FALSE(r.failed());
  flynn::run_result ok = r;
  p.verify(ok);
  INFO(ok.message);
  REQUIRE_FALSE(ok.failed());
  CHECK(std::find(ok.checks.begin(), ok.checks.end(), "top.gen: read data equals the golden model") != ok.checks.end());
  CHECK(std::find(ok.checks.begin(), ok.checks.end(), "top.mem: final contents equal the golden model") != ok.checks.end());
  // A byte the traffic never wrote, changed behind the model's back.
  auto* mem = dynamic_cast<flynn::banked_memory*>(p.find("mem"));
  REQUIRE(mem != nullptr);
  unsigned char b = 0;
  mem->peek(60000, &b, 1);
  b = static_cast<unsigned char>(b ^ 0x5a);
  mem->poke(60000, &b, 1);
  flynn::run_result bad = r;
  p.verify(bad);
  CHECK(bad.state == flynn::run_result::status::mismatch);
  CHECK(bad.message == "top.mem: contents differ from the golden model at byte " + flynn::hex(60000));
}

// ---- bounded, inert input (docs/security.md) ---------------------------------------------

TEST_CASE("excerpts of input are short, quoted and escaped; messages carry no control characters") {
  CHECK(flynn::excerpt("loop") == "'loop'");
  CHECK(flynn::excerpt("a\nb\t\x1b[31m'\\\xff") == "'a\\nb\\t\\x1b[31m\\'\\\\\\xff'");
  CHECK(flynn::excerpt(std::string(5000, 'A')) == "'" + std::string(40, 'A') + "...'");
  CHECK(flynn::excerpt("abcdef", 3) == "'abc...'");
  const flynn::input_error e(std::string("x: found \x1b[2J\0y", 15));
  CHECK(std::string(e.what()) == "x: found \\x1b[2J\\x00y");
  CHECK(flynn::input_error::printable("two\nlines\tand a tab") == "two\nlines\tand a tab");
}

TEST_CASE("only regular files are read, at most 16 MiB of them") {
  temp_folder t("read-source");
  CHECK_THROWS_WITH(flynn::read_source("/dev/zero", "a kernel file"),
                    "/dev/zero: expected a kernel file, found a character device (only regular files are read)");
  CHECK_THROWS_WITH(flynn::read_source(t.dir.string(), "a kernel file"),
                    Contains("expected a kernel file, found a directory"));
  const std::string fifo = t.path("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(flynn::read_source(fifo, "a PTX file"), Contains("expected a PTX file, found a FIFO"));
  {
    std::ofstream big(t.path("big"), std::ios::binary);
    big << std::string(flynn::max_input_bytes + 1, ' ');
  }
  CHECK_THROWS_WITH(flynn::read_source(t.path("big"), "a scenario file (JSON)"),
                    Contains("expected a scenario file (JSON) of at most 16 MiB, found 16777217 bytes"));
  t.write("ok.s", "halt\n");
  CHECK(flynn::read_source(t.path("ok.s")) == "halt\n");
}

TEST_CASE("JSON deeper than 64 levels is refused before it is parsed, with its position") {
  const std::string ok = std::string(64, '[') + std::string(64, ']');
  CHECK_NOTHROW(flynn::parse_json_text("x.json", ok));
  CHECK_THROWS_WITH(flynn::parse_json_text("x.json", "{\"a\": " + std::string(65, '[') + std::string(65, ']') + "}"),
                    "x.json:1:70: expected JSON nested at most 64 levels deep, found deeper nesting");
  // (the 64th "[" is the 65th level, after the object); brackets inside strings do not count.
  CHECK_NOTHROW(flynn::parse_json_text("x.json", "[\"" + std::string(100, '[') + "\\\"\"]"));
}

TEST_CASE("origins: a value's file is its nearest recorded ancestor's; replacing a value forgets below it") {
  flynn::origin_map o;
  o.set("", "base.json");
  o.set("modules.m.banks", "child.json");
  o.set("bindings[0]", "--set bindings.0=[]");
  CHECK(o.lookup("modules.m.banks", "f") == "child.json");
  CHECK(o.lookup("modules.m.size_bytes", "f") == "base.json");
  CHECK(o.lookup("bindings[0][1]", "f") == "--set bindings.0=[]");
  o.forget_under("modules.m");
  CHECK(o.lookup("modules.m.banks", "f") == "base.json");
  flynn::origin_map empty;
  CHECK(empty.lookup("a.b", "fallback.json") == "fallback.json");
}

TEST_CASE("an extends chain longer than 32 files is bad input, named at the file that goes on") {
  temp_folder t("long-chain");
  for (int i = 0; i < 40; ++i)
    t.write("c" + std::to_string(i) + ".json", "{\"extends\": \"c" + std::to_string(i + 1) + ".json\"}");
  t.write("c40.json", "{\"name\": \"c\"}");
  CHECK_THROWS_WITH(flynn::load_scenario_doc(t.path("c0.json")),
                    Contains("c31.json: extends: expected a chain of at most 32 files (the scenario included), found a "
                             "longer chain"));
  const flynn::scenario_doc sd = flynn::load_scenario_doc(t.path("c9.json"));  // 32 files: fine
  CHECK(sd.sources.size() == 32);
  CHECK(sd.sources.front().first == t.path("c9.json"));
}

TEST_CASE("memory budget: sizes with units, from the option or the environment") {
  CHECK(flynn::memory_budget::from("8G").bytes == (std::uint64_t(8) << 30));
  CHECK(flynn::memory_budget::from("512MiB").bytes == (std::uint64_t(512) << 20));
  CHECK(flynn::memory_budget::from("1000").bytes == 1000);
  CHECK(flynn::memory_budget::from("2t").bytes == (std::uint64_t(2) << 40));
  CHECK_THROWS_WITH(flynn::memory_budget::from("12x"), Contains("--memory-budget: expected a size in bytes"));
  CHECK_THROWS_WITH(flynn::memory_budget::from("0"), Contains("expected a size from 1 byte"));
  ::setenv("FLYNN_MEMORY_BUDGET", "3G", 1);
  CHECK(flynn::memory_budget::from("").bytes == (std::uint64_t(3) << 30));
  CHECK(flynn::memory_budget::from("").source == "$FLYNN_MEMORY_BUDGET");
  ::unsetenv("FLYNN_MEMORY_BUDGET");
  CHECK(flynn::memory_budget::from("").bytes == flynn::memory_budget::default_bytes);
  CHECK(flynn::bytes_text(1536) == "1.5 KiB");
  CHECK(flynn::bytes_text(std::uint64_t(8) << 30) == "8 GiB");
}

TEST_CASE("a platform over the memory budget is bad input before any module is built") {
  temp_folder t("budget");
  t.write("s.json", R"({"name": "s", "modules": {
      "mem": {"type": "banked_memory", "size_bytes": 67108864},
      "gen": {"type": "traffic_generator", "streams": [{"kind": "linear", "count": 4}]}},
      "bindings": [["gen.out", "mem.port0"]]})");
  const flynn::scenario_doc sd = flynn::load_scenario_doc(t.path("s.json"));
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  // 64 MiB of contents weigh 256 MiB with the golden checks' copies: over 200 MiB.
  flynn::memory_budget b;
  b.bytes = std::uint64_t(200) << 20;
  b.source = "a test";
  CHECK_THROWS_WITH(flynn::platform(sd, reg, false, b),
                    Contains("modules.mem: expected model memory within the memory budget of 200 MiB (a test), found "
                             "256 MiB in all: modules.mem 256 MiB (64 MiB of memory contents, four times"));
  CHECK(sc_core::sc_get_top_level_objects().empty());  // nothing was built
}

TEST_CASE("footprints grow with the parameters that size what a module allocates") {
  flynn::banked_memory_params m;
  m.size_bytes = 1 << 20;
  const auto small = m.footprint();
  m.size_bytes = 2 << 20;
  const auto large = m.footprint();
  CHECK(small.contents_bytes == (1u << 20));
  CHECK(large.contents_bytes == 2 * small.contents_bytes);
  CHECK(large.state_bytes > small.state_bytes);  // the first level of the per-word tables
  m.banks = 4096;
  CHECK(m.footprint().state_bytes > large.state_bytes);  // a calendar per bank
  flynn::cache_params c;
  c.line_bytes = 128;
  const auto lines128 = c.footprint().state_bytes;
  c.line_bytes = 32;
  CHECK(c.footprint().state_bytes > 3 * lines128);  // four times the lines, the MSHRs unchanged
  CHECK(c.footprint().contents_bytes == 0);
}

// ---- listed ranges are the enforced ones ----------------------------------------------------

namespace {
// The numeric parameters of a module type with the ranges its declaration lists.
struct range_collector final : flynn::param_visitor {
  struct numeric {
    std::string name;
    bool real = false;
    std::uint64_t min = 0, max = 0;
    double fmin = 0, fmax = 0;
  };
  std::vector<numeric> found;
  void u64(const flynn::param_meta& m, std::uint64_t&, std::uint64_t min, std::uint64_t max) override {
    found.push_back({m.name, false, min, max, 0, 0});
  }
  void f64(const flynn::param_meta& m, double&, double min, double max) override {
    found.push_back({m.name, true, 0, 0, min, max});
  }
  void i64(const flynn::param_meta&, std::int64_t&) override {}
  void flag(const flynn::param_meta&, bool&) override {}
  void text(const flynn::param_meta&, std::string&) override {}
  void choice(const flynn::param_meta&, std::string&, const std::vector<std::string>&) override {}
  void u64_list(const flynn::param_meta&, std::vector<std::uint64_t>&) override {}
  void list(const flynn::param_meta&, flynn::param_list&) override {}  // (nested structs: not top level)
};

// The issues of a module type's parameters with one value set (the others at their defaults):
// "" when valid, else "FIELD: expected ..." of the first issue (or the binder's message).
std::string issue_with(const flynn::module_type& t, const std::string& name, const nlohmann::json& value) {
  flynn::scenario_doc sd;
  sd.file = "listed.json";
  const nlohmann::json src = {{name, value}};
  nlohmann::json out = nlohmann::json::object();
  flynn::json_binder b(src, out, "modules.m", sd);
  try {
    const auto r = t.check(b);
    if (r.issues.empty()) return "";
    return r.issues.front().field + ": expected " + r.issues.front().expected;
  } catch (const flynn::input_error& e) {
    return e.what();
  }
}
}  // namespace

TEST_CASE("flynn list's ranges are what the binder and checks enforce: each maximum is taken, one past it refused") {
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  // Rules between two parameters (a field's own limit is in its range; these depend on
  // another field, at its default here).
  const std::set<std::string> relational = {
      "vector_unit.lanes",          // at most max_vl
      "simt_core.lanes",            // at most warp_size
      "simt_core.active_warps",     // at most max_warps
      "cache.shared_carveout_bytes",  // below size_bytes
      "cache.sector_bytes",         // at most line_bytes
      "cache.line_bytes",           // a multiple of sector_bytes and at most size / ways
      "cache.ways",                 // at most the lines
      "mma_engine.k_block",         // divides k
      "mma_engine.instr_m",         // tiles each unit's share of m x n x k
      "crossbar.partitions",        // at most ports and outputs
      "dram.interleave_bytes",      // at most row_bytes
      "dram.tRFC",                  // less than tREFI
  };
  std::size_t checked = 0;
  for (const auto& type : reg.names()) {
    const flynn::module_type& t = *reg.find(type);
    range_collector c;
    t.describe(c);
    for (const auto& p : c.found) {
      const std::string key = type + "." + p.name;
      if (p.name == "clock_ns") continue;  // (the scenario clock's range, checked by the scenario)
      INFO(key);
      if (!p.real && p.max != std::numeric_limits<std::uint64_t>::max()) {
        const std::string at_max = issue_with(t, p.name, p.max);
        if (!relational.count(key)) CHECK_THAT(at_max, !Contains(p.name + ":") && !Contains("modules.m." + p.name));
        CHECK_THAT(issue_with(t, p.name, p.max + 1), Contains("modules.m." + p.name + ": expected"));
        ++checked;
      } else if (!p.real) {
        // Listed as unbounded above: the checks must not bound it on their own.
        const std::string at_max = issue_with(t, p.name, std::uint64_t(1) << 40);
        if (!relational.count(key)) CHECK_THAT(at_max, !Contains(p.name + ":"));
        ++checked;
      }
    }
  }
  CHECK(checked > 100);
}

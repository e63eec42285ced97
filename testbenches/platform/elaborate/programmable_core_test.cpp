// Programmable cores behind one interface: a core type of a user's own, registered beside
// the shipped ones, runs a shipped workload kind by declaring its program kind, with no change
// to the platform or the workloads; a core that declares a kind no workload builds, and a
// program of the wrong kind, are refused with messages naming them.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <tlm>

#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/common/programmable_core.h"
#include "flynn/common/registry.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/scenario.h"
#include "flynn/platform/vector_interp.h"
#include "flynn/simt/simt_program.h"
#include "flynn/vector/scalar_unit.h"
#include "flynn/vector/vector_program.h"

using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

struct iss_params : flynn::clocked_params {
  std::string kind = "vector";  // the program kind it declares
  void visit(flynn::param_visitor& v) {
    v.choice({"kind", "", "the program kind it declares"}, kind, {"vector", "toy"});
    clocked_params::visit(v);  // the properties: the clock
  }
  std::vector<flynn::param_issue> check() const { return {}; }
};

// An instruction-set simulator of the vector machine without timing: at the start it reads
// its memory through the socket's debug transport, runs the program functionally, writes the
// memory back and takes one cycle per instruction.
class vector_iss : public flynn::module, public flynn::programmable_core, public tlm::tlm_bw_transport_if<> {
 public:
  using params = iss_params;
  tlm::tlm_initiator_socket<32> mem;

  vector_iss(const sc_core::sc_module_name& n, const params& p) : flynn::module(n, p.clock_ns), mem("mem"), p_(p) {
    mem.bind(*this);
    SC_HAS_PROCESS(vector_iss);
    SC_THREAD(run);
  }
  programmable_core* as_core() override { return this; }
  std::vector<std::string> program_kinds() const override { return {p_.kind}; }
  void load_program(const flynn::core_program& prog) override {
    const auto* v = dynamic_cast<const flynn::vector_program*>(&prog);
    if (!v) throw std::invalid_argument("not a vector program");
    prog_ = v->prog;
    loaded_ = true;
  }
  bool has_program() const override { return loaded_; }
  flynn::core_limits limits() const override { return {1000000, 1, 16}; }
  flynn::core_counts counts() const override { return {instructions_, instructions_, 0}; }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  void debug(tlm::tlm_command c, std::vector<unsigned char>& image) {
    tlm::tlm_generic_payload gp;
    gp.set_command(c);
    gp.set_address(0);
    gp.set_data_ptr(image.data());
    gp.set_data_length(static_cast<unsigned>(image.size()));
    REQUIRE(mem->transport_dbg(gp) == image.size());
  }
  void run() {
    if (!loaded_) return;
    std::vector<unsigned char> image(65536);
    debug(tlm::TLM_READ_COMMAND, image);
    flynn::vec::interp_config cfg;
    cfg.max_vl = limits().max_vl;
    const auto r = flynn::vec::interpret(prog_, image, cfg);
    REQUIRE(r.ok);
    debug(tlm::TLM_WRITE_COMMAND, image);
    instructions_ = r.instructions;
    sc_core::wait(clock_period() * double(r.instructions));
  }
  params p_;
  flynn::vec::program prog_;
  bool loaded_ = false;
  std::uint64_t instructions_ = 0;
};

// DAXPY's workload (programs/daxpy.s) on the ISS and a 64 KiB memory.
flynn::scenario_doc iss_scenario(const std::string& kind) {
  flynn::scenario_doc sd;
  sd.file = std::string(FLYNN_SOURCE_DIR) + "/scenarios/vector/iss.json";  // workload paths resolve beside it
  sd.doc = json::parse(R"({
    "name": "iss",
    "modules": {"cpu": {"type": "vector_iss", "kind": ")" + kind + R"("},
                "mem": {"type": "banked_memory", "size_bytes": 65536, "word_bytes": 8}},
    "bindings": [["cpu.mem", "mem.port0"]],
    "workload": {"program": "programs/daxpy.s", "core": "cpu", "memory": "mem",
                 "init": [{"symbol": "N", "values": [100]}, {"symbol": "X", "random_doubles": 100, "seed": 5},
                          {"symbol": "YADDR", "values": [1024]}, {"address": 1024, "random_doubles": 100, "seed": 6}]}
  })");
  return sd;
}

flynn::module_registry registry() {
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  reg.add<vector_iss>("vector_iss", "test: a functional vector-machine core");
  return reg;
}

}  // namespace

TEST_CASE("a core type of the user's own runs the vector workload it declares, checked against the golden model") {
  const flynn::scenario_doc sd = iss_scenario("vector");
  const flynn::module_registry reg = registry();
  flynn::platform p(sd, reg);
  const flynn::run_result r = p.run(0);
  INFO(r.message);
  REQUIRE(r.state == flynn::run_result::status::ok);
  REQUIRE(p.runs_program());
  CHECK(p.instructions() > 50);  // the strip-mined loop ran (7 strips of 16)
  bool counted = false, memory = false;
  for (const auto& c : r.checks) {
    counted |= c.find("top.cpu: instruction count equals the golden interpreter's") != std::string::npos;
    memory |= c.find("top.mem: final memory equals the golden interpreter's") != std::string::npos;
  }
  CHECK(counted);
  CHECK(memory);
}

TEST_CASE("a core whose program kind no workload builds is refused, naming the kinds it runs") {
  const flynn::scenario_doc sd = iss_scenario("toy");
  const flynn::module_registry reg = registry();
  try {
    flynn::platform p(sd, reg);
    FAIL("no input_error");
  } catch (const flynn::input_error& e) {
    CHECK_THAT(e.what(), Contains("workload.core: expected a core that runs a program kind some workload kind builds "
                                  "(vector, simt), found 'cpu', which runs toy"));
  }
}

TEST_CASE("a workload naming a module that is not a core lists the platform's cores") {
  flynn::scenario_doc sd = iss_scenario("vector");
  sd.doc["workload"]["core"] = "mem";
  const flynn::module_registry reg = registry();
  try {
    flynn::platform p(sd, reg);
    FAIL("no input_error");
  } catch (const flynn::input_error& e) {
    CHECK_THAT(e.what(), Contains("workload.core: expected the name of a programmable core (cpu)"));
  }
}

TEST_CASE("a shipped core refuses a program of a kind it does not run") {
  flynn::scalar_unit cpu("cpu", flynn::scalar_unit::params{});
  flynn::simt_program kernel;
  CHECK_THROWS_AS(cpu.load_program(kernel), std::invalid_argument);
  CHECK_FALSE(cpu.has_program());
  flynn::vector_program prog;
  cpu.load_program(prog);
  CHECK(cpu.has_program());
  CHECK(cpu.program_kinds() == std::vector<std::string>{"vector"});
}

// Deadlocks at the TLM level: a target that stops answering (a blocking transport that
// never returns, a BEGIN_REQ that never gets END_REQ) or an initiator that never sends
// END_RESP. Each shipped initiator, put in front of such a partner inside a shipped
// scenario, must end the run with a deadlock report naming the module, the socket, the
// transaction (command, address, length), the cycle it was issued and, for programmable
// blocks, the warp or PC it serves; the run ends as soon as no event is left (bounded time).
//
// The stalling partner is `stall_bridge`, a module of this test inserted into a binding:
// it forwards the first `pass` transactions and then holds the next one forever. It says
// nothing itself in the report, like a third-party model that knows nothing of Flynn.
#include <catch2/catch.hpp>

#include <string>

#include <tlm>

#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/common/registry.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/scenario.h"

using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

struct stall_params : flynn::clocked_params {
  std::uint64_t pass = 0;          // transactions forwarded before the stall
  std::string mode = "hold";       // hold: the next request is never answered;
                                   // no_end_resp: responses go on but END_RESP never reaches the target
  void visit(flynn::param_visitor& v) {
    flynn::param(v, {"pass", "", "transactions forwarded before the stall"}, pass);
    v.choice({"mode", "", "how the bridge stalls"}, mode, {"hold", "no_end_resp"});
    clocked_params::visit(v);  // the properties: the clock
  }
  std::vector<flynn::param_issue> check() const { return {}; }
};

class stall_bridge : public flynn::module, public tlm::tlm_fw_transport_if<>, public tlm::tlm_bw_transport_if<> {
 public:
  using params = stall_params;
  tlm::tlm_target_socket<32> in;
  tlm::tlm_initiator_socket<32> out;

  stall_bridge(const sc_core::sc_module_name& n, const params& p) : flynn::module(n, p.clock_ns), in("in"), out("out"), p_(p) {
    in.bind(*this);
    out.bind(*this);
  }

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override {
    if (p_.mode == "hold" && requests_++ >= p_.pass) sc_core::wait(never_);
    out->b_transport(gp, delay);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) override {
    if (ph == tlm::BEGIN_REQ && p_.mode == "hold" && requests_++ >= p_.pass) return tlm::TLM_ACCEPTED;  // no END_REQ, ever
    return out->nb_transport_fw(gp, ph, d);
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) override {
    if (ph == tlm::BEGIN_RESP && p_.mode == "no_end_resp" && responses_++ >= p_.pass) {
      in->nb_transport_bw(gp, ph, d);  // the initiator gets its data ...
      return tlm::TLM_ACCEPTED;         // ... the target is told END_RESP follows, and it never does
    }
    return in->nb_transport_bw(gp, ph, d);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) override { return out->transport_dbg(gp); }
  void invalidate_direct_mem_ptr(sc_dt::uint64 a, sc_dt::uint64 b) override { in->invalidate_direct_mem_ptr(a, b); }

 private:
  params p_;
  std::uint64_t requests_ = 0, responses_ = 0;
  sc_core::sc_event never_;
};

// Loads a shipped scenario and puts a stall_bridge named "hold" into the binding whose
// initiator socket is `initiator`.
flynn::scenario_doc with_bridge(const std::string& scenario, const std::string& initiator, std::uint64_t pass,
                                const std::string& mode = "hold", const std::vector<std::string>& sets = {}) {
  flynn::scenario_doc sd = flynn::load_scenario_doc(std::string(FLYNN_SOURCE_DIR) + "/scenarios/" + scenario);
  for (const auto& s : sets) flynn::apply_override(sd, s);
  json& bindings = sd.doc["bindings"];
  bool found = false;
  for (auto& b : bindings)
    if (b[0] == initiator) {
      const json target = b[1];
      b[1] = "hold.in";
      bindings.push_back(json::array({"hold.out", target}));
      found = true;
      break;
    }
  REQUIRE(found);
  sd.doc["modules"]["hold"] = {{"type", "stall_bridge"}, {"pass", pass}, {"mode", mode}};
  return sd;
}

flynn::run_result run(const flynn::scenario_doc& sd) {
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  reg.add<stall_bridge>("stall_bridge", "test: forwards, then stalls");
  flynn::platform p(sd, reg);
  // No cycle limit: a deadlock (not a cycle-limit failure) means the run ended because the
  // events ran out; a run that never ends is ctest's timeout.
  flynn::run_result r = p.run(0);
  INFO(r.message);
  CHECK(r.state == flynn::run_result::status::deadlock);
  return r;
}

}  // namespace

TEST_CASE("a target that never returns from b_transport: the traffic generator's request is named") {
  const auto r = run(with_bridge("memory/showcase.json", "gen.out", 5));
  CHECK_THAT(r.message, Contains("no further events at cycle") && Contains("(deadlock)") &&
                              Contains("top.gen: 5 requests completed") &&
                              Contains("b_transport through top.gen.out never returned: ") &&
                              Contains("bytes) issued at cycle"));
  CHECK_THAT(r.message, !Contains("top.hold"));  // the stalling model says nothing itself
}

TEST_CASE("a target that never sends END_REQ: the AT traffic generator names the request") {
  const auto r = run(with_bridge("memory/showcase.json", "gen.out", 5, "hold", {"modules.gen.at=true"}));
  CHECK_THAT(r.message, Contains("top.gen: 5 requests completed, 1 awaiting a response") &&
                              Contains("END_REQ never came for request 5 (") && Contains("issued at cycle"));
}

TEST_CASE("an initiator that never sends END_RESP: the memory names the response it waits on") {
  const auto r = run(with_bridge("memory/showcase.json", "gen.out", 3, "no_end_resp", {"modules.gen.at=true"}));
  CHECK_THAT(r.message, Contains("top.mem: port0: END_RESP never came for the BEGIN_RESP (at cycle ") &&
                              Contains("bytes)") && Contains("top.gen: 4 requests completed"));
}

TEST_CASE("a global memory that stops answering: the SIMT core names the warp, PC and load") {
  const auto r = run(with_bridge("simt/vecadd_warps.json", "sm.global", 3));
  CHECK_THAT(r.message, Contains("top.sm: 0 of ") && Contains(" at PC ") && Contains("ld.global") &&
                              Contains("has not completed: READ 0x") &&
                              Contains("through top.sm.global: END_REQ never came"));
}

TEST_CASE("a memory port of the vector unit that stops answering: the scalar unit's PC and the port are named") {
  const auto r = run(with_bridge("vector/daxpy.json", "vpu.port0", 2));
  CHECK_THAT(r.message, Contains("top.cpu: program not finished at PC ") && Contains("top.vpu: line ") &&
                              Contains("(vld ") && Contains("has not completed: element group 2..2, READ 0x28") &&
                              Contains("through top.vpu.port0: END_REQ never came"));
}

TEST_CASE("a TMA copy whose global reads never return: the loader names the read, the core the warp waiting on it") {
  const auto r = run(with_bridge("gmma/calibration_h100_sm.json", "tma.global", 4));
  CHECK_THAT(r.message, Contains("top.tma: load #1: global READ 0x") &&
                              Contains("through top.tma.global: END_REQ never came") &&
                              Contains("rows of load #1 still to land") && Contains("block 0 warp 0 at PC ") &&
                              Contains("mbarrier.wait"));
}

TEST_CASE("a tensor core that never completes its handshake: the GMMA unit and the wgmma are named") {
  const auto r = run(with_bridge("gmma/calibration_h100_sm.json", "gmma.tc0", 1));
  CHECK_THAT(r.message, Contains("b_transport through top.gmma.tc0 never returned: an extension-only request") &&
                              Contains("wgmma started, the first of block 0 warp 0") && Contains("wgmma.m64n64k16") &&
                              Contains("top.sm: 0 of 1 blocks finished") && Contains("wgmma.wait_group 0"));
}

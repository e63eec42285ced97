// The SIMT core's load/store unit on its own: driven through lsu_host by a test core, its
// requests served by banked memories over AT.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "load_store_unit.h"
#include "flynn/common/module.h"
#include "flynn/memory/banked_memory.h"
#include "flynn/platform/simt_asm.h"
#include "flynn/tlm/no_dmi_initiator.h"

namespace {

// A core that owns only a load/store unit: one warp, one instruction issued at cycle 10,
// and a record of what the unit asked of it.
struct lsu_core : flynn::module, flynn::no_dmi_initiator, flynn::simt::lsu_host {
  tlm::tlm_initiator_socket<32> global{"global"}, shared{"shared"};
  flynn::simt::load_store_unit lsu;
  flynn::simt::warp w;
  flynn::simt::instr in;
  std::uint64_t issued_done = 0, done_at = 0;
  unsigned done_calls = 0, long_latency_calls = 0;
  std::string faults;

  lsu_core(const sc_core::sc_module_name& n, const flynn::simt::instr& i)
      : module(n, 1.0), lsu(*this, *this, {32, 4, 4, 128}, global, shared), in(i) {
    global.bind(*this);
    shared.bind(*this);
    lsu.start(4096, 1);
    w.start(0, 0, 32, 8, 2, 0);
    SC_HAS_PROCESS(lsu_core);
    SC_THREAD(run);
  }
  void run() {
    wait_until(10);
    issued_done = lsu.execute(w, in, w.active(), 10, 1);
    lsu.send();
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& delay) override {
    return lsu.transport_bw(gp, ph, delay);
  }
  void lane_fault(const flynn::simt::warp&, unsigned lane, const std::string& what) override {
    faults += "lane " + std::to_string(lane) + ": " + what + "\n";
  }
  void long_latency(const flynn::simt::warp&) override { ++long_latency_calls; }
  std::uint64_t shared_base(unsigned) const override { return 0; }
  unsigned block_id(unsigned) const override { return 0; }
  std::uint64_t access_done(const flynn::simt::memory_op& mo) override {
    ++done_calls;
    done_at = mo.done;
    if (!mo.failure.empty()) faults += mo.failure + "\n";
    return mo.done;
  }
  void shared_quiet(unsigned, std::uint64_t) override {}
  void protocol_fault(const std::string& what) override { faults += what + "\n"; }
};

flynn::simt::instr first_instruction(const char* text) {
  return flynn::simt::assemble(text, "k.s").code.at(0);
}

struct bench {
  flynn::banked_memory_params mp;
  std::unique_ptr<flynn::banked_memory> gmem, smem;
  std::unique_ptr<lsu_core> core;
  bench(const char* text, std::uint32_t stride_bytes) {
    mp.size_bytes = 1 << 16;
    gmem = std::make_unique<flynn::banked_memory>("gmem", mp);
    smem = std::make_unique<flynn::banked_memory>("smem", mp);
    core = std::make_unique<lsu_core>("core", first_instruction(text));
    core->global.bind(gmem->port(0));
    core->shared.bind(smem->port(0));
    for (std::uint32_t a = 0; a < (1u << 16); a += 4) {  // word a holds 1000000 + a
      const std::uint32_t v = 1000000 + a;
      gmem->poke(a, reinterpret_cast<const unsigned char*>(&v), 4);
      smem->poke(a, reinterpret_cast<const unsigned char*>(&v), 4);
    }
    for (unsigned l = 0; l < 32; ++l) core->w.reg(l, 2) = 256 + l * stride_bytes;
  }
};

}  // namespace

TEST_CASE("load/store unit: a unit-stride warp load is one transaction and lands every lane's word") {
  bench b("ld.global.32 r1, [r2]\nexit\n", 4);
  sc_core::sc_start();
  auto& c = *b.core;
  CHECK(c.faults.empty());
  CHECK(c.issued_done == flynn::simt::load_store_unit::unknown_cycle);  // known only at the response
  CHECK(c.done_calls == 1);
  CHECK(c.long_latency_calls == 1);
  CHECK(c.lsu.counts().global_requests.value() == 1);
  CHECK(c.lsu.counts().global_transactions.value() == 1);
  CHECK(c.lsu.in_flight() == 0);
  CHECK(c.done_at > 10 + 4);   // past issue and address generation
  CHECK(c.done_at < 10 + 4 + 31);  // sooner than 32 requests one after another on the port
  for (unsigned l = 0; l < 32; ++l) CHECK(c.w.reg(l, 1) == 1000000 + 256 + 4 * l);
}

TEST_CASE("load/store unit: a warp load with a segment per lane is 32 transactions and completes later") {
  bench b("ld.global.32 r1, [r2]\nexit\n", 128);
  sc_core::sc_start();
  auto& c = *b.core;
  CHECK(c.faults.empty());
  CHECK(c.done_calls == 1);
  CHECK(c.lsu.counts().global_transactions.value() == 32);
  for (unsigned l = 0; l < 32; ++l) CHECK(c.w.reg(l, 1) == 1000000 + 256 + 128 * l);
  // One port takes one request a cycle: the last of 32 requests leaves 31 cycles after the first.
  CHECK(c.done_at >= 10 + 4 + 31);
}

TEST_CASE("load/store unit: a shared load goes to the shared socket as one multi-lane request") {
  bench b("ld.shared.32 r1, [r2]\nexit\n", 8);
  sc_core::sc_start();
  auto& c = *b.core;
  CHECK(c.faults.empty());
  CHECK(c.done_calls == 1);
  CHECK(c.long_latency_calls == 0);
  CHECK(c.lsu.counts().shared_requests.value() == 1);
  CHECK(c.lsu.counts().global_requests.value() == 0);
  for (unsigned l = 0; l < 32; ++l) CHECK(c.w.reg(l, 1) == 1000000 + 256 + 8 * l);
}

TEST_CASE("load/store unit: a lane past the block's shared memory is a fault of that lane, reported to the core") {
  bench b("ld.shared.32 r1, [r2]\nexit\n", 256);  // lanes 15 .. 31 at 4096 and above
  sc_core::sc_start();
  auto& c = *b.core;
  CHECK(c.faults.find("lane 15") != std::string::npos);
  CHECK(c.lsu.counts().shared_requests.value() == 0);
}

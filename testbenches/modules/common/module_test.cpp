// The module base: conversions between simulated time and cycles of a module's clock, and
// blocking accesses (transport) from an LT-only initiator.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include <tlm_utils/simple_target_socket.h>

#include "flynn/common/lt_initiator.h"
#include "flynn/common/module.h"
#include "flynn/common/registry.h"
#include "flynn/memory/banked_memory.h"
#include "flynn/tlm/wavefront_extension.h"

using flynn::module;
using flynn::transport_result;
using sc_core::sc_time;

namespace {

sc_time ps(std::uint64_t v) { return sc_time::from_value(v); }  // the kernel's resolution is 1 ps

// A module of clock period 1.25 ns running `body` in its thread.
struct clocked : module {
  std::function<void(clocked&)> body;
  SC_HAS_PROCESS(clocked);
  clocked(const sc_core::sc_module_name& n, std::function<void(clocked&)> b) : module(n, 1.25), body(std::move(b)) {
    SC_THREAD(run);
  }
  void run() { body(*this); }
};

// An LT-only initiator of clock period 2 ns running `body` in its thread, with the module
// base's blocking accesses at hand.
struct accessor : flynn::lt_initiator {
  tlm::tlm_initiator_socket<32> socket;
  std::function<void(accessor&)> body;
  SC_HAS_PROCESS(accessor);
  accessor(const sc_core::sc_module_name& n, std::function<void(accessor&)> b)
      : lt_initiator(n, 2.0), socket("socket"), body(std::move(b)) {
    socket.bind(*this);
    SC_THREAD(run);
  }
  void run() { body(*this); }
  using module::transport;
  using module::transport_lanes;
};

// A target that knows no extensions: it moves data_length contiguous bytes at the address.
struct plain_target : sc_core::sc_module {
  tlm_utils::simple_target_socket<plain_target> socket;
  std::vector<unsigned char> bytes = std::vector<unsigned char>(256, 0);
  explicit plain_target(const sc_core::sc_module_name& n) : sc_core::sc_module(n), socket("socket") {
    socket.register_b_transport(this, &plain_target::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_time&) {
    unsigned char* at = &bytes.at(gp.get_address());
    if (gp.is_read()) std::memcpy(gp.get_data_ptr(), at, gp.get_data_length());
    else std::memcpy(at, gp.get_data_ptr(), gp.get_data_length());
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

flynn::banked_memory::params small_memory() {
  flynn::banked_memory::params p;
  p.size_bytes = 4096;
  p.word_bytes = 4;
  p.banks = 8;
  p.latency = 5;
  return p;
}

}  // namespace

TEST_CASE("cycles and times convert exactly, rounding down or up to a clock edge") {
  clocked m("m", [](clocked&) {});
  REQUIRE(m.clock_period() == ps(1250));
  CHECK(m.to_time(0) == sc_core::SC_ZERO_TIME);
  CHECK(m.to_time(3) == ps(3750));
  CHECK(m.to_cycles(ps(3749)) == 2);
  CHECK(m.to_cycles(ps(3750)) == 3);
  CHECK(m.to_cycles_ceil(ps(3749)) == 3);
  CHECK(m.to_cycles_ceil(ps(3750)) == 3);
  CHECK(m.to_cycles_ceil(ps(3751)) == 4);
  // Past 2^53 ps, where a double no longer holds every picosecond, a cycle still maps to its
  // own time and back.
  const std::uint64_t far = (std::uint64_t(1) << 53) / 1250 + 12345;
  CHECK(m.to_time(far).value() == far * 1250);
  CHECK(m.to_cycles(m.to_time(far)) == far);
  CHECK(m.to_cycles(m.to_time(far) - ps(1)) == far - 1);
  CHECK(m.to_cycles_ceil(m.to_time(far) + ps(1)) == far + 1);
  // A time beyond the kernel's range stops at its end.
  CHECK(m.to_time(UINT64_MAX) == sc_core::sc_max_time());
}

TEST_CASE("cycles of one clock convert to the next edge of another") {
  const sc_time fast = ps(1000), slow = ps(1500);  // a 1 ns and a 1.5 ns clock
  // Cycle 3 of the fast clock (3 ns) is seen at the slow clock's edge 2 (3 ns); cycle 4
  // (4 ns) at edge 3 (4.5 ns).
  CHECK(module::to_cycles_ceil(module::to_time(3, fast), slow) == 2);
  CHECK(module::to_cycles_ceil(module::to_time(4, fast), slow) == 3);
  CHECK(module::to_cycles(module::to_time(4, fast), slow) == 2);
  // Slow edge 3 (4.5 ns) is fast cycle 5 rounded up.
  CHECK(module::to_cycles_ceil(module::to_time(3, slow), fast) == 5);
  // One clock to itself: the identity.
  for (std::uint64_t c : {0u, 1u, 7u, 1000003u}) CHECK(module::to_cycles_ceil(module::to_time(c, slow), slow) == c);
}

TEST_CASE("a thread waits until a cycle still ahead and never goes back") {
  std::vector<std::uint64_t> seen;
  std::vector<sc_time> delays;
  clocked m("m", [&](clocked& self) {
    self.wait_until(5);
    seen.push_back(self.to_cycles(sc_core::sc_time_stamp()));
    self.wait_until(3);  // passed: no wait
    seen.push_back(self.to_cycles(sc_core::sc_time_stamp()));
    delays.push_back(self.delay_until(7));
    delays.push_back(self.delay_until(5));
    delays.push_back(self.delay_until(2));
  });
  sc_core::sc_start();
  CHECK(seen == std::vector<std::uint64_t>{5, 5});
  CHECK(delays == std::vector<sc_time>{ps(2500), sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME});
}

TEST_CASE("transport writes and reads N bytes and says when the response is seen") {
  flynn::banked_memory mem("mem", small_memory());
  std::vector<transport_result> r;
  std::uint64_t back = 0;
  unsigned wavefronts = 0;
  accessor ini("ini", [&](accessor& a) {
    std::uint64_t v = 0x1122334455667788;
    flynn::wavefront_extension served;
    // Made for the accessor's cycle 3 (6 ns): the memory's cycle 6, data delivered
    // 5 cycles later (11 ns), seen at the accessor's next edge, cycle 6 (12 ns).
    r.push_back(a.transport(a.socket, tlm::TLM_WRITE_COMMAND, 0x40, reinterpret_cast<unsigned char*>(&v), 8, 3,
                            &served));
    wavefronts = served.wavefronts;
    r.push_back(a.transport(a.socket, tlm::TLM_READ_COMMAND, 0x40, reinterpret_cast<unsigned char*>(&back), 8, 10));
    r.push_back(a.transport(a.socket, tlm::TLM_READ_COMMAND, 8192, reinterpret_cast<unsigned char*>(&back), 8, 12));
  });
  ini.socket.bind(mem.port(0));
  sc_core::sc_start();
  REQUIRE(r.size() == 3);
  CHECK(r[0].ok());
  CHECK(r[0].done == 6);
  CHECK(wavefronts == 1);  // the extension rode along: two words in two banks, one pass
  CHECK(r[1].ok());
  CHECK(back == 0x1122334455667788);
  CHECK(r[1].done > 10);
  CHECK_FALSE(r[2].ok());
  CHECK(r[2].status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(r[2].response_string() == "TLM_ADDRESS_ERROR_RESPONSE");
}

TEST_CASE("transport_lanes sends an address per lane and a lanes-aware target moves each lane's bytes") {
  flynn::banked_memory mem("mem", small_memory());
  std::vector<transport_result> r;
  std::uint32_t in[4] = {11, 22, 33, 44}, out[4] = {};
  std::uint32_t at_0x300 = 0;
  accessor ini("ini", [&](accessor& a) {
    const std::vector<std::uint64_t> lanes = {0x300, 0x104, 0x208, 0x00c};
    r.push_back(a.transport_lanes(a.socket, tlm::TLM_WRITE_COMMAND, lanes, reinterpret_cast<unsigned char*>(in),
                                  sizeof in, 0));
    r.push_back(a.transport_lanes(a.socket, tlm::TLM_READ_COMMAND, lanes, reinterpret_cast<unsigned char*>(out),
                                  sizeof out, 20));
  });
  ini.socket.bind(mem.port(0));
  sc_core::sc_start();
  mem.peek(0x300, reinterpret_cast<unsigned char*>(&at_0x300), 4);
  REQUIRE(r.size() == 2);
  CHECK((r[0].ok() && !r[0].lanes_ignored));
  CHECK((r[1].ok() && !r[1].lanes_ignored));
  CHECK(at_0x300 == 11);
  CHECK(std::memcmp(in, out, sizeof in) == 0);
}

TEST_CASE("transport_lanes reports a target that ignored the lanes") {
  plain_target tgt("tgt");
  std::vector<transport_result> r;
  accessor ini("ini", [&](accessor& a) {
    std::uint32_t data[2] = {1, 2};
    r.push_back(a.transport_lanes(a.socket, tlm::TLM_WRITE_COMMAND, {0x10, 0x80},
                                  reinterpret_cast<unsigned char*>(data), sizeof data, 0));
  });
  ini.socket.bind(tgt.socket);
  sc_core::sc_start();
  REQUIRE(r.size() == 1);
  CHECK(r[0].ok());
  CHECK(r[0].lanes_ignored);
  CHECK(tgt.bytes[0x14] == 2);  // it wrote both words contiguously at lane 0's address
}

TEST_CASE("an LT-only initiator reports a backward call from a target as a fault") {
  sc_core::sc_report_handler::set_actions("flynn/fault", sc_core::SC_ERROR, sc_core::SC_THROW);
  plain_target tgt("tgt");
  accessor ini("ini", [](accessor&) {});
  ini.socket.bind(tgt.socket);
  tlm::tlm_generic_payload gp;
  tlm::tlm_phase ph = tlm::BEGIN_RESP;
  sc_time d = sc_core::SC_ZERO_TIME;
  CHECK_THROWS_WITH(ini.nb_transport_bw(gp, ph, d), Catch::Contains("makes blocking calls only"));
  ini.invalidate_direct_mem_ptr(0, 0xff);  // holds no DMI pointers: nothing to do
}

namespace {
std::vector<std::string> debug_reports;
void capture(const sc_core::sc_report& r, const sc_core::sc_actions& a) {
  if (std::string(r.get_msg_type()).rfind("flynn/debug/", 0) == 0) {
    if (a & sc_core::SC_DISPLAY) debug_reports.push_back(std::string(r.get_msg_type()) + " | " + r.get_msg());
    return;
  }
  sc_core::sc_report_handler::default_handler(r, a);
}
}  // namespace

TEST_CASE("debug lines are sc_reports of type flynn/debug/FLAG, within the flags and the window set") {
  clocked m("probe", [](clocked&) {});
  sc_core::sc_report_handler::set_handler(capture);
  debug_reports.clear();
  m.debug(flynn::debug_exec, 5, "off");  // no flag set: nothing
  m.set_debug({&flynn::debug_exec, &flynn::debug_tlm}, 10, 20);
  m.debug(flynn::debug_exec, 9, "before the window");
  m.debug(flynn::debug_exec, 10, "first");
  m.debug(flynn::debug_mem, 12, "a flag not set");
  m.debug(flynn::debug_tlm, 19, "last");
  m.debug(flynn::debug_tlm, 20, "after the window");
  // An embedding platform keeps control: actions per message type.
  sc_core::sc_report_handler::set_actions("flynn/debug/TLM", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  m.debug(flynn::debug_tlm, 15, "silenced");
  sc_core::sc_report_handler::set_actions("flynn/debug/TLM", sc_core::SC_INFO, sc_core::SC_DISPLAY);
  sc_core::sc_report_handler::set_handler(sc_core::sc_report_handler::default_handler);
  REQUIRE(debug_reports.size() == 2);
  CHECK(debug_reports[0] == "flynn/debug/Exec | 10: probe: Exec: first");
  CHECK(debug_reports[1] == "flynn/debug/TLM | 19: probe: TLM: last");
  CHECK_FALSE(m.debugging(flynn::debug_mem));
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  std::vector<std::string> names;
  for (const flynn::debug_flag* f : reg.debug_flags()) names.emplace_back(f->name);
  CHECK(names == std::vector<std::string>{"Exec", "Mem", "TLM", "Sched", "Barrier", "GMMA", "TMA"});
}

namespace {
// A family of the user's own declares its flag beside its module types.
constexpr flynn::debug_flag debug_probe{"Probe", "a probe's samples"};
}  // namespace

TEST_CASE("a family's own debug flag: registered once, reported under its name, off unless set") {
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  reg.add_debug_flag(debug_probe);
  reg.add_debug_flag(debug_probe);
  REQUIRE(reg.debug_flags().size() == 8);
  CHECK(reg.debug_flags().back() == &debug_probe);
  clocked m("probe", [](clocked&) {});
  sc_core::sc_report_handler::set_handler(capture);
  debug_reports.clear();
  m.debug(debug_probe, 1, "off");
  m.set_debug({&debug_probe});
  CHECK(m.debugging(debug_probe));
  CHECK_FALSE(m.debugging(flynn::debug_exec));
  m.debug(debug_probe, 2, "sample 7");
  m.debug(flynn::debug_exec, 3, "not set");
  sc_core::sc_report_handler::set_handler(sc_core::sc_report_handler::default_handler);
  REQUIRE(debug_reports.size() == 1);
  CHECK(debug_reports[0] == "flynn/debug/Probe | 2: probe: Probe: sample 7");
}

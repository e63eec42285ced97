// A platform of one's own: Flynn's banked memory and vector unit, built from C++ with typed
// parameters (no scenario file), next to this file's own modules: an issue stage that
// dispatches vector instructions to the vector unit, and a host that writes the inputs and
// checks the results through its own TLM-2.0 initiator.
#include <cstdint>
#include <cstring>
#include <iostream>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "flynn/memory/banked_memory.h"
#include "flynn/vector/dispatch.h"
#include "flynn/vector/vector_unit.h"

namespace {

constexpr unsigned n = 64;
constexpr std::uint64_t a_addr = 0, b_addr = 1024, c_addr = 2048;

struct host : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<host> mem;  // to a port of the memory
  sc_core::sc_port<flynn::vec::vector_dispatch_if> vu;
  bool ok = false;
  std::uint64_t cycles = 0, start = 0;

  SC_HAS_PROCESS(host);
  explicit host(const sc_core::sc_module_name& nm) : sc_module(nm), mem("mem") { SC_THREAD(run); }

  // Loosely timed: each access is made at the host's local time and returns when it is
  // done (the memory moves the data at the cycle it models); `done` keeps the latest.
  sc_core::sc_time done = sc_core::SC_ZERO_TIME;
  void access(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t& value) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    gp.set_data_length(8);
    gp.set_streaming_width(8);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    mem->b_transport(gp, delay);
    if (gp.is_response_error()) SC_REPORT_ERROR("host", gp.get_response_string().c_str());
    done = std::max(done, sc_core::sc_time_stamp() + delay);
  }

  void dispatch(flynn::vec::op code, std::uint8_t rd, std::uint8_t ra, std::uint8_t rb, flynn::vec::src2 kind,
                std::uint64_t base_or_value) {
    flynn::vec::instr in;
    in.code = code;
    in.rd = rd;
    in.ra = ra;
    in.rb = rb;
    in.kind = kind;
    flynn::vec::scalar_operands ops;
    ops.base = base_or_value;
    ops.value = base_or_value;
    const auto r = vu->dispatch(in, ops, start);
    if (!r.fault.empty()) SC_REPORT_ERROR("host", r.fault.c_str());
  }

  void run() {
    using flynn::vec::op;
    using flynn::vec::src2;
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t a = i, b = 3 * i;
      access(tlm::TLM_WRITE_COMMAND, a_addr + 8 * i, a);
      access(tlm::TLM_WRITE_COMMAND, b_addr + 8 * i, b);
    }
    wait(done - sc_core::sc_time_stamp());  // the inputs are in memory from here on
    start = static_cast<std::uint64_t>(sc_core::sc_time_stamp() / vu->clock());
    dispatch(op::setvl, 0, 0, 0, src2::imm, n);
    dispatch(op::setvs, 0, 0, 0, src2::imm, 1);
    dispatch(op::vld, 0, 0, 0, src2::none, a_addr);
    dispatch(op::vld, 1, 0, 0, src2::none, b_addr);
    dispatch(op::vadd, 2, 0, 1, src2::vreg, 0);
    dispatch(op::vst, 0, 0, 2, src2::none, c_addr);
    cycles = vu->drain_cycle() - start;
    wait(vu->clock() * static_cast<double>(vu->drain_cycle()) - sc_core::sc_time_stamp());
    ok = true;
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t c = 0;
      access(tlm::TLM_READ_COMMAND, c_addr + 8 * i, c);
      if (c != 4 * i) {
        std::cerr << "C[" << i << "] = " << c << ", expected " << 4 * i << "\n";
        ok = false;
      }
    }
  }
};

}  // namespace

int sc_main(int, char*[]) {
  flynn::banked_memory::params mp;
  mp.size_bytes = 4096;
  mp.banks = 16;
  mp.latency = 11;
  mp.shared_ports = 2;  // port0: the vector unit, port1: the host
  flynn::banked_memory memory("memory", mp);

  flynn::vector_unit::params vp;  // defaults: Cray-1-style registers, one shared memory port
  flynn::vector_unit vector("vector", vp);
  host h("host");

  vector.port(0).bind(memory.port(0));
  h.mem.bind(memory.port(1));
  h.vu.bind(vector.dispatch_export);

  sc_core::sc_start();
  std::cout << "vector add of " << n << " elements: " << (h.ok ? "correct" : "WRONG") << ", " << h.cycles
            << " cycles\n";
  return h.ok && h.cycles > 0 ? 0 : 1;
}

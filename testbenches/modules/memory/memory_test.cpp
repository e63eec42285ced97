// Banked memory unit tests: bank timing from the lecture's memory facts, multi-lane
// shared-memory requests, LT/AT equality, DMI, debug transport and error responses.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <vector>

#include "flynn/common/lt_initiator.h"
#include "flynn/memory/banked_memory.h"
#include "flynn/tlm/payload.h"
#include "flynn/tlm/response_bound_extension.h"
#include "flynn/platform/stats_writer.h"
#include "flynn/traffic/traffic_generator.h"
#include "harness.h"

using flynn::banked_memory;
using flynn_test::initiator;

namespace {

banked_memory::params memory_params(unsigned banks, unsigned latency) {
  banked_memory::params p;
  p.size_bytes = 1 << 16;
  p.word_bytes = 8;
  p.banks = banks;
  p.latency = latency;
  return p;
}

std::uint64_t stat(const banked_memory& m, const std::string& name) {
  return flynn::stats_to_json(m.stats())[name].get<std::uint64_t>();
}

void run() { sc_core::sc_start(); }

// A read of buf.size() bytes at addr, not answered yet.
void read_request(tlm::tlm_generic_payload& g, std::uint64_t addr, std::vector<unsigned char>& buf) {
  g.set_command(tlm::TLM_READ_COMMAND);
  g.set_address(addr);
  g.set_data_ptr(buf.data());
  g.set_data_length(static_cast<unsigned>(buf.size()));
  g.set_streaming_width(static_cast<unsigned>(buf.size()));
}

// 32 lanes of 4 bytes 16 bytes apart: on 32 banks of 4-byte words, a 4-way conflict.
flynn::lanes_extension four_way_lanes() {
  flynn::lanes_extension ext;
  ext.lanes = 32;
  ext.lane_bytes = 4;
  ext.active_mask = 0xffffffffu;
  for (unsigned l = 0; l < 32; ++l) ext.address[l] = l * 16;
  return ext;
}

}  // namespace

TEST_CASE("stride 1 over 16 banks with latency 11 returns one element per cycle") {
  banked_memory mem("mem", memory_params(16, 11));
  std::vector<std::uint64_t> done;
  initiator ini("ini", [&](initiator& i) {
    std::uint64_t v = 0;
    for (unsigned k = 0; k < 64; ++k) done.push_back(i.access(tlm::TLM_READ_COMMAND, 8 * k, &v, 8, k));
  });
  ini.socket.bind(mem.port(0));
  run();
  for (unsigned k = 0; k < 64; ++k) CHECK(done[k] == k + 11);
  CHECK(stat(mem, "bank_conflicts") == 0);
  CHECK(flynn::stats_to_json(mem.stats())["elements_per_cycle"].get<double>() == Approx(1.0));
}

TEST_CASE("8 banks with latency 11 serve 8 requests - then stall 3 cycles") {
  banked_memory mem("mem", memory_params(8, 11));
  std::vector<std::uint64_t> done;
  initiator ini("ini", [&](initiator& i) {
    std::uint64_t v = 0;
    for (unsigned k = 0; k < 24; ++k) done.push_back(i.access(tlm::TLM_READ_COMMAND, 8 * k, &v, 8, k));
  });
  ini.socket.bind(mem.port(0));
  run();
  // Requests 0..7 issue at 0..7; request 8 needs bank 0 again, free at 11: 3 stall cycles.
  for (unsigned k = 0; k < 8; ++k) CHECK(done[k] == k + 11);
  for (unsigned k = 8; k < 16; ++k) CHECK(done[k] == k + 3 + 11);
  for (unsigned k = 16; k < 24; ++k) CHECK(done[k] == k + 6 + 11);
  CHECK(stat(mem, "bank_conflicts") == 2);
  CHECK(stat(mem, "bank_stall_cycles") == 6);
  CHECK(stat(mem, "port_stall_cycles") == 0);
}

TEST_CASE("stride equal to the bank count hits one bank: one element per bank busy time") {
  banked_memory mem("mem", memory_params(16, 11));
  std::vector<std::uint64_t> done;
  initiator ini("ini", [&](initiator& i) {
    std::uint64_t v = 0;
    for (unsigned k = 0; k < 8; ++k) done.push_back(i.access(tlm::TLM_READ_COMMAND, 16 * 8 * k, &v, 8, k));
  });
  ini.socket.bind(mem.port(0));
  run();
  for (unsigned k = 0; k < 8; ++k) CHECK(done[k] == 11 * k + 11);
  const auto j = flynn::stats_to_json(mem.stats());
  CHECK(j["bank_accesses"][0] == 8);
  CHECK(j["bank_conflicts"] == 7);
}

TEST_CASE("a stride relatively prime to the bank count streams at full rate") {
  banked_memory mem("mem", memory_params(16, 11));
  std::vector<std::uint64_t> done;
  initiator ini("ini", [&](initiator& i) {
    std::uint64_t v = 0;
    for (unsigned k = 0; k < 48; ++k) done.push_back(i.access(tlm::TLM_READ_COMMAND, 3 * 8 * k, &v, 8, k));
  });
  ini.socket.bind(mem.port(0));
  run();
  for (unsigned k = 0; k < 48; ++k) CHECK(done[k] == k + 11);
  CHECK(stat(mem, "bank_conflicts") == 0);
}

TEST_CASE("xor-hashed mapping spreads a power-of-two stride over the banks") {
  auto p = memory_params(16, 11);
  p.mapping = flynn::bank_mapping_kind::xor_hashed;
  banked_memory mem("mem", p);
  std::vector<std::uint64_t> done;
  initiator ini("ini", [&](initiator& i) {
    std::uint64_t v = 0;
    for (unsigned k = 0; k < 16; ++k) done.push_back(i.access(tlm::TLM_READ_COMMAND, 16 * 8 * k, &v, 8, k));
  });
  ini.socket.bind(mem.port(0));
  run();
  for (unsigned k = 0; k < 16; ++k) CHECK(done[k] == k + 11);
  CHECK(stat(mem, "bank_conflicts") == 0);
}

TEST_CASE("bank_mappings: each entry builds its mapping's class") {
  using flynn::bank_mapping_kind;
  CHECK(dynamic_cast<flynn::word_interleaved_mapping*>(
      flynn::make_bank_mapping(bank_mapping_kind::word_interleaved, 4, 2).get()));
  const auto block = flynn::make_bank_mapping(bank_mapping_kind::block_interleaved, 4, 2);
  CHECK(dynamic_cast<flynn::block_interleaved_mapping*>(block.get()));
  CHECK(block->bank_of(2) == 1);  // the block size reaches the constructor
  CHECK(dynamic_cast<flynn::xor_hashed_mapping*>(
      flynn::make_bank_mapping(bank_mapping_kind::xor_hashed, 4, 2).get()));
  CHECK(flynn::choice_names(flynn::bank_mappings) == "word, block or xor");
}

TEST_CASE("block-interleaved mapping keeps consecutive words in one bank") {
  flynn::block_interleaved_mapping m(4, 2);
  CHECK(m.bank_of(0) == 0);
  CHECK(m.bank_of(1) == 0);
  CHECK(m.bank_of(2) == 1);
  CHECK(m.bank_of(7) == 3);
  CHECK(m.bank_of(8) == 0);
  flynn::word_interleaved_mapping w(16);
  CHECK(w.bank_of(17) == 1);
}

TEST_CASE("word-interleaved mapping: the mask of a run of words is the banks banks_of lists") {
  for (unsigned banks : {1u, 3u, 16u, 32u, 48u, 64u}) {
    flynn::word_interleaved_mapping m(banks);
    std::vector<unsigned> list(banks);
    for (std::uint64_t first : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(banks - 1), std::uint64_t(1000003)})
      for (std::size_t n = 1; n <= banks; ++n) {
        std::uint64_t mask = 0, expect = 0;
        REQUIRE(m.run_mask(first, n, mask));
        m.banks_of(first, n, list.data());
        for (std::size_t i = 0; i < n; ++i) expect |= std::uint64_t(1) << list[i];
        CHECK(mask == expect);
        CHECK(static_cast<std::size_t>(__builtin_popcountll(mask)) == n);  // distinct banks
      }
    std::uint64_t mask = 0;
    CHECK_FALSE(m.run_mask(0, banks + 1, mask));  // more words than banks
  }
  flynn::word_interleaved_mapping wide(65);
  std::uint64_t mask = 0;
  CHECK_FALSE(wide.run_mask(0, 4, mask));  // more than 64 banks: no mask
  flynn::xor_hashed_mapping x(32);
  CHECK_FALSE(x.run_mask(0, 4, mask));  // (the mappings that do not know it at once say so)
}

TEST_CASE("multi-lane requests take as many cycles as the most distinct words in one bank") {
  auto p = memory_params(32, 20);
  p.word_bytes = 4;
  p.bank_busy = 1;  // pipelined banks, as GPU shared memory
  banked_memory mem("mem", p);
  struct pattern {
    std::int64_t lane_stride;
    std::uint64_t expect_done;
  };
  // conflict-free, 2-way, 4-way, broadcast (all lanes on one word)
  const std::vector<pattern> pats = {{4, 0 + 20}, {8, 100 + 1 + 20}, {16, 200 + 3 + 20}, {0, 300 + 20}};
  std::vector<std::uint64_t> done;
  initiator ini("ini", [&](initiator& i) {
    for (std::size_t n = 0; n < pats.size(); ++n) {
      flynn::lanes_extension ext;
      ext.lanes = 32;
      ext.lane_bytes = 4;
      ext.active_mask = 0xffffffffu;
      for (unsigned l = 0; l < 32; ++l) ext.address[l] = 1024 + l * pats[n].lane_stride;
      std::vector<unsigned char> buf(128);
      tlm::tlm_generic_payload gp;
      gp.set_command(tlm::TLM_READ_COMMAND);
      gp.set_address(ext.address[0]);
      gp.set_data_ptr(buf.data());
      gp.set_data_length(128);
      gp.set_streaming_width(128);
      gp.set_extension(&ext);
      sc_core::sc_time d = sc_core::sc_time(100.0 * n, sc_core::SC_NS) - sc_core::sc_time_stamp();
      i.socket->b_transport(gp, d);
      gp.clear_extension(&ext);
      CHECK(gp.get_response_status() == tlm::TLM_OK_RESPONSE);
      done.push_back(static_cast<std::uint64_t>((sc_core::sc_time_stamp() + d) / sc_core::sc_time(1, sc_core::SC_NS)));
    }
  });
  ini.socket.bind(mem.port(0));
  run();
  for (std::size_t n = 0; n < pats.size(); ++n) CHECK(done[n] == pats[n].expect_done);
  // wavefronts: 1 + 2 + 4 + 1; word accesses: 32 + 32 + 32 + 1 (broadcast shares one word)
  CHECK(stat(mem, "wavefronts") == 8);
  CHECK(stat(mem, "word_accesses") == 97);
}

// bank_conflicts and bank_stall_cycles count what a bank made wait, not the passes a request
// needs anyway: 64 words on 32 banks take two passes whatever the mapping.
TEST_CASE("bank conflicts count passes beyond the fewest a request's words need, and waits for busy banks") {
  auto p = memory_params(32, 20);
  p.word_bytes = 4;
  p.bank_busy = 2;
  banked_memory wide("wide", p), two_way("two_way", p), behind("behind", p);
  auto lanes_read = [](initiator& i, std::int64_t stride, std::uint64_t at) {
    flynn::lanes_extension ext;
    ext.lanes = 32;
    ext.lane_bytes = 4;
    ext.active_mask = 0xffffffffu;
    for (unsigned l = 0; l < 32; ++l) ext.address[l] = 1024 + l * stride;
    std::vector<unsigned char> buf(128);
    tlm::tlm_generic_payload gp;
    flynn::prepare_payload(gp, tlm::TLM_READ_COMMAND, ext.address[0], buf.data(), 128);
    gp.set_extension(&ext);
    sc_core::sc_time d = sc_core::sc_time(double(at), sc_core::SC_NS) - sc_core::sc_time_stamp();
    i.socket->b_transport(gp, d);
    gp.clear_extension(&ext);
    return static_cast<std::uint64_t>((sc_core::sc_time_stamp() + d) / sc_core::sc_time(1, sc_core::SC_NS));
  };
  std::uint64_t done_wide = 0, done_two_way = 0, done_behind = 0;
  initiator a("a", [&](initiator& i) {  // 256 contiguous bytes: 64 words, two per bank, two passes
    std::vector<unsigned char> buf(256);
    done_wide = i.access(tlm::TLM_READ_COMMAND, 0, buf.data(), 256, 0);
  });
  initiator b("b", [&](initiator& i) { done_two_way = lanes_read(i, 8, 0); });  // 32 words on 16 banks
  initiator c("c", [&](initiator& i) {  // two one-word reads of bank 0, one cycle apart
    std::uint32_t v = 0;
    i.access(tlm::TLM_READ_COMMAND, 0, &v, 4, 0);
    done_behind = i.access(tlm::TLM_READ_COMMAND, 128, &v, 4, 1);
  });
  a.socket.bind(wide.port(0));
  b.socket.bind(two_way.port(0));
  c.socket.bind(behind.port(0));
  run();
  CHECK(done_wide == 2 + 20);  // passes at 0 and 2 (bank busy 2)
  CHECK(stat(wide, "wavefronts") == 2);
  CHECK(stat(wide, "bank_conflicts") == 0);
  CHECK(stat(wide, "bank_stall_cycles") == 0);
  CHECK(done_two_way == 2 + 20);  // the same two passes, but one would do: the second pass's 16 words waited
  CHECK(stat(two_way, "wavefronts") == 2);
  CHECK(stat(two_way, "bank_conflicts") == 16);
  CHECK(stat(two_way, "bank_stall_cycles") == 2);
  CHECK(done_behind == 2 + 20);  // bank 0 busy until 2: one cycle late
  CHECK(stat(behind, "bank_conflicts") == 1);
  CHECK(stat(behind, "bank_stall_cycles") == 1);
}

TEST_CASE("multiported banks let two ports use one bank at once; shared banks conflict") {
  auto p = memory_params(16, 11);
  p.shared_ports = 0;
  p.load_ports = 2;
  p.store_ports = 1;
  auto q = p;
  q.multiported_banks = false;
  banked_memory multi("multi", p), shared("shared", q);
  std::uint64_t d_multi[2] = {}, d_shared[2] = {};
  auto body = [](std::uint64_t* d) {
    return [d](initiator& i) {
      std::uint64_t v = 0;
      d[0] = i.access(tlm::TLM_READ_COMMAND, 0, &v, 8, 0);
    };
  };
  auto body2 = [](std::uint64_t* d) {
    return [d](initiator& i) {
      std::uint64_t v = 0;
      d[1] = i.access(tlm::TLM_READ_COMMAND, 16 * 8, &v, 8, 0);  // same bank 0
    };
  };
  initiator a("a", body(d_multi)), b("b", body2(d_multi)), c("c", body(d_shared)), e("e", body2(d_shared));
  initiator ws("ws", [](initiator&) {}), wm("wm", [](initiator&) {});
  a.socket.bind(multi.port(0));
  b.socket.bind(multi.port(1));
  wm.socket.bind(multi.port(2));
  c.socket.bind(shared.port(0));
  e.socket.bind(shared.port(1));
  ws.socket.bind(shared.port(2));
  run();
  CHECK(d_multi[0] == 11);
  CHECK(d_multi[1] == 11);
  CHECK(std::min(d_shared[0], d_shared[1]) == 11);
  CHECK(std::max(d_shared[0], d_shared[1]) == 22);
  CHECK(stat(multi, "bank_conflicts") == 0);
  CHECK(stat(shared, "bank_conflicts") == 1);
}

// An LT read is answered when it is granted. Here it reads words 0 and 16, which share bank 0
// (latency and bank busy 4): word 16 at cycle 4. A write of word 16 through the other port
// (multiported banks: its own path into bank 0), made at cycle 2 before the read completed,
// lands at cycle 2: the hardware's read would return it, the answered LT read cannot. The
// memory reports the race, naming both accesses; a write landing after cycle 4 is no race.
namespace {
std::string lt_read_then_write(std::uint64_t write_cycle, std::uint64_t* got) {
  auto p = memory_params(16, 4);
  p.shared_ports = 2;
  banked_memory mem("mem", p);
  initiator reader("reader", [got](initiator& i) { i.access(tlm::TLM_READ_COMMAND, 0, got, 17 * 8, 0); });
  initiator writer("writer", [write_cycle](initiator& i) {
    sc_core::wait(sc_core::sc_time(double(write_cycle), sc_core::SC_NS));
    std::uint64_t v = 77;
    i.access(tlm::TLM_WRITE_COMMAND, 16 * 8, &v, 8, write_cycle);
  });
  reader.socket.bind(mem.port(0));
  writer.socket.bind(mem.port(1));
  sc_core::sc_report_handler::set_actions("flynn/fault", sc_core::SC_ERROR, sc_core::SC_THROW);
  try {
    run();
  } catch (const sc_core::sc_report& e) {
    return e.get_msg();
  }
  return {};
}
}  // namespace

TEST_CASE("a write landing before an answered LT read's word cycle is a race naming both accesses") {
  std::uint64_t got[17] = {};
  const std::string m = lt_read_then_write(2, got);
  CHECK_THAT(m, Catch::Contains("race on the word at 0x80: a read through mem.port0 (granted at cycle 0) reads it "
                                "at cycle 4, and a write through mem.port1 granted after it lands at cycle 2"));
}

TEST_CASE("a write racing with several answered LT reads names the one granted last") {
  auto p = memory_params(16, 4);
  p.shared_ports = 3;
  p.lt_time_order = false;  // the second read is answered at cycle 1, ahead of its cycle 3
  banked_memory mem("mem", p);
  std::uint64_t got[17] = {}, again = 0;
  initiator first("first", [&](initiator& i) { i.access(tlm::TLM_READ_COMMAND, 0, got, 17 * 8, 0); });
  initiator second("second", [&](initiator& i) {
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_NS));
    i.access(tlm::TLM_READ_COMMAND, 16 * 8, &again, 8, 3);  // answered at cycle 1, reads at cycle 3
  });
  initiator writer("writer", [](initiator& i) {
    sc_core::wait(sc_core::sc_time(2, sc_core::SC_NS));
    std::uint64_t v = 77;
    i.access(tlm::TLM_WRITE_COMMAND, 16 * 8, &v, 8, 2);
  });
  first.socket.bind(mem.port(0));
  second.socket.bind(mem.port(1));
  writer.socket.bind(mem.port(2));
  sc_core::sc_report_handler::set_actions("flynn/fault", sc_core::SC_ERROR, sc_core::SC_THROW);
  std::string m;
  try {
    run();
  } catch (const sc_core::sc_report& e) {
    m = e.get_msg();
  }
  CAPTURE(m);
  CHECK_THAT(m, Catch::Contains("a read through mem.port1 (granted at cycle 1) reads it at cycle 3, and a write through mem.port2"));
}

TEST_CASE("a write landing after an answered LT read's word cycle is no race") {
  std::uint64_t got[17] = {};
  CHECK(lt_read_then_write(5, got).empty());
  CHECK(got[16] == 0);
}

// Two LT initiators on one bank (latency and bank busy 11, ports sharing the banks): `ahead`
// calls at cycle 0 for cycle 5 (running ahead of simulated time), `now` calls at cycle 1 for
// cycle 1. Booked in call order, `ahead` holds the bank from 5 and `now` waits for it
// (call_order_grants counts the grant); with lt_time_order the early call waits in the
// memory for its cycle and the bank goes to `now` first, as in simulated time.
namespace {
std::pair<std::uint64_t, std::uint64_t> ahead_and_now(bool time_order, std::uint64_t& call_order) {
  auto p = memory_params(16, 11);
  p.shared_ports = 2;
  p.multiported_banks = false;
  p.lt_time_order = time_order;
  banked_memory mem("mem", p);
  std::uint64_t done_ahead = 0, done_now = 0;
  initiator ahead("ahead", [&](initiator& i) {
    std::uint64_t v = 0;
    done_ahead = i.access(tlm::TLM_READ_COMMAND, 0, &v, 8, 5);
  });
  initiator now("now", [&](initiator& i) {
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_NS));
    std::uint64_t v = 0;
    done_now = i.access(tlm::TLM_READ_COMMAND, 16 * 8, &v, 8, 1);
  });
  ahead.socket.bind(mem.port(0));
  now.socket.bind(mem.port(1));
  run();
  call_order = stat(mem, "call_order_grants");
  return {done_ahead, done_now};
}
}  // namespace

TEST_CASE("LT calls booked ahead of time are granted in call order - and counted") {
  std::uint64_t call_order = 0;
  const auto [ahead, now] = ahead_and_now(false, call_order);
  CHECK(ahead == 16);
  CHECK(now == 27);
  CHECK(call_order == 1);
}

TEST_CASE("lt_time_order: an LT call for a later cycle waits for it and is granted in time order") {
  std::uint64_t call_order = 0;
  const auto [ahead, now] = ahead_and_now(true, call_order);
  CHECK(now == 12);
  CHECK(ahead == 23);
  CHECK(call_order == 0);
}

TEST_CASE("port kinds: a load port refuses writes - a store port refuses reads") {
  auto p = memory_params(16, 11);
  p.shared_ports = 0;
  p.load_ports = 1;
  p.store_ports = 1;
  banked_memory mem("mem", p);
  tlm::tlm_response_status s_load_write{}, s_store_read{}, s_ok_read{}, s_ok_write{};
  initiator ld("ld", [&](initiator& i) {
    std::uint64_t v = 1;
    i.access(tlm::TLM_WRITE_COMMAND, 0, &v, 8, 0, &s_load_write);
    i.access(tlm::TLM_READ_COMMAND, 0, &v, 8, 1, &s_ok_read);
  });
  initiator st("st", [&](initiator& i) {
    std::uint64_t v = 1;
    i.access(tlm::TLM_READ_COMMAND, 0, &v, 8, 0, &s_store_read);
    i.access(tlm::TLM_WRITE_COMMAND, 8, &v, 8, 1, &s_ok_write);
  });
  ld.socket.bind(mem.port(0));
  st.socket.bind(mem.port(1));
  run();
  CHECK(s_load_write == tlm::TLM_COMMAND_ERROR_RESPONSE);
  CHECK(s_store_read == tlm::TLM_COMMAND_ERROR_RESPONSE);
  CHECK(s_ok_read == tlm::TLM_OK_RESPONSE);
  CHECK(s_ok_write == tlm::TLM_OK_RESPONSE);
  CHECK(stat(mem, "errors") == 2);
}

TEST_CASE("error responses: address - byte enable - burst - generic; never an abort") {
  banked_memory mem("mem", memory_params(16, 11));
  std::vector<tlm::tlm_response_status> got;
  initiator ini("ini", [&](initiator& i) {
    std::uint64_t v = 0;
    tlm::tlm_response_status s{};
    i.access(tlm::TLM_READ_COMMAND, (1 << 16), &v, 8, 0, &s);  // beyond the end
    got.push_back(s);
    i.access(tlm::TLM_READ_COMMAND, (1 << 16) - 4, &v, 8, 1, &s);  // straddles the end
    got.push_back(s);
    tlm::tlm_generic_payload gp;
    unsigned char be[8] = {0xff};
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(0);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    gp.set_data_length(8);
    gp.set_streaming_width(8);
    gp.set_byte_enable_ptr(be);
    gp.set_byte_enable_length(8);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    i.socket->b_transport(gp, d);
    got.push_back(gp.get_response_status());
    gp.set_byte_enable_ptr(nullptr);
    gp.set_streaming_width(4);
    i.socket->b_transport(gp, d);
    got.push_back(gp.get_response_status());
    gp.set_streaming_width(0);
    gp.set_data_length(0);
    i.socket->b_transport(gp, d);
    got.push_back(gp.get_response_status());
    gp.set_command(tlm::TLM_IGNORE_COMMAND);
    gp.set_data_length(8);
    gp.set_streaming_width(8);
    i.socket->b_transport(gp, d);
    got.push_back(gp.get_response_status());
  });
  ini.socket.bind(mem.port(0));
  run();
  REQUIRE(got.size() == 6);
  CHECK(got[0] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(got[1] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(got[2] == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  CHECK(got[3] == tlm::TLM_BURST_ERROR_RESPONSE);
  CHECK(got[4] == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK(got[5] == tlm::TLM_OK_RESPONSE);
  CHECK(stat(mem, "errors") == 5);
  CHECK(stat(mem, "reads") == 0);
}

TEST_CASE("AT: END_REQ back-pressure while the port is busy - BEGIN_RESP after the latency") {
  auto p = memory_params(16, 11);
  p.word_bytes = 4;
  p.bank_busy = 1;
  p.banks = 32;
  banked_memory mem("mem", p);
  std::vector<std::pair<tlm::tlm_phase, std::uint64_t>> seen;
  tlm::tlm_sync_enum first{}, second{};
  tlm::tlm_phase first_phase{};
  initiator ini("ini", [&](initiator& i) {
    flynn::lanes_extension ext = four_way_lanes();
    std::vector<unsigned char> b1(128), b2(4);
    tlm::tlm_generic_payload g1, g2;
    read_request(g1, 0, b1);
    g1.set_extension(&ext);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    first = i.socket->nb_transport_fw(g1, ph, d);
    first_phase = ph;
    wait(sc_core::sc_time(1, sc_core::SC_NS));
    read_request(g2, 4, b2);
    ph = tlm::BEGIN_REQ;
    d = sc_core::SC_ZERO_TIME;
    second = i.socket->nb_transport_fw(g2, ph, d);  // port busy for 4 wavefronts
    wait(sc_core::sc_time(100, sc_core::SC_NS));
    g1.clear_extension(&ext);
  });
  ini.on_bw = [&](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_core::sc_time&) {
    seen.emplace_back(ph, static_cast<std::uint64_t>(sc_core::sc_time_stamp() / sc_core::sc_time(1, sc_core::SC_NS)));
    return ph == tlm::BEGIN_RESP ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED;
  };
  ini.socket.bind(mem.port(0));
  run();
  // Requests are granted by the arbiter at their cycle: END_REQ comes on the backward path.
  CHECK(first == tlm::TLM_ACCEPTED);
  CHECK(first_phase == tlm::BEGIN_REQ);
  CHECK(second == tlm::TLM_ACCEPTED);
  REQUIRE(seen.size() == 4);
  CHECK(seen[0] == std::make_pair(tlm::tlm_phase(tlm::END_REQ), std::uint64_t(0)));   // g1 taken at once
  CHECK(seen[1] == std::make_pair(tlm::tlm_phase(tlm::END_REQ), std::uint64_t(4)));   // g2 taken at 4
  CHECK(seen[2] == std::make_pair(tlm::tlm_phase(tlm::BEGIN_RESP), std::uint64_t(3 + 11)));  // g1
  CHECK(seen[3] == std::make_pair(tlm::tlm_phase(tlm::BEGIN_RESP), std::uint64_t(4 + 11)));  // g2
  CHECK(stat(mem, "port_stall_cycles") == 3);
}

TEST_CASE("AT: the memory promises no response before arrival + latency - a later latency change keeps it") {
  auto p = memory_params(32, 11);
  p.word_bytes = 4;
  p.bank_busy = 1;
  banked_memory mem("mem", p);
  std::vector<std::pair<tlm::tlm_phase, std::uint64_t>> seen;
  flynn::response_bound_extension b1, b2;
  initiator ini("ini", [&](initiator& i) {
    flynn::lanes_extension ext = four_way_lanes();  // the port is busy until 3
    std::vector<unsigned char> d1(128), d2(4);
    tlm::tlm_generic_payload g1, g2;
    read_request(g1, 0, d1);
    g1.set_extension(&ext);
    g1.set_extension(&b1);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    i.socket->nb_transport_fw(g1, ph, d);
    wait(sc_core::sc_time(1, sc_core::SC_NS));
    read_request(g2, 4, d2);
    g2.set_extension(&b2);
    ph = tlm::BEGIN_REQ;
    d = sc_core::SC_ZERO_TIME;
    i.socket->nb_transport_fw(g2, ph, d);  // arrives at 1, granted at 4
    mem.set_latency(2);                     // for requests arriving from now on
    wait(sc_core::sc_time(100, sc_core::SC_NS));
    g1.clear_extension(&ext);
    g1.clear_extension(&b1);
    g2.clear_extension(&b2);
  });
  ini.on_bw = [&](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_core::sc_time&) {
    seen.emplace_back(ph, static_cast<std::uint64_t>(sc_core::sc_time_stamp() / sc_core::sc_time(1, sc_core::SC_NS)));
    return ph == tlm::BEGIN_RESP ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED;
  };
  ini.socket.bind(mem.port(0));
  run();
  REQUIRE(b1.promised);
  REQUIRE(b2.promised);
  CHECK(b1.earliest == sc_core::sc_time(11, sc_core::SC_NS));      // arrival 0 + latency 11
  CHECK(b2.earliest == sc_core::sc_time(1 + 11, sc_core::SC_NS));  // arrival 1 + latency 11
  REQUIRE(seen.size() == 4);
  CHECK(seen[2] == std::make_pair(tlm::tlm_phase(tlm::BEGIN_RESP), std::uint64_t(3 + 11)));  // g1, after its promise
  CHECK(seen[3] == std::make_pair(tlm::tlm_phase(tlm::BEGIN_RESP), std::uint64_t(4 + 11)));  // g2 keeps latency 11
}

TEST_CASE("AT: response exclusion holds the next BEGIN_RESP until END_RESP") {
  banked_memory mem("mem", memory_params(16, 11));
  std::vector<std::uint64_t> resp_at;
  tlm::tlm_generic_payload* held = nullptr;
  initiator ini("ini", [&](initiator& i) {
    std::uint64_t v1 = 0, v2 = 0;
    tlm::tlm_generic_payload g1, g2;
    for (auto* g : {&g1, &g2}) {
      g->set_command(tlm::TLM_READ_COMMAND);
      g->set_data_length(8);
      g->set_streaming_width(8);
    }
    g1.set_address(0);
    g1.set_data_ptr(reinterpret_cast<unsigned char*>(&v1));
    g2.set_address(8);
    g2.set_data_ptr(reinterpret_cast<unsigned char*>(&v2));
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    i.socket->nb_transport_fw(g1, ph, d);
    wait(sc_core::sc_time(1, sc_core::SC_NS));
    ph = tlm::BEGIN_REQ;
    i.socket->nb_transport_fw(g2, ph, d);
    wait(sc_core::sc_time(20, sc_core::SC_NS));  // cycle 21: release the first response
    ph = tlm::END_RESP;
    REQUIRE(held != nullptr);
    i.socket->nb_transport_fw(*held, ph, d);
    wait(sc_core::sc_time(5, sc_core::SC_NS));
  });
  ini.on_bw = [&](tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time&) {
    if (ph != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
    resp_at.push_back(static_cast<std::uint64_t>(sc_core::sc_time_stamp() / sc_core::sc_time(1, sc_core::SC_NS)));
    if (!held) {
      held = &gp;
      return tlm::TLM_ACCEPTED;  // END_RESP comes later
    }
    return tlm::TLM_COMPLETED;
  };
  ini.socket.bind(mem.port(0));
  run();
  REQUIRE(resp_at.size() == 2);
  CHECK(resp_at[0] == 11);
  CHECK(resp_at[1] == 21);  // due at 12, held until END_RESP
}

TEST_CASE("LT and AT give the same cycles and stats for the same traffic") {
  flynn::traffic_generator::params g;
  g.max_outstanding = 12;
  g.streams.clear();
  flynn::traffic_stream s;
  s.write = true;
  s.count = 100;
  s.stride = 8;
  g.streams.push_back(s);
  s.write = false;
  s.stride = 24;
  s.range_bytes = 4096;
  g.streams.push_back(s);
  s.kind = flynn::stream_kind::random;
  s.range_bytes = 8192;
  s.count = 200;
  g.streams.push_back(s);
  s.kind = flynn::stream_kind::linear;
  s.lanes = 8;
  s.lane_stride = 64;
  s.stride = 8;
  s.size = 8;
  s.count = 30;
  g.streams.push_back(s);
  auto lt = g, at = g;
  at.at = true;
  auto mp = memory_params(8, 11);
  banked_memory m_lt("m_lt", mp), m_at("m_at", mp);
  flynn::traffic_generator g_lt("g_lt", lt), g_at("g_at", at);
  g_lt.out.bind(m_lt.port(0));
  g_at.out.bind(m_at.port(0));
  run();
  CHECK(g_lt.done());
  CHECK(g_at.done());
  auto a = flynn::stats_to_json(m_lt.stats()), b = flynn::stats_to_json(m_at.stats());
  CHECK(a.dump() == b.dump());
  auto x = flynn::stats_to_json(g_lt.stats()), y = flynn::stats_to_json(g_at.stats());
  CHECK(x.dump() == y.dump());
  CHECK(a["bank_conflicts"].get<int>() > 0);  // the traffic does exercise conflicts
  CHECK(g_lt.read_checksum() == g_at.read_checksum());
}

TEST_CASE("DMI: pointer to the contents with latencies; invalidated when the latency changes") {
  auto p = memory_params(16, 11);
  p.shared_ports = 1;
  p.load_ports = 1;
  banked_memory mem("mem", p);
  bool granted = false, load_read = false, load_write = true;
  sc_core::sc_time lat;
  std::uint64_t via_dmi = 0;
  initiator ini("ini", [&](initiator& i) {
    std::uint64_t v = 0x1122334455667788ull;
    i.access(tlm::TLM_WRITE_COMMAND, 64, &v, 8, 0);
    tlm::tlm_generic_payload gp;
    gp.set_address(64);
    gp.set_command(tlm::TLM_READ_COMMAND);
    tlm::tlm_dmi dmi;
    granted = i.socket->get_direct_mem_ptr(gp, dmi);
    if (granted) {
      std::memcpy(&via_dmi, dmi.get_dmi_ptr() + 64 - dmi.get_start_address(), 8);
      lat = dmi.get_read_latency();
    }
    mem.set_latency(20);
  });
  initiator ld("ld", [&](initiator& i) {
    tlm::tlm_generic_payload gp;
    gp.set_address(0);
    tlm::tlm_dmi dmi;
    i.socket->get_direct_mem_ptr(gp, dmi);
    load_read = dmi.is_read_allowed();
    load_write = dmi.is_write_allowed();
  });
  ini.socket.bind(mem.port(0));
  ld.socket.bind(mem.port(1));
  run();
  CHECK(granted);
  CHECK(via_dmi == 0x1122334455667788ull);
  CHECK(lat == sc_core::sc_time(11, sc_core::SC_NS));
  CHECK(ini.invalidations == 1);
  CHECK(ld.invalidations == 1);
  CHECK(load_read);
  CHECK_FALSE(load_write);
}

TEST_CASE("debug transport moves data without timing or side effects") {
  banked_memory mem("mem", memory_params(16, 11));
  unsigned n_write = 0, n_read = 0, n_oob = 1;
  std::uint64_t back = 0;
  sc_core::sc_time t_before, t_after;
  initiator ini("ini", [&](initiator& i) {
    std::uint64_t v = 42;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(800);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    gp.set_data_length(8);
    t_before = sc_core::sc_time_stamp();
    n_write = i.socket->transport_dbg(gp);
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&back));
    n_read = i.socket->transport_dbg(gp);
    gp.set_address(1 << 20);
    n_oob = i.socket->transport_dbg(gp);
    t_after = sc_core::sc_time_stamp();
  });
  ini.socket.bind(mem.port(0));
  run();
  CHECK(n_write == 8);
  CHECK(n_read == 8);
  CHECK(n_oob == 0);
  CHECK(back == 42);
  CHECK(t_before == t_after);
  CHECK(stat(mem, "reads") == 0);
  CHECK(stat(mem, "writes") == 0);
  CHECK(stat(mem, "word_accesses") == 0);
}

TEST_CASE("initial contents: iota and seeded random are reproducible") {
  auto p = memory_params(4, 1);
  p.size_bytes = 64;
  p.init = flynn::memory_init::iota;
  std::vector<unsigned char> img;
  banked_memory::initial_image(p, img);
  CHECK(img[8 * 5] == 5);
  p.init = flynn::memory_init::random;
  std::vector<unsigned char> a, b;
  banked_memory::initial_image(p, a);
  banked_memory::initial_image(p, b);
  CHECK(a == b);
  p.seed = 2;
  banked_memory::initial_image(p, b);
  CHECK(a != b);
}

TEST_CASE("invalid parameters are refused with the field named") {
  auto p = memory_params(16, 11);
  p.word_bytes = 3;
  CHECK_THROWS_WITH(banked_memory("mem", p), Catch::Contains("word_bytes"));
  p = memory_params(12, 11);
  p.mapping = flynn::bank_mapping_kind::xor_hashed;
  CHECK_FALSE(p.check().empty());
  p = memory_params(16, 11);
  p.shared_ports = 0;
  CHECK(p.check().size() == 1);
}

TEST_CASE("word_records: records per word newest first, slots reused after removal, removal by predicate") {
  flynn::word_records<int> r(1 << 20);
  CHECK(r.empty());
  CHECK(r.first(5) == r.none);
  const auto a = r.add(5, 1), b = r.add(5, 2), c = r.add((1 << 20) - 1, 3), d = r.add(5, 4);
  auto list = [&](std::uint64_t w) {
    std::vector<int> v;
    for (auto s = r.first(w); s != r.none; s = r.next(s)) v.push_back(r[s]);
    return v;
  };
  CHECK(list(5) == std::vector<int>{4, 2, 1});
  CHECK(list((1 << 20) - 1) == std::vector<int>{3});
  CHECK(list(6).empty());
  r.remove(5, b);  // from the middle
  CHECK(list(5) == std::vector<int>{4, 1});
  r.remove(5, d);  // the newest
  const auto e = r.add(5, 5);
  CHECK(e == d);  // the freed slot, reused
  CHECK(list(5) == std::vector<int>{5, 1});
  CHECK(r.size() == 3);
  r.add(7, 10);
  r.add(7, 11);
  r.remove_if(5, [](int v) { return v == 1; });
  CHECK(list(5) == std::vector<int>{5});
  r.remove_all_if([](int v) { return v >= 5 && v != 11; });
  CHECK(list(5).empty());
  CHECK(list(7) == std::vector<int>{11});
  CHECK(list((1 << 20) - 1) == std::vector<int>{3});
  CHECK(r.size() == 2);
  (void)a;
  (void)c;
}

TEST_CASE("cycle_buckets: taken out by cycle, then in the order added, only up to the cycle asked") {
  flynn::cycle_buckets<int> q;
  q.add(7, 1);
  q.add(3, 2);
  q.add(7, 3);
  q.add(5, 4);
  q.add(3, 5);
  std::vector<int> got;
  q.take_through(2, [&](int v) { got.push_back(v); });
  CHECK(got.empty());
  q.take_through(5, [&](int v) { got.push_back(v); });
  CHECK(got == std::vector<int>{2, 5, 4});
  q.add(6, 6);
  q.take_through(100, [&](int v) { got.push_back(v); });
  CHECK(got == std::vector<int>{2, 5, 4, 6, 1, 3});
  CHECK(q.empty());
}

// An LT initiator that keeps its own local time (module::keeps_local_time): it may be served
// at once, ahead of simulated time, only while no other process can act first.
namespace {
struct local_time_initiator : flynn::lt_initiator {
  tlm::tlm_initiator_socket<32> socket;
  std::function<void(local_time_initiator&)> body;
  bool local_time;
  SC_HAS_PROCESS(local_time_initiator);
  local_time_initiator(const sc_core::sc_module_name& n, bool keeps, std::function<void(local_time_initiator&)> b)
      : flynn::lt_initiator(n, 1.0), socket("socket"), body(std::move(b)), local_time(keeps) {
    socket.bind(*this);
    SC_THREAD(run);
  }
  bool keeps_local_time() const override { return local_time; }
  void run() { body(*this); }
  // A read at cycle `at`: (its completion cycle, the simulated cycle when the call returned).
  std::pair<std::uint64_t, std::uint64_t> read(std::uint64_t addr, std::uint64_t at) {
    std::uint64_t v = 0;
    const flynn::transport_result r = transport(socket, tlm::TLM_READ_COMMAND, addr, reinterpret_cast<unsigned char*>(&v), 8, at);
    return {r.done, to_cycles(sc_core::sc_time_stamp())};
  }
};
}  // namespace

TEST_CASE("an initiator keeping its own local time is served at once while it is alone - in time order otherwise") {
  auto p = memory_params(16, 11);
  p.shared_ports = 2;
  p.multiported_banks = false;
  banked_memory mem("mem", p);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ahead;
  std::uint64_t done_other = 0;
  local_time_initiator fast("fast", true, [&](local_time_initiator& i) {
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_NS));  // (at 0 every process is still to start)
    ahead.push_back(i.read(0, 5));   // alone: nothing else is due before cycle 20
    ahead.push_back(i.read(0, 30));   // `other` acts at 20: the call waits for cycle 30
  });
  local_time_initiator other("other", false, [&](local_time_initiator& i) {
    sc_core::wait(sc_core::sc_time(20, sc_core::SC_NS));
    done_other = i.read(16 * 8, 20).first;  // the same bank, at cycle 20
  });
  fast.socket.bind(mem.port(0));
  other.socket.bind(mem.port(1));
  run();
  REQUIRE(ahead.size() == 2);
  CHECK(ahead[0] == std::pair<std::uint64_t, std::uint64_t>{16, 1});  // served at once, time still 1
  CHECK(done_other == 31);  // the bank from 20 to 31, before `fast`'s call for 30
  CHECK(ahead[1].first == 42);
  CHECK(ahead[1].second == 30);  // it waited for its cycle
  CHECK(stat(mem, "call_order_grants") == 0);
}

TEST_CASE("an initiator without its own local time waits for its cycle even when alone") {
  banked_memory mem("mem", memory_params(16, 11));
  std::pair<std::uint64_t, std::uint64_t> r;
  local_time_initiator slow("slow", false, [&](local_time_initiator& i) { r = i.read(0, 5); });
  slow.socket.bind(mem.port(0));
  run();
  CHECK(r == std::pair<std::uint64_t, std::uint64_t>{16, 5});
}

// Clean links through the base-protocol checker: traffic generator -> checker -> banked
// memory under seeded random traffic (LT and AT, plain and multi-lane requests), an AT
// initiator that holds END_RESP, and banked memory DMI and debug transport. Each link must
// show zero violations and the same read data as without the checker (golden replay).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "flynn/memory/banked_memory.h"
#include "flynn/traffic/traffic_generator.h"
#include "harness.h"
#include "protocol_parts.h"

using flynn::banked_memory;
using flynn::protocol_checker;
using flynn::traffic_generator;
using flynn_test::initiator;

namespace {

sc_core::sc_time ns(double v) { return sc_core::sc_time(v, sc_core::SC_NS); }

// A random mix of streams for one seed: random reads and writes, linear strides, and
// multi-lane requests when `lanes` is set.
// back_pressure false: requests of at most one aligned 8-byte word, lanes in distinct
// banks of a 32-bank word-interleaved memory (see memory_for).
traffic_generator::params random_traffic(std::uint64_t seed, bool at, bool lanes,
                                         bool back_pressure) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
    return lo + rng() % (hi - lo + 1);
  };
  traffic_generator::params g;
  g.at = at;
  g.max_outstanding = static_cast<unsigned>(pick(1, 16));
  g.issue_interval = static_cast<unsigned>(pick(1, 3));
  g.quantum = static_cast<unsigned>(pick(1, 200));
  g.data_seed = seed * 77 + 1;
  g.streams.clear();
  const unsigned n = static_cast<unsigned>(pick(3, 6));
  for (unsigned k = 0; k < n; ++k) {
    flynn::traffic_stream s;
    const unsigned sizes[] = {4, 8, 16, 32};
    s.size = back_pressure ? sizes[pick(0, 3)] : sizes[pick(0, 1)];
    s.write = pick(0, 1) == 1;
    s.count = pick(10, 120);
    s.seed = seed * 1000 + k;
    switch (pick(0, lanes ? 2 : 1)) {
      case 0:
        s.kind = flynn::stream_kind::random;
        s.range_bytes = 16384;
        break;
      case 1:
        s.kind = flynn::stream_kind::linear;
        s.stride = static_cast<std::int64_t>(s.size * pick(1, 5));
        s.range_bytes = 8192;
        s.base = pick(0, 64) * 64;
        break;
      default:
        s.kind = flynn::stream_kind::linear;
        s.size = 4;
        s.lanes = static_cast<unsigned>(pick(2, 32));
        s.lane_stride = back_pressure ? static_cast<std::int64_t>(4 * pick(1, 9)) : 8;
        s.stride = 128;
        s.range_bytes = 16384;
        s.base = pick(0, 16) * 64;
        break;
    }
    g.streams.push_back(s);
  }
  return g;
}

// back_pressure false: every request is taken in the cycle it arrives (one wavefront, no
// bank or port stall), so the memory always answers BEGIN_REQ with TLM_UPDATED END_REQ.
banked_memory::params memory_for(std::uint64_t seed, bool back_pressure) {
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  banked_memory::params p;
  p.size_bytes = 1 << 16;
  p.word_bytes = 4u << (rng() % 2);
  p.banks = 4u << (rng() % 3);
  p.latency = static_cast<unsigned>(1 + rng() % 12);
  p.bank_busy = static_cast<unsigned>(rng() % 3);
  p.init = flynn::memory_init::random;
  p.seed = seed;
  if (!back_pressure) {
    p.word_bytes = 8;
    p.banks = 32;
    p.bank_busy = 1;
  }
  return p;
}

// generator -> checker -> memory, one per seed, all in one simulation.
struct checked_link {
  traffic_generator::params gp;
  banked_memory::params mp;
  std::unique_ptr<banked_memory> mem;
  std::unique_ptr<protocol_checker> chk;
  std::unique_ptr<traffic_generator> gen;
  checked_link(const std::string& tag, std::uint64_t seed, bool at, bool lanes,
               bool back_pressure)
      : gp(random_traffic(seed, at, lanes, back_pressure)), mp(memory_for(seed, back_pressure)) {
    mem = std::make_unique<banked_memory>(("mem_" + tag).c_str(), mp);
    chk = std::make_unique<protocol_checker>(("chk_" + tag).c_str());
    chk->warnings = false;  // every violation is in report(), shown on failure
    gen = std::make_unique<traffic_generator>(("gen_" + tag).c_str(), gp);
    gen->out.bind(chk->target);
    chk->initiator.bind(mem->port(0));
  }
  void verify() {
    INFO(chk->report());
    CHECK(gen->done());
    CHECK(chk->violations() == 0);
    CHECK(chk->open_transactions() == 0);
    std::vector<unsigned char> image;
    banked_memory::initial_image(mp, image);
    CHECK(gen->read_checksum() == flynn::traffic_golden_replay(gp, image));
    std::vector<unsigned char> now(image.size());
    mem->peek(0, now.data(), now.size());
    CHECK(now == image);
    std::uint64_t expected = 0;
    for (const auto& s : gp.streams) expected += s.count;
    CHECK(gen->requests_done() == expected);
  }
};

// A pass-through that sets the DMI hint on every response it carries back, as a memory
// offering DMI may: an initiator that recycles payloads must clear it before their next trip.
struct dmi_hinter : sc_core::sc_module, tlm::tlm_fw_transport_if<>, tlm::tlm_bw_transport_if<> {
  tlm::tlm_target_socket<32> target{"target"};
  tlm::tlm_initiator_socket<32> initiator{"initiator"};
  explicit dmi_hinter(const sc_core::sc_module_name& n) : sc_core::sc_module(n) {
    target.bind(*this);
    initiator.bind(*this);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    initiator->b_transport(gp, d);
    gp.set_dmi_allowed(true);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) override {
    const tlm::tlm_sync_enum r = initiator->nb_transport_fw(gp, ph, d);
    if (r == tlm::TLM_COMPLETED || (r == tlm::TLM_UPDATED && ph == tlm::BEGIN_RESP)) gp.set_dmi_allowed(true);
    return r;
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) override {
    if (ph == tlm::BEGIN_RESP) gp.set_dmi_allowed(true);
    return target->nb_transport_bw(gp, ph, d);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) override {
    return initiator->get_direct_mem_ptr(gp, dmi);
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp) override { return initiator->transport_dbg(gp); }
  void invalidate_direct_mem_ptr(sc_dt::uint64 a, sc_dt::uint64 b) override { target->invalidate_direct_mem_ptr(a, b); }
};

void run_links(bool at, bool lanes, bool back_pressure) {
  std::vector<std::unique_ptr<checked_link>> links;
  for (std::uint64_t seed : {1, 2, 3, 5, 8, 13, 21, 34})
    links.push_back(
        std::make_unique<checked_link>(std::to_string(seed), seed, at, lanes, back_pressure));
  sc_core::sc_start();
  for (auto& l : links) l->verify();
}

}  // namespace

TEST_CASE("LT random streams through the checker into banked_memory give no violation") {
  run_links(false, false, true);
}

TEST_CASE("LT random and multi-lane streams through the checker give no violation") {
  run_links(false, true, true);
}

TEST_CASE("AT random streams through the checker into banked_memory give no violation") {
  run_links(true, false, false);
}

TEST_CASE("AT random and multi-lane streams through the checker give no violation") {
  run_links(true, true, false);
}

// With END_REQ back-pressure: banked_memory returns TLM_ACCEPTED for a request and sends
// BEGIN_RESP of an earlier one meanwhile; that BEGIN_RESP implies END_REQ only for its own
// transaction, so the generator must keep waiting before its next BEGIN_REQ.
TEST_CASE("AT streams with END_REQ back-pressure keep the request exclusion rule") {
  run_links(true, false, true);
}

TEST_CASE("AT multi-lane streams with END_REQ back-pressure keep the request exclusion rule") {
  run_links(true, true, true);
}

TEST_CASE("AT initiator holding END_RESP: banked_memory keeps response exclusion") {
  banked_memory::params mp;
  mp.size_bytes = 4096;
  mp.latency = 3;
  banked_memory mem("mem", mp);
  protocol_checker chk("chk", true);
  flynn::payload_pool pool(16);
  std::vector<tlm::tlm_generic_payload*> held;
  unsigned responses = 0;
  tlm::tlm_generic_payload* pending_req = nullptr;
  initiator ini("ini", [&](initiator& i) {
    std::mt19937 rng(7);
    for (unsigned k = 0; k < 200; ++k) {
      // Release a held response now and then (END_RESP on the forward path).
      if (!held.empty() && rng() % 2) {
        tlm::tlm_generic_payload* g = held.front();
        held.erase(held.begin());
        tlm::tlm_phase ph = tlm::END_RESP;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        i.socket->nb_transport_fw(*g, ph, d);
        g->release();
      }
      while (pending_req) wait(ns(1));  // request exclusion: wait for END_REQ
      const auto cmd = rng() % 2 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND;
      auto* g = protocol_test::pooled(pool, cmd, 8 * (rng() % 256), 8);
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      const auto r = i.socket->nb_transport_fw(*g, ph, d);
      if (r == tlm::TLM_COMPLETED) g->release();
      if (r == tlm::TLM_ACCEPTED) pending_req = g;
      wait(ns(1 + rng() % 3));
    }
    while (responses < 200 || !held.empty()) {
      if (!held.empty()) {
        tlm::tlm_generic_payload* g = held.front();
        held.erase(held.begin());
        tlm::tlm_phase ph = tlm::END_RESP;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        i.socket->nb_transport_fw(*g, ph, d);
        g->release();
      }
      wait(ns(1));
    }
  });
  std::mt19937 answer(11);
  ini.on_bw = [&](tlm::tlm_generic_payload& g, tlm::tlm_phase& ph, sc_core::sc_time&) {
    if (&g == pending_req) pending_req = nullptr;  // END_REQ, or BEGIN_RESP implying it
    if (ph != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
    ++responses;
    if (answer() % 3 == 0) {  // complete at once
      g.release();
      return tlm::TLM_COMPLETED;
    }
    held.push_back(&g);  // END_RESP later
    return tlm::TLM_ACCEPTED;
  };
  ini.socket.bind(chk.target);
  chk.initiator.bind(mem.port(0));
  sc_core::sc_start(ns(5000));
  INFO(chk.report());
  CHECK(ini.finished);
  CHECK(responses == 200);
  CHECK(chk.violations() == 0);
  CHECK(chk.open_transactions() == 0);
  CHECK(pool.in_use() == 0);
}

TEST_CASE("banked_memory DMI and debug transport through the checker give no violation") {
  banked_memory::params mp;
  mp.size_bytes = 1 << 14;
  mp.shared_ports = 1;
  banked_memory mem("mem", mp);
  protocol_checker chk("chk", true);
  bool ok_read = false, ok_write = false, valid_after = true;
  std::uint64_t via_dmi = 0, via_dbg = 0;
  initiator ini("ini", [&](initiator& i) {
    std::mt19937_64 rng(3);
    // Debug writes and reads at random places, including the last bytes and beyond the end.
    std::vector<unsigned char> golden(mp.size_bytes, 0);
    for (unsigned k = 0; k < 300; ++k) {
      const unsigned len = 1 + static_cast<unsigned>(rng() % 64);
      const std::uint64_t a = rng() % (mp.size_bytes + 64);
      std::vector<unsigned char> buf(len);
      for (auto& b : buf) b = static_cast<unsigned char>(rng());
      tlm::tlm_generic_payload gp;
      const bool wr = rng() % 2;
      protocol_test::setup(gp, wr ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, a,
                           buf.data(), len);
      const unsigned n = i.socket->transport_dbg(gp);
      const unsigned expect =
          a >= mp.size_bytes
              ? 0
              : static_cast<unsigned>(std::min<std::uint64_t>(len, mp.size_bytes - a));
      CHECK(n == expect);
      if (wr && n) std::memcpy(&golden[a], buf.data(), n);
      if (!wr && n) CHECK(std::memcmp(&golden[a], buf.data(), n) == 0);
    }
    // DMI for reads and writes inside the memory, then a timed write seen through DMI.
    tlm::tlm_generic_payload gp;
    tlm::tlm_dmi dmi;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0x100);
    ok_read = i.socket->get_direct_mem_ptr(gp, dmi);
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(mp.size_bytes - 1);
    dmi.init();
    ok_write = i.socket->get_direct_mem_ptr(gp, dmi);
    std::uint64_t v = 0x0123456789abcdefull;
    i.access(tlm::TLM_WRITE_COMMAND, 0x100, &v, 8, 0);
    chk.note_dmi_access(0x100, 8, tlm::TLM_READ_COMMAND);
    std::memcpy(&via_dmi, dmi.get_dmi_ptr() + 0x100 - dmi.get_start_address(), 8);
    tlm::tlm_generic_payload dbg;
    protocol_test::setup(dbg, tlm::TLM_READ_COMMAND, 0x100,
                         reinterpret_cast<unsigned char*>(&via_dbg), 8);
    i.socket->transport_dbg(dbg);
    mem.set_latency(5);  // invalidates every DMI pointer
    valid_after = chk.dmi_valid(0x100, tlm::TLM_READ_COMMAND);
  });
  ini.socket.bind(chk.target);
  chk.initiator.bind(mem.port(0));
  sc_core::sc_start();
  INFO(chk.report());
  CHECK(ini.finished);
  CHECK(ok_read);
  CHECK(ok_write);
  CHECK(via_dmi == 0x0123456789abcdefull);
  CHECK(via_dbg == via_dmi);
  CHECK(ini.invalidations == 1);
  CHECK(chk.dmi_invalidations() == 1);
  CHECK_FALSE(valid_after);
  CHECK(chk.violations() == 0);
}

// DMI requests banked_memory must refuse: an address beyond the memory, a read on a
// store-only port and a write on a load-only port.
TEST_CASE("banked_memory refuses DMI outside the memory and against a one-way port") {
  banked_memory::params mp;
  mp.size_bytes = 4096;
  mp.shared_ports = 1;
  mp.load_ports = 1;
  mp.store_ports = 1;
  banked_memory mem("mem", mp);
  std::vector<std::unique_ptr<protocol_checker>> chk;
  std::vector<std::unique_ptr<initiator>> ini;
  const tlm::tlm_command cmds[] = {tlm::TLM_READ_COMMAND, tlm::TLM_WRITE_COMMAND,
                                   tlm::TLM_READ_COMMAND};
  const std::uint64_t addrs[] = {8192, 0, 0};
  for (unsigned p = 0; p < 3; ++p) {
    chk.push_back(std::make_unique<protocol_checker>(("chk" + std::to_string(p)).c_str()));
    chk.back()->warnings = false;
    const tlm::tlm_command cmd = cmds[p];
    const std::uint64_t a = addrs[p];
    auto body = [cmd, a](initiator& i) {
      tlm::tlm_generic_payload gp;
      gp.set_command(cmd);
      gp.set_address(a);
      tlm::tlm_dmi dmi;
      i.socket->get_direct_mem_ptr(gp, dmi);
    };
    ini.push_back(std::make_unique<initiator>(("ini" + std::to_string(p)).c_str(), body));
    ini.back()->socket.bind(chk.back()->target);
    chk.back()->initiator.bind(mem.port(p));
  }
  sc_core::sc_start();
  for (auto& c : chk) {
    INFO(c->report());
    CHECK(c->violations() == 0);
  }
}

// Payloads come back from a memory with the DMI hint set; the generator's next requests (LT:
// one payload reused, AT: a pool) start from the base protocol's initial state again.
TEST_CASE("recycled payloads are reset: the DMI hint a target set does not reach the next request") {
  struct hinted_link {
    traffic_generator::params g;
    banked_memory mem;
    dmi_hinter hint;
    protocol_checker chk;
    traffic_generator gen;
    hinted_link(const std::string& tag, bool at)
        : g(random_traffic(7, at, false, false)), mem(("mem_" + tag).c_str(), memory_for(7, false)),
          hint(("hint_" + tag).c_str()), chk(("chk_" + tag).c_str()), gen(("gen_" + tag).c_str(), g) {
      chk.warnings = false;
      gen.out.bind(chk.target);
      chk.initiator.bind(hint.target);
      hint.initiator.bind(mem.port(0));
    }
  };
  hinted_link lt("lt", false), at("at", true);
  sc_core::sc_start();
  for (hinted_link* l : {&lt, &at}) {
    INFO(l->chk.report());
    CHECK(l->gen.done());
    CHECK(l->gen.requests_done() > 100);
    CHECK(l->chk.count("gp.dmi_allowed") == 0);
    CHECK(l->chk.violations() == 0);
  }
}

TEST_CASE("payload_pool hands out recycled payloads in the base protocol's initial state") {
  flynn::payload_pool pool(16);
  tlm::tlm_generic_payload* gp = pool.allocate();
  flynn::prepare_payload(*gp, tlm::TLM_WRITE_COMMAND, 0x40, pool.buffer(gp), 16);
  gp->set_dmi_allowed(true);
  gp->set_response_status(tlm::TLM_OK_RESPONSE);
  gp->set_gp_option(tlm::TLM_FULL_PAYLOAD);
  gp->release();
  tlm::tlm_generic_payload* again = pool.allocate();
  REQUIRE(again == gp);
  CHECK_FALSE(again->is_dmi_allowed());
  CHECK(again->get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE);
  CHECK(again->get_gp_option() == tlm::TLM_MIN_PAYLOAD);
  CHECK(again->get_command() == tlm::TLM_IGNORE_COMMAND);
  CHECK(again->get_data_ptr() == nullptr);
  CHECK(again->get_data_length() == 0);
  CHECK(again->get_address() == 0);
  again->release();
}

// A multi-port memory with an initiator running ahead: its write waits for its cycle. DMI
// must never show an array that misses it, nor let a DMI write be overwritten when it lands.
TEST_CASE("banked_memory DMI is coherent with writes queued for a later cycle") {
  banked_memory::params mp;
  mp.size_bytes = 1 << 12;
  mp.shared_ports = 2;
  mp.latency = 11;
  mp.lt_time_order = false;  // a's call for a later cycle is booked at once: its write waits in the memory
  banked_memory mem("mem", mp);
  protocol_checker chk_a("chk_a", true), chk_b("chk_b", true);
  bool first = false, while_queued = true, later = false;
  std::uint64_t dbg_early = 0, timed_early = 0, via_dmi = 0, final_value = 0;
  const std::uint64_t v = 0x1111222233334444ull, w = 0x5555666677778888ull;
  sc_core::sc_event written;
  initiator a("a", [&](initiator& i) {
    wait(ns(1));
    std::uint64_t x = v;
    i.access(tlm::TLM_WRITE_COMMAND, 0x40, &x, 8, 100);  // runs ahead: lands at cycle 100 or later
    written.notify();
  });
  initiator b("b", [&](initiator& i) {
    tlm::tlm_generic_payload gp;
    tlm::tlm_dmi dmi;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0x40);
    first = i.socket->get_direct_mem_ptr(gp, dmi);  // nothing queued: granted
    wait(written);
    CHECK(i.invalidations == 1);                    // the queued write took the pointer back
    dmi.init();
    while_queued = i.socket->get_direct_mem_ptr(gp, dmi);
    tlm::tlm_generic_payload dbg;
    protocol_test::setup(dbg, tlm::TLM_READ_COMMAND, 0x40, reinterpret_cast<unsigned char*>(&dbg_early), 8);
    i.socket->transport_dbg(dbg);                   // debug sees every write made so far...
    i.access(tlm::TLM_READ_COMMAND, 0x40, &timed_early, 8, 50);  // ...a timed read of cycle 50 does not
    wait(ns(300));
    dmi.init();
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    later = i.socket->get_direct_mem_ptr(gp, dmi);  // the write has landed: granted again
    if (later) {
      std::memcpy(&via_dmi, dmi.get_dmi_ptr() + 0x40, 8);
      std::memcpy(dmi.get_dmi_ptr() + 0x40, &w, 8);
    }
    wait(ns(300));
    std::uint64_t x = 0;
    i.access(tlm::TLM_READ_COMMAND, 0x40, &x, 8, 700);
    final_value = x;
  });
  a.socket.bind(chk_a.target);
  chk_a.initiator.bind(mem.port(0));
  b.socket.bind(chk_b.target);
  chk_b.initiator.bind(mem.port(1));
  sc_core::sc_start();
  CHECK(first);
  CHECK_FALSE(while_queued);
  CHECK(dbg_early == v);
  CHECK(timed_early == 0);
  CHECK(later);
  CHECK(via_dmi == v);
  CHECK(final_value == w);  // the DMI write was not lost
  CHECK(chk_a.violations() + chk_b.violations() == 0);
}

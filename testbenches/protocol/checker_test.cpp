// Base-protocol checker against deliberately broken initiators and targets: each break is
// caught once, with its rule and a message naming the transaction, phase and time. Legal
// sequences (early completion, BEGIN_RESP implying END_REQ, END_RESP on the return path)
// produce no violation.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "harness.h"
#include "protocol_parts.h"

using flynn::protocol_checker;
using flynn_test::initiator;
using protocol_test::mentions;
using protocol_test::pooled;
using protocol_test::scripted_target;
using protocol_test::setup;

namespace {

// initiator -> checker -> target
struct link {
  flynn::payload_pool pool{64};
  scripted_target tgt{"tgt"};
  protocol_checker chk{"chk"};
  initiator ini;
  explicit link(std::function<void(initiator&)> body) : ini("ini", std::move(body)) {
    chk.warnings = false;
    ini.socket.bind(chk.target);
    chk.initiator.bind(tgt.socket);
  }
};

sc_core::sc_time ns(double v) { return sc_core::sc_time(v, sc_core::SC_NS); }

}  // namespace

// ------------------------------------------------------------------------------ b_transport

TEST_CASE("b_transport: a target that leaves the response incomplete is detected") {
  link l([](initiator& i) {
    wait(ns(5));
    std::uint64_t v = 0;
    i.access(tlm::TLM_READ_COMMAND, 0x40, &v, 8, 5);
  });
  l.tgt.on_b = [](tlm::tlm_generic_payload&, sc_core::sc_time&) {};  // never sets the status
  sc_core::sc_start();
  REQUIRE(l.chk.violations() == 1);
  const auto& v = l.chk.violation_list()[0];
  CHECK(v.rule == "b.response_incomplete");
  CHECK(v.time == ns(5));
  CHECK(v.text.find("read of 8 B at 0x40") != std::string::npos);
  CHECK(v.text.find("TLM_INCOMPLETE_RESPONSE") != std::string::npos);
  CHECK(v.text.find("@5 ns") != std::string::npos);
  CHECK(l.chk.report().find("1 protocol violation,") != std::string::npos);
}

TEST_CASE("b_transport: a target that changes the address is detected") {
  link l([](initiator& i) {
    std::uint64_t v = 7;
    i.access(tlm::TLM_WRITE_COMMAND, 0x100, &v, 8, 0);
  });
  l.tgt.on_b = [](tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
    gp.set_address(gp.get_address() & 0xff);  // a target decoding in place
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  sc_core::sc_start();
  REQUIRE(l.chk.violations() == 1);
  CHECK(l.chk.count("b.attribute_modified") == 1);
  CHECK(mentions(l.chk, "b.attribute_modified", "write of 8 B at 0x100"));
  CHECK(mentions(l.chk, "b.attribute_modified", "address 0x100 -> 0x0"));
}

TEST_CASE("b_transport: status on entry - decreased delay - modified write data and length") {
  link l([](initiator& i) {
    std::uint64_t v = 0x1122334455667788ull;
    tlm::tlm_generic_payload gp;
    setup(gp, tlm::TLM_WRITE_COMMAND, 0x8, reinterpret_cast<unsigned char*>(&v), 8);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);  // initiator forgot to reset it
    sc_core::sc_time d = ns(10);
    i.socket->b_transport(gp, d);
  });
  l.tgt.on_b = [](tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    gp.get_data_ptr()[0] ^= 0xff;  // writes into the initiator's write data
    gp.set_data_length(4);
    d = ns(3);  // earlier than the initiator's local time
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  sc_core::sc_start();
  CHECK(l.chk.violations() == 3);
  CHECK(l.chk.count("b.status_on_entry") == 1);
  CHECK(l.chk.count("b.delay_decreased") == 1);
  CHECK(mentions(l.chk, "b.delay_decreased", "from 10 ns to 3 ns"));
  CHECK(mentions(l.chk, "b.attribute_modified", "data length 0x8 -> 0x4"));
  CHECK(mentions(l.chk, "b.attribute_modified", "write data array contents"));
}

TEST_CASE("request attributes: null data - zero length - zero streaming width - DMI hint - payload option") {
  std::vector<unsigned char> buf(128);
  link l([&](initiator& i) {
    auto send = [&](auto edit) {
      tlm::tlm_generic_payload gp;
      setup(gp, tlm::TLM_READ_COMMAND, 0x80, buf.data(), 16);
      edit(gp);
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      i.socket->b_transport(gp, d);
    };
    send([](tlm::tlm_generic_payload& gp) { gp.set_data_ptr(nullptr); });
    send([](tlm::tlm_generic_payload& gp) {  // an own request of a cache level: no data moves, 128 B named
      gp.set_command(tlm::TLM_IGNORE_COMMAND);
      gp.set_data_ptr(nullptr);
      gp.set_data_length(128);
      gp.set_streaming_width(128);
    });
    send([](tlm::tlm_generic_payload& gp) { gp.set_data_length(0); gp.set_streaming_width(1); });
    send([](tlm::tlm_generic_payload& gp) { gp.set_streaming_width(0); });
    send([](tlm::tlm_generic_payload& gp) { gp.set_dmi_allowed(true); });
    send([](tlm::tlm_generic_payload& gp) { gp.set_gp_option(tlm::TLM_FULL_PAYLOAD); });
    // Clean: an extension-only request (no data, length 0) and one with a valid pointer.
    tlm::tlm_generic_payload gp;
    setup(gp, tlm::TLM_IGNORE_COMMAND, 0, nullptr, 0);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    i.socket->b_transport(gp, d);
    setup(gp, tlm::TLM_IGNORE_COMMAND, 0, buf.data(), 128);
    i.socket->b_transport(gp, d);
  });
  sc_core::sc_start();
  INFO(l.chk.report());
  CHECK(l.chk.count("gp.data_pointer") == 2);
  CHECK(mentions(l.chk, "gp.data_pointer", "read of 16 B at 0x80, b_transport: a read or write with a null data pointer"));
  CHECK(mentions(l.chk, "gp.data_pointer", "ignore of 128 B at 0x80, b_transport: a null data pointer with a data length of 128"));
  CHECK(l.chk.count("gp.data_length") == 1);
  CHECK(l.chk.count("gp.streaming_width") == 1);
  CHECK(l.chk.count("gp.dmi_allowed") == 1);
  CHECK(mentions(l.chk, "gp.dmi_allowed", "14.16"));
  CHECK(l.chk.count("gp.option") == 1);
  CHECK(l.chk.violations() == 6);
}

TEST_CASE("nb_transport: BEGIN_REQ checks the request attributes too") {
  link* lp = nullptr;
  link l([&](initiator& i) {
    auto* gp = pooled(lp->pool, tlm::TLM_WRITE_COMMAND, 0x10, 8);
    gp->set_dmi_allowed(true);  // left from an earlier trip
    gp->set_streaming_width(0);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    i.socket->nb_transport_fw(*gp, ph, d);
  });
  lp = &l;
  l.tgt.on_nb = [](tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time&) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    ph = tlm::BEGIN_RESP;
    return tlm::TLM_COMPLETED;
  };
  sc_core::sc_start();
  INFO(l.chk.report());
  CHECK(l.chk.violations() == 2);
  CHECK(mentions(l.chk, "gp.dmi_allowed", "write of 8 B at 0x10, nb_transport_fw BEGIN_REQ"));
  CHECK(l.chk.count("gp.streaming_width") == 1);
}

TEST_CASE("b_transport: a correct target gives no violation and read data may change") {
  link l([](initiator& i) {
    for (unsigned k = 0; k < 10; ++k) {
      std::uint64_t v = k;
      i.access(k % 2 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND, 8 * k, &v, 8, k);
    }
  });
  l.tgt.on_b = [](tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    if (gp.is_read()) std::memset(gp.get_data_ptr(), 0xab, gp.get_data_length());
    d += ns(2);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  sc_core::sc_start();
  CHECK(l.chk.violations() == 0);
  CHECK(l.chk.report().find("0 protocol violations, 10 b_transport") != std::string::npos);
}

TEST_CASE("b_transport: a target that waits consumes the annotation; ending earlier than it is flagged") {
  // Two calls with 10 ns of annotation: the first target waits it out and returns 0 (ends at
  // the same local time: allowed); the second waits 2 ns and returns 3 ns (ends 5 ns early).
  link l([](initiator& i) {
    for (unsigned k = 0; k < 2; ++k) {
      std::uint64_t v = k;
      auto* gp = new tlm::tlm_generic_payload;
      gp->set_command(tlm::TLM_WRITE_COMMAND);
      gp->set_address(8 * k);
      gp->set_data_ptr(reinterpret_cast<unsigned char*>(&v));
      gp->set_data_length(8);
      gp->set_streaming_width(8);
      gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_core::sc_time d = ns(10);
      i.socket->b_transport(*gp, d);
      delete gp;
    }
  });
  l.tgt.on_b = [](tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    if (gp.get_address() == 0) {
      sc_core::wait(d);
      d = sc_core::SC_ZERO_TIME;
    } else {
      sc_core::wait(ns(2));
      d = ns(3);
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  sc_core::sc_start();
  CHECK(l.chk.violations() == 1);
  CHECK(mentions(l.chk, "b.delay_decreased", "from 10 ns to 3 ns after waiting 2 ns"));
}

// ------------------------------------------------------------------------------ nb_transport

TEST_CASE("nb_transport: two BEGIN_REQ without END_REQ break the request exclusion rule") {
  link* lp = nullptr;
  link l([&](initiator& i) {
    auto* g1 = pooled(lp->pool, tlm::TLM_READ_COMMAND, 0x10, 8);
    auto* g2 = pooled(lp->pool, tlm::TLM_WRITE_COMMAND, 0x20, 8);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    CHECK(i.socket->nb_transport_fw(*g1, ph, d) == tlm::TLM_ACCEPTED);
    wait(ns(2));
    ph = tlm::BEGIN_REQ;
    i.socket->nb_transport_fw(*g2, ph, d);  // g1 has not seen END_REQ
  });
  lp = &l;
  sc_core::sc_start();
  REQUIRE(l.chk.violations() == 1);
  const auto& v = l.chk.violation_list()[0];
  CHECK(v.rule == "nb.request_exclusion");
  CHECK(v.time == ns(2));
  CHECK(v.text.find("write of 8 B at 0x20, nb_transport_fw BEGIN_REQ") != std::string::npos);
  CHECK(v.text.find("previous request (read of 8 B at 0x10)") != std::string::npos);
  CHECK(l.chk.open_transactions() == 2);
}

TEST_CASE("nb_transport: a target that sends BEGIN_RESP twice is detected") {
  link* lp = nullptr;
  link l([&](initiator& i) {
    auto* g1 = pooled(lp->pool, tlm::TLM_READ_COMMAND, 0x10, 8);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    i.socket->nb_transport_fw(*g1, ph, d);
    wait(ns(1));
    lp->tgt.bw(*g1, tlm::END_REQ);
    wait(ns(1));
    g1->set_response_status(tlm::TLM_OK_RESPONSE);
    lp->tgt.bw(*g1, tlm::BEGIN_RESP);  // the initiator accepts and holds END_RESP
    wait(ns(1));
    lp->tgt.bw(*g1, tlm::BEGIN_RESP);  // again
  });
  lp = &l;
  sc_core::sc_start();
  REQUIRE(l.chk.violations() == 1);
  CHECK(mentions(l.chk, "nb.phase_sequence",
                 "read of 8 B at 0x10, nb_transport_bw BEGIN_RESP: BEGIN_RESP for a transaction "
                 "already in its response phase"));
  CHECK(l.chk.violation_list()[0].time == ns(3));
}

TEST_CASE("nb_transport: BEGIN_RESP before END_RESP of the previous response is detected") {
  link* lp = nullptr;
  link l([&](initiator& i) {
    auto* g1 = pooled(lp->pool, tlm::TLM_READ_COMMAND, 0x10, 8);
    auto* g2 = pooled(lp->pool, tlm::TLM_READ_COMMAND, 0x18, 8);
    for (auto* g : {g1, g2}) {
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      CHECK(i.socket->nb_transport_fw(*g, ph, d) == tlm::TLM_UPDATED);
      CHECK(ph == tlm::END_REQ);
      g->set_response_status(tlm::TLM_OK_RESPONSE);
    }
    wait(ns(4));
    lp->tgt.bw(*g1, tlm::BEGIN_RESP);  // accepted: END_RESP comes later
    lp->tgt.bw(*g2, tlm::BEGIN_RESP);  // response exclusion broken
  });
  lp = &l;
  l.tgt.on_nb = [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_core::sc_time&) {
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  };
  sc_core::sc_start();
  REQUIRE(l.chk.violations() == 1);
  CHECK(mentions(l.chk, "nb.response_exclusion",
                 "read of 8 B at 0x18, nb_transport_bw BEGIN_RESP: BEGIN_RESP before END_RESP of "
                 "the previous response (read of 8 B at 0x10)"));
}

TEST_CASE("nb_transport: missing memory manager - incomplete response status - wrong path phases") {
  link* lp = nullptr;
  link l([&](initiator& i) {
    std::uint64_t v = 0;
    tlm::tlm_generic_payload plain;  // no memory manager
    setup(plain, tlm::TLM_READ_COMMAND, 0x30, reinterpret_cast<unsigned char*>(&v), 8);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    i.socket->nb_transport_fw(plain, ph, d);  // target completes it at once
    auto* g = pooled(lp->pool, tlm::TLM_READ_COMMAND, 0x38, 8);
    lp->tgt.on_nb = [](tlm::tlm_generic_payload&, tlm::tlm_phase& p, sc_core::sc_time&) {
      p = tlm::BEGIN_RESP;  // status never set
      return tlm::TLM_UPDATED;
    };
    ph = tlm::BEGIN_REQ;
    i.socket->nb_transport_fw(*g, ph, d);
    ph = tlm::END_RESP;
    lp->tgt.on_nb = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
      return tlm::TLM_COMPLETED;
    };
    i.socket->nb_transport_fw(*g, ph, d);
    ph = tlm::END_RESP;  // not in flight any more
    i.socket->nb_transport_fw(*g, ph, d);
    auto* h = pooled(lp->pool, tlm::TLM_WRITE_COMMAND, 0x40, 8);
    ph = tlm::BEGIN_RESP;  // a target phase on the forward path
    i.socket->nb_transport_fw(*h, ph, d);
  });
  lp = &l;
  l.tgt.on_nb = [](tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_core::sc_time&) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  };
  sc_core::sc_start();
  CHECK(mentions(l.chk, "nb.memory_manager", "read of 8 B at 0x30, nb_transport_fw BEGIN_REQ"));
  CHECK(mentions(l.chk, "nb.response_status",
                 "read of 8 B at 0x38, nb_transport_fw BEGIN_REQ returned TLM_UPDATED BEGIN_RESP: "
                 "BEGIN_RESP with the response status still TLM_INCOMPLETE_RESPONSE"));
  CHECK(mentions(l.chk, "nb.phase_sequence", "END_RESP for a transaction not in flight"));
  CHECK(mentions(l.chk, "nb.phase_direction", "BEGIN_RESP is a target phase"));
  CHECK(l.chk.violations() == 4);
}

TEST_CASE("nb_transport: a target returning TLM_COMPLETED without a response status is detected") {
  link* lp = nullptr;
  link l([&](initiator& i) {
    auto* g = pooled(lp->pool, tlm::TLM_WRITE_COMMAND, 0x80, 4);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    i.socket->nb_transport_fw(*g, ph, d);
  });
  lp = &l;
  l.tgt.on_nb = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
    return tlm::TLM_COMPLETED;
  };
  sc_core::sc_start();
  REQUIRE(l.chk.violations() == 1);
  CHECK(mentions(l.chk, "nb.response_status", "write of 4 B at 0x80"));
  CHECK(l.chk.open_transactions() == 0);
}

TEST_CASE("nb_transport: every legal base-protocol path gives no violation") {
  link* lp = nullptr;
  link l([&](initiator& i) {
    auto& t = lp->tgt;
    auto send = [&](tlm::tlm_generic_payload& g, tlm::tlm_phase p) {
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      return i.socket->nb_transport_fw(g, p, d);
    };
    // 1: BEGIN_REQ / ACCEPTED, END_REQ (bw), BEGIN_RESP (bw) / ACCEPTED, END_RESP / COMPLETED.
    auto* g = pooled(lp->pool, tlm::TLM_READ_COMMAND, 0x0, 8);
    t.on_nb = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
      return tlm::TLM_ACCEPTED;
    };
    send(*g, tlm::BEGIN_REQ);
    wait(ns(1));
    t.bw(*g, tlm::END_REQ);
    wait(ns(1));
    std::memset(g->get_data_ptr(), 1, 8);  // read data
    g->set_response_status(tlm::TLM_OK_RESPONSE);
    t.bw(*g, tlm::BEGIN_RESP);
    wait(ns(1));
    t.on_nb = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
      return tlm::TLM_COMPLETED;
    };
    send(*g, tlm::END_RESP);
    g->release();
    // 2: BEGIN_REQ / COMPLETED at once (status set).
    g = pooled(lp->pool, tlm::TLM_WRITE_COMMAND, 0x8, 8);
    t.on_nb = [](tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_core::sc_time& d) {
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      d += sc_core::sc_time(3, sc_core::SC_NS);
      return tlm::TLM_COMPLETED;
    };
    send(*g, tlm::BEGIN_REQ);
    g->release();
    // 3: BEGIN_REQ / UPDATED BEGIN_RESP (implies END_REQ), then END_RESP / ACCEPTED... the
    //    same object reused for a new transaction afterwards.
    g = pooled(lp->pool, tlm::TLM_READ_COMMAND, 0x10, 8);
    t.on_nb = [](tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time&) {
      if (ph == tlm::BEGIN_REQ) {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        ph = tlm::BEGIN_RESP;
        return tlm::TLM_UPDATED;
      }
      return tlm::TLM_COMPLETED;
    };
    send(*g, tlm::BEGIN_REQ);
    send(*g, tlm::END_RESP);
    g->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    // 4: the same object again: BEGIN_REQ / ACCEPTED, BEGIN_RESP (bw) without END_REQ, the
    //    initiator answers TLM_UPDATED END_RESP.
    t.on_nb = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
      return tlm::TLM_ACCEPTED;
    };
    i.on_bw = [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_core::sc_time&) {
      if (ph != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
      ph = tlm::END_RESP;
      return tlm::TLM_UPDATED;
    };
    send(*g, tlm::BEGIN_REQ);
    wait(ns(2));
    g->set_response_status(tlm::TLM_OK_RESPONSE);
    t.bw(*g, tlm::BEGIN_RESP);
    // 5: a new request right after BEGIN_RESP implied END_REQ; the initiator completes the
    //    response with TLM_COMPLETED on the backward path.
    auto* h = pooled(lp->pool, tlm::TLM_WRITE_COMMAND, 0x18, 8);
    send(*h, tlm::BEGIN_REQ);
    i.on_bw = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
      return tlm::TLM_COMPLETED;
    };
    h->set_response_status(tlm::TLM_OK_RESPONSE);
    t.bw(*h, tlm::BEGIN_RESP);
    g->release();
    h->release();
  });
  lp = &l;
  sc_core::sc_start();
  INFO(l.chk.report());
  CHECK(l.chk.violations() == 0);
  CHECK(l.chk.open_transactions() == 0);
}

// ------------------------------------------------------------------------------ DMI

TEST_CASE("DMI: a grant that does not contain the requested address is detected") {
  std::vector<unsigned char> store(256);
  bool granted = false;
  link l([&](initiator& i) {
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0x1000);
    tlm::tlm_dmi dmi;
    granted = i.socket->get_direct_mem_ptr(gp, dmi);
  });
  l.tgt.on_dmi = [&](tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    dmi.set_dmi_ptr(store.data());
    dmi.set_start_address(0);
    dmi.set_end_address(store.size() - 1);  // ignores the requested address
    dmi.allow_read_write();
    return true;
  };
  sc_core::sc_start();
  CHECK(granted);
  REQUIRE(l.chk.violations() == 1);
  CHECK(mentions(l.chk, "dmi.range_excludes_address",
                 "read of 0 B at 0x1000, get_direct_mem_ptr: granted DMI range [0x0, 0xff] does "
                 "not contain the requested address 0x1000"));
}

TEST_CASE("DMI: malformed range - missing access - use after invalidation are detected") {
  std::vector<unsigned char> store(256);
  link* lp = nullptr;
  bool valid_before = false, valid_after = true;
  link l([&](initiator& i) {
    tlm::tlm_generic_payload gp;
    tlm::tlm_dmi dmi;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(0x10);
    i.socket->get_direct_mem_ptr(gp, dmi);  // read-only grant for a write request
    gp.set_command(tlm::TLM_READ_COMMAND);
    dmi.init();
    i.socket->get_direct_mem_ptr(gp, dmi);  // fine
    valid_before = lp->chk.dmi_valid(0x10, tlm::TLM_READ_COMMAND);
    lp->chk.note_dmi_access(0x10, 4, tlm::TLM_READ_COMMAND);  // inside the grant: fine
    wait(ns(1));
    lp->tgt.socket->invalidate_direct_mem_ptr(0x0, 0x7f);
    valid_after = lp->chk.dmi_valid(0x10, tlm::TLM_READ_COMMAND);
    lp->chk.note_dmi_access(0x10, 4, tlm::TLM_READ_COMMAND);  // stale pointer used
    lp->tgt.socket->invalidate_direct_mem_ptr(0x80, 0x7f);     // malformed
    gp.set_address(0x20);
    dmi.init();
    lp->tgt.on_dmi = [](tlm::tlm_generic_payload&, tlm::tlm_dmi& d) {
      d.set_start_address(0x40);
      d.set_end_address(0x3f);
      return false;
    };
    i.socket->get_direct_mem_ptr(gp, dmi);  // malformed region on a refusal
  });
  lp = &l;
  l.tgt.on_dmi = [&](tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    dmi.set_dmi_ptr(store.data());
    dmi.set_start_address(0);
    dmi.set_end_address(store.size() - 1);
    dmi.allow_read();
    return true;
  };
  sc_core::sc_start();
  CHECK(valid_before);
  CHECK_FALSE(valid_after);
  CHECK(l.ini.invalidations == 2);  // forwarded
  CHECK(mentions(l.chk, "dmi.access", "DMI granted without write access for a write request"));
  CHECK(mentions(l.chk, "dmi.use_after_invalidate",
                 "read of 4 B at 0x10 through a DMI pointer whose range was invalidated"));
  CHECK(mentions(l.chk, "dmi.invalidate_malformed", "[0x80, 0x7f]"));
  CHECK(mentions(l.chk, "dmi.range_malformed", "[0x40, 0x3f]"));
  CHECK(l.chk.violations() == 4);
}

// ------------------------------------------------------------------------------ debug

TEST_CASE("debug transport: a read with side effects is detected") {
  std::vector<unsigned char> regs(16, 0x5a);
  unsigned n = 0;
  link l([&](initiator& i) {
    std::uint32_t v = 0;
    tlm::tlm_generic_payload gp;
    setup(gp, tlm::TLM_READ_COMMAND, 4, reinterpret_cast<unsigned char*>(&v), 4);
    n = i.socket->transport_dbg(gp);
  });
  l.tgt.on_dbg = [&](tlm::tlm_generic_payload& gp) {  // clear-on-read, even for debug
    const auto a = gp.get_address();
    std::memcpy(gp.get_data_ptr(), &regs[a], gp.get_data_length());
    std::memset(&regs[a], 0, gp.get_data_length());
    return gp.get_data_length();
  };
  sc_core::sc_start();
  CHECK(n == 4);
  REQUIRE(l.chk.violations() == 1);
  CHECK(mentions(l.chk, "dbg.side_effect",
                 "read of 4 B at 0x4, transport_dbg: a repeated debug read of the same bytes "
                 "returned different data"));
}

TEST_CASE("debug transport: a count above the data length is detected and a clean read is not") {
  std::vector<unsigned char> regs(16, 0x5a);
  link l([&](initiator& i) {
    std::uint64_t v = 0;
    tlm::tlm_generic_payload gp;
    setup(gp, tlm::TLM_READ_COMMAND, 0, reinterpret_cast<unsigned char*>(&v), 8);
    i.socket->transport_dbg(gp);  // clean
    setup(gp, tlm::TLM_WRITE_COMMAND, 0, reinterpret_cast<unsigned char*>(&v), 2);
    i.socket->transport_dbg(gp);  // reports more bytes than asked for
  });
  l.tgt.on_dbg = [&](tlm::tlm_generic_payload& gp) {
    if (gp.is_read()) {
      std::memcpy(gp.get_data_ptr(), regs.data(), gp.get_data_length());
      return gp.get_data_length();
    }
    return 8u;
  };
  sc_core::sc_start();
  REQUIRE(l.chk.violations() == 1);
  CHECK(mentions(l.chk, "dbg.count", "write of 2 B at 0x0, transport_dbg: returned 8 bytes, more "
                                     "than the data length 2"));
}

// ------------------------------------------------------------------------------ reporting

TEST_CASE("strict mode turns a violation into an SC_REPORT_ERROR of type flynn/protocol") {
  std::string caught;
  link l([&](initiator& i) {
    std::uint64_t v = 0;
    try {
      i.access(tlm::TLM_READ_COMMAND, 0x40, &v, 8, 0);
    } catch (const sc_core::sc_report& r) {
      caught = std::string(r.get_msg_type()) + ": " + r.get_msg();
    }
  });
  l.chk.strict = true;
  l.tgt.on_b = [](tlm::tlm_generic_payload&, sc_core::sc_time&) {};
  sc_core::sc_start();
  CHECK(l.chk.violations() == 1);
  CHECK(caught.find("flynn/protocol: ") == 0);
  CHECK(caught.find("[b.response_incomplete]") != std::string::npos);
}

TEST_CASE("non-strict mode warns with message type flynn/protocol and carries on") {
  link l([&](initiator& i) {
    std::uint64_t v = 0;
    i.access(tlm::TLM_READ_COMMAND, 0x40, &v, 8, 0);
    i.access(tlm::TLM_READ_COMMAND, 0x48, &v, 8, 1);
  });
  l.chk.warnings = true;
  sc_core::sc_report_handler::set_actions(protocol_checker::msg_type, sc_core::SC_WARNING,
                                          sc_core::SC_DO_NOTHING);
  l.tgt.on_b = [](tlm::tlm_generic_payload&, sc_core::sc_time&) {};
  sc_core::sc_start();
  CHECK(l.chk.violations() == 2);
  CHECK(sc_core::sc_report_handler::get_count(protocol_checker::msg_type) == 2);
  CHECK(l.ini.finished);
}

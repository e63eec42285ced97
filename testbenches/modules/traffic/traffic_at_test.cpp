// The traffic generator against targets that take the other legal paths of the TLM-2.0 base
// protocol (IEEE 1666-2011, clause 15): an immediate response on the return path
// (TLM_UPDATED with BEGIN_RESP), TLM_COMPLETED, BEGIN_RESP without END_REQ, annotated
// delays, and out-of-order completion; and a target that ignores the lanes extension.
// The target here is written from the protocol rules alone, not from a Flynn module, and
// checks the initiator's side of the rules itself (a protocol_checker sits on the link too).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <tlm>

#include "flynn/platform/stats_writer.h"
#include "flynn/platform/simt_asm.h"
#include "flynn/simt/simt_core.h"
#include "flynn/tlm/lanes_extension.h"
#include "flynn/tlm/memory_manager.h"
#include "flynn/tlm/protocol_checker.h"
#include "flynn/traffic/traffic_generator.h"
#include "flynn/vector/vector_unit.h"
#include "harness.h"

using Catch::Matchers::Contains;
using flynn::traffic_generator;
using flynn::traffic_stream;

namespace {

sc_core::sc_time ns(double v) { return sc_core::sc_time(v, sc_core::SC_NS); }

// How the target answers BEGIN_REQ (delays: `latency` cycles).
enum class answer {
  updated_begin_resp,  // TLM_UPDATED with BEGIN_RESP and a delay; END_RESP must follow
  completed,           // TLM_COMPLETED with a delay
  begin_resp_only,     // TLM_ACCEPTED, then BEGIN_RESP with a delay on the backward path only
  out_of_order,        // holds up to `window` requests, then executes and answers them permuted
};

// A flat memory behind a base-protocol target socket. It executes a request when it answers
// it, so the order it answers in is the order memory sees.
class lrm_target : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  tlm::tlm_target_socket<32> socket;
  std::vector<unsigned char> mem;
  answer how;
  unsigned latency = 3;                 // cycles (1 ns)
  unsigned window = 8;                  // out_of_order: requests held before answering
  bool honour_lanes = true;             // false: a target that knows nothing of lanes_extension
  long corrupt_read = -1;               // arrival number of a read whose data the target damages
  bool newest_first = false;            // out_of_order: answer a batch newest first, not permuted
  std::vector<std::string> errors;      // initiator-side rule breaks seen here
  std::vector<std::uint64_t> executed;  // arrival numbers, in execution order
  // Requests executed before an earlier-arrived one they overlap, one of the two a write:
  // the reorderings that would make issue order the wrong golden model.
  unsigned overlap_inversions = 0;
  unsigned end_resps = 0, immediate = 0, end_reqs_on_bw = 0;

  SC_HAS_PROCESS(lrm_target);
  lrm_target(const sc_core::sc_module_name& n, answer a, std::size_t bytes, std::uint64_t seed = 1)
      : sc_core::sc_module(n), socket("socket"), mem(bytes), how(a), rng_(seed) {
    for (std::size_t i = 0; i < bytes; ++i) mem[i] = static_cast<unsigned char>(i * 7 + 3);
    socket.bind(*this);
    SC_THREAD(responder);
    SC_THREAD(end_req_sender);
  }

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    arrival_[&gp] = arrivals_++;
    execute(gp);
    d += ns(latency);
  }

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& d) override {
    if (ph == tlm::END_RESP) return end_resp(gp);
    if (ph != tlm::BEGIN_REQ) {
      error("unexpected phase " + std::string(ph.get_name()) + " on the forward path");
      return tlm::TLM_COMPLETED;
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp() + d;
    if (req_open_) error("BEGIN_REQ while an earlier request is still in its request phase");
    if (now < req_ends_at_)
      error("BEGIN_REQ at " + now.to_string() +
            ", before the annotated end of the previous request phase (" +
            req_ends_at_.to_string() + ")");
    arrival_[&gp] = arrivals_++;
    if (gp.has_mm()) gp.acquire();
    switch (how) {
      case answer::updated_begin_resp:
        return answer_now(gp, ph, d, now);
      case answer::completed:
        execute(gp);
        req_ends_at_ = now;
        d += ns(latency);
        if (gp.has_mm()) gp.release();
        return tlm::TLM_COMPLETED;
      case answer::begin_resp_only:
        req_open_ = &gp;
        ready_.push_back({&gp, now});
        ready_ev_.notify(sc_core::SC_ZERO_TIME);
        return tlm::TLM_ACCEPTED;
      case answer::out_of_order:
        return hold(gp, ph, now);
    }
    return tlm::TLM_ACCEPTED;
  }

  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned transport_dbg(tlm::tlm_generic_payload&) override { return 0; }

  bool idle() const { return !req_open_ && !resp_open_ && ready_.empty() && held_.empty(); }
  // Pairs of requests executed in the reverse of their arrival order.
  std::size_t inversions() const {
    std::size_t n = 0;
    for (std::size_t i = 0; i < executed.size(); ++i)
      for (std::size_t j = i + 1; j < executed.size(); ++j) n += executed[i] > executed[j];
    return n;
  }

 private:
  struct ready_response {
    tlm::tlm_generic_payload* gp;
    sc_core::sc_time due;
  };

  void error(const std::string& what) {
    errors.push_back(sc_core::sc_time_stamp().to_string() + ": " + what);
  }

  // A memory that honours the lanes moves lane l at address[l], and says so.
  void execute(tlm::tlm_generic_payload& gp) {
    count_overlap_inversions(gp);
    executed.push_back(arrival_[&gp]);
    unsigned char* d = gp.get_data_ptr();
    auto move = [&](std::uint64_t a, unsigned char* p, std::size_t n) {
      if (a >= mem.size() || n > mem.size() - a) return false;
      if (gp.is_read())
        std::memcpy(p, &mem[a], n);
      else
        std::memcpy(&mem[a], p, n);
      return true;
    };
    bool ok = true;
    auto* lx = gp.get_extension<flynn::lanes_extension>();
    if (lx && honour_lanes) {
      for (unsigned l = 0; l < lx->lanes; ++l)
        if (lx->active(l))
          ok = move(lx->address[l], d + std::size_t(l) * lx->lane_bytes, lx->lane_bytes) && ok;
      lx->acknowledged = true;
    } else {
      ok = move(gp.get_address(), d, gp.get_data_length());
    }
    if (gp.is_read() && corrupt_read == static_cast<long>(arrival_[&gp])) d[0] ^= 0x40;
    gp.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }

  // Byte ranges a request touches (lanes honoured or not, as execute() moves them).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges(tlm::tlm_generic_payload& gp) const {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> r;
    const auto* lx = gp.get_extension<flynn::lanes_extension>();
    if (lx && honour_lanes) {
      for (unsigned l = 0; l < lx->lanes; ++l)
        if (lx->active(l)) r.emplace_back(lx->address[l], lx->address[l] + lx->lane_bytes);
    } else {
      r.emplace_back(gp.get_address(), gp.get_address() + gp.get_data_length());
    }
    return r;
  }

  void count_overlap_inversions(tlm::tlm_generic_payload& gp) {
    const std::uint64_t me = arrival_[&gp];
    for (auto* other : held_) {
      if (other == &gp || arrival_[other] > me || !(gp.is_write() || other->is_write())) continue;
      for (const auto& a : ranges(gp))
        for (const auto& b : ranges(*other))
          if (a.first < b.second && b.first < a.second) {
            ++overlap_inversions;
            return;
          }
    }
  }

  // Answers on the return path unless a response is still open (response exclusion): then
  // the request phase ends now and the response waits its turn on the backward path. (With
  // BEGIN_RESP ending the request phase too, that needs an initiator that sends END_RESP late.)
  tlm::tlm_sync_enum answer_now(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                sc_core::sc_time& d, const sc_core::sc_time& now) {
    execute(gp);
    if (resp_open_ || !ready_.empty()) {
      ready_.push_back({&gp, now + ns(latency)});
      ready_ev_.notify(sc_core::SC_ZERO_TIME);
      req_ends_at_ = now;
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    ++immediate;
    d += ns(latency);
    req_ends_at_ = now + ns(latency);
    resp_open_ = &gp;
    resp_begins_at_ = now + ns(latency);
    ph = tlm::BEGIN_RESP;
    return tlm::TLM_UPDATED;
  }

  // out_of_order: every other request gets its END_REQ later on the backward path.
  tlm::tlm_sync_enum hold(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                          const sc_core::sc_time& now) {
    held_.push_back(&gp);
    held_ev_.notify(sc_core::SC_ZERO_TIME);
    if (arrival_[&gp] % 2 == 0) {
      req_ends_at_ = now;
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    req_open_ = &gp;
    end_req_ev_.notify(sc_core::SC_ZERO_TIME);
    return tlm::TLM_ACCEPTED;
  }

  tlm::tlm_sync_enum end_resp(tlm::tlm_generic_payload& gp) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (resp_open_ != &gp) {
      error("END_RESP for a transaction whose response is not open");
      return tlm::TLM_COMPLETED;
    }
    if (now < resp_begins_at_)
      error("END_RESP at " + now.to_string() + ", before the annotated BEGIN_RESP (" +
            resp_begins_at_.to_string() + ")");
    if (now > resp_begins_at_)
      error("END_RESP late: " + now.to_string() + " for a response at " +
            resp_begins_at_.to_string());
    ++end_resps;
    resp_open_ = nullptr;
    resp_closed_ev_.notify(sc_core::SC_ZERO_TIME);
    if (gp.has_mm()) gp.release();
    return tlm::TLM_COMPLETED;
  }

  // BEGIN_RESP on the backward path, never before the annotated time of its END_REQ (the
  // phases of one transaction take effect in order); waits for END_RESP when the initiator
  // asks for it.
  void send_response(tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
    if (req_open_ == &gp) req_open_ = nullptr;  // BEGIN_RESP ends the request phase too
    const auto ended = end_req_at_.find(&gp);
    if (ended != end_req_at_.end()) {
      if (ended->second > sc_core::sc_time_stamp()) wait(ended->second - sc_core::sc_time_stamp());
      end_req_at_.erase(ended);
    }
    tlm::tlm_phase ph = tlm::BEGIN_RESP;
    sc_core::sc_time d = delay;
    const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
    req_ends_at_ = std::max(req_ends_at_, at);
    const tlm::tlm_sync_enum r = socket->nb_transport_bw(gp, ph, d);
    if (r == tlm::TLM_ACCEPTED) {
      resp_open_ = &gp;
      resp_begins_at_ = at;
      while (resp_open_) wait(resp_closed_ev_);
      return;
    }
    if (r == tlm::TLM_UPDATED && ph != tlm::END_RESP)
      error("BEGIN_RESP answered TLM_UPDATED with " + std::string(ph.get_name()));
    if (gp.has_mm()) gp.release();
  }

  void responder() {
    while (true) {
      if (how == answer::out_of_order) {
        answer_batch();
        continue;
      }
      while (ready_.empty() || resp_open_) wait(ready_ev_ | resp_closed_ev_);
      const ready_response r = ready_.front();
      ready_.pop_front();
      if (r.due > sc_core::sc_time_stamp()) wait(r.due - sc_core::sc_time_stamp());
      if (how == answer::begin_resp_only) {
        execute(*r.gp);
        send_response(*r.gp,
                      ns(latency));  // the response, and the end of the request, at t + latency
      } else {
        send_response(*r.gp, sc_core::SC_ZERO_TIME);
      }
    }
  }

  // Waits until `window` requests are held or none came for 20 cycles, then executes and
  // answers them in a seeded permutation, one per cycle.
  void answer_batch() {
    if (held_.empty()) wait(held_ev_);
    while (held_.size() < window) {
      const std::size_t before = held_.size();
      wait(ns(20), held_ev_);
      if (held_.size() == before) break;
    }
    std::vector<tlm::tlm_generic_payload*> batch(held_.begin(), held_.end());
    if (newest_first)
      std::reverse(batch.begin(), batch.end());
    else
      std::shuffle(batch.begin(), batch.end(), rng_);
    for (auto* gp : batch) {
      execute(*gp);
      held_.erase(std::find(held_.begin(), held_.end(), gp));
      send_response(*gp, sc_core::SC_ZERO_TIME);
      wait(ns(1));
    }
  }

  // out_of_order: END_REQ for an accepted request two cycles later, annotated at once.
  void end_req_sender() {
    while (true) {
      wait(end_req_ev_);
      tlm::tlm_generic_payload* gp = req_open_;
      if (!gp) continue;
      req_open_ = nullptr;
      req_ends_at_ = sc_core::sc_time_stamp() + ns(2);
      end_req_at_[gp] = req_ends_at_;
      tlm::tlm_phase ph = tlm::END_REQ;
      sc_core::sc_time d = ns(2);
      ++end_reqs_on_bw;
      if (socket->nb_transport_bw(*gp, ph, d) != tlm::TLM_ACCEPTED)
        error("END_REQ not answered with TLM_ACCEPTED");
    }
  }

  std::mt19937_64 rng_;
  std::map<const tlm::tlm_generic_payload*, std::uint64_t> arrival_;
  std::map<const tlm::tlm_generic_payload*, sc_core::sc_time>
      end_req_at_;  // END_REQ sent, effective then
  std::uint64_t arrivals_ = 0;
  tlm::tlm_generic_payload* req_open_ =
      nullptr;  // request phase open (we owe END_REQ or BEGIN_RESP)
  tlm::tlm_generic_payload* resp_open_ = nullptr;  // response open (the initiator owes END_RESP)
  sc_core::sc_time req_ends_at_ = sc_core::SC_ZERO_TIME, resp_begins_at_ = sc_core::SC_ZERO_TIME;
  std::deque<ready_response> ready_;
  std::deque<tlm::tlm_generic_payload*> held_;
  sc_core::sc_event ready_ev_, resp_closed_ev_, held_ev_, end_req_ev_;
};

// Dense overlap: linear writes and reads of the same words while the writes may still be
// in flight, then short random write and read streams alternating over 8 words (every kind
// of hazard within one window of outstanding requests), optionally with multi-lane streams
// whose 4-byte lanes straddle those words.
traffic_generator::params overlapping_traffic(unsigned lanes = 0) {
  traffic_generator::params p;
  p.at = true;
  p.max_outstanding = 8;
  traffic_stream w;
  w.write = true;
  w.count = 48;
  w.range_bytes = 128;  // 16 words written three times over
  traffic_stream r = w;
  r.write = false;
  r.stride = -8;
  p.streams = {w, r};
  for (unsigned k = 0; k < 24; ++k) {
    traffic_stream s;
    s.kind = flynn::stream_kind::random;
    s.range_bytes = 64;
    s.count = 6;
    s.seed = k + 1;
    s.write = k % 2 == 0;
    if (lanes && k % 3 == 1) {
      s.kind = flynn::stream_kind::linear;
      s.lanes = lanes;
      s.size = 4;
      s.lane_stride = 12;
      s.stride = 20;
    }
    p.streams.push_back(s);
  }
  return p;
}

// generator -> protocol checker -> target, run to the end.
struct bench {
  traffic_generator::params gp;
  lrm_target target;
  flynn::protocol_checker checker;
  traffic_generator gen;
  std::vector<unsigned char> initial;

  bench(const traffic_generator::params& p, answer a, std::uint64_t seed = 1,
        const std::string& tag = "")
      : gp(p),
        target(("target" + tag).c_str(), a, 4096, seed),
        checker(("checker" + tag).c_str()),
        gen(("gen" + tag).c_str(), gp),
        initial(target.mem) {
    checker.warnings = false;
    gen.out.bind(checker.target);
    checker.initiator.bind(target.socket);
  }

  // The generator's own functional check: read data and final memory against the replay.
  void check_golden() {
    std::string errors;
    for (const auto& e : target.errors) errors += e + "\n";
    INFO(checker.report() << errors);
    CHECK(gen.done());
    CHECK(target.errors.empty());
    CHECK(checker.violations() == 0);
    CHECK(checker.open_transactions() == 0);
    CHECK(target.idle());
    CHECK(target.overlap_inversions == 0);
    std::vector<unsigned char> golden = initial;
    CHECK(gen.read_checksum() == flynn::traffic_golden_replay(gp, golden));
    CHECK(target.mem == golden);
    std::uint64_t n = 0;
    for (const auto& s : gp.streams) n += s.count;
    CHECK(gen.requests_done() == n);
  }
};

std::uint64_t stat(const traffic_generator& g, const char* name) {
  return flynn::stats_to_json(g.stats())[name].get<std::uint64_t>();
}

// Runs the simulation, which must stop on a Flynn fault; returns the fault's message.
std::string fault_message() {
  sc_core::sc_report_handler::set_actions("flynn/fault", sc_core::SC_ERROR, sc_core::SC_THROW);
  try {
    sc_core::sc_start();
  } catch (const sc_core::sc_report& e) {
    return e.get_msg();
  }
  FAIL("no fault raised");
  return {};
}

}  // namespace

TEST_CASE(
    "AT: a target that answers BEGIN_REQ with TLM_UPDATED BEGIN_RESP gets END_RESP at the "
    "annotated time") {
  bench b(overlapping_traffic(), answer::updated_begin_resp);
  b.target.latency = 3;
  sc_core::sc_start();
  b.check_golden();  // includes: every END_RESP exactly at its BEGIN_RESP time
  std::uint64_t n = 0;
  for (const auto& s : b.gp.streams) n += s.count;
  CHECK(b.target.immediate == n);
  CHECK(b.target.end_resps == n);
  // BEGIN_RESP at t + 3 also ends the request phase: one request every 3 cycles.
  CHECK(sc_core::sc_time_stamp() == ns(3.0 * double(n)));
}

TEST_CASE("AT: TLM_COMPLETED on the return path completes each request at the annotated time") {
  traffic_stream s;
  s.count = 64;
  traffic_generator::params p;
  p.at = true;
  p.max_outstanding = 4;
  p.streams = {s};
  bench b(p, answer::completed);
  b.target.latency = 5;
  sc_core::sc_start();
  b.check_golden();
  // 4 requests per 5-cycle round trip: 16 rounds, the last issued at 15 * 5 + 3, done 5 later.
  CHECK(sc_core::sc_time_stamp() == ns(15 * 5 + 3 + 5));
  const auto lat = flynn::stats_to_json(b.gen.stats())["latency"];
  CHECK(lat["min"] == 5);
  CHECK(lat["max"] == 5);
}

TEST_CASE("AT: TLM_COMPLETED with overlapping writes and reads matches the golden model") {
  bench b(overlapping_traffic(), answer::completed);
  sc_core::sc_start();
  b.check_golden();
}

TEST_CASE("AT: BEGIN_RESP without END_REQ ends the request phase at its annotated time") {
  auto p = overlapping_traffic();
  bench b(p, answer::begin_resp_only);
  b.target.latency = 4;
  sc_core::sc_start();
  b.check_golden();  // includes: no BEGIN_REQ before the annotated end of the previous request
  // One request at a time, each phase 4 cycles: the last response 4 cycles after the last issue.
  std::uint64_t n = 0;
  for (const auto& s : p.streams) n += s.count;
  CHECK(sc_core::sc_time_stamp() == ns(4.0 * double(n)));
}

TEST_CASE(
    "AT: a target completing requests out of order - overlapping requests wait and the rest are "
    "reordered") {
  bench b(overlapping_traffic(), answer::out_of_order, 42);
  sc_core::sc_start();
  b.check_golden();
  CHECK(b.target.inversions() > 100);        // the target really did reorder
  CHECK(b.target.end_reqs_on_bw > 0);        // both END_REQ paths taken
  CHECK(stat(b.gen, "overlap_stalls") > 0);  // and the generator held overlapping requests back
  CHECK(stat(b.gen, "overlap_stall_cycles") >= stat(b.gen, "overlap_stalls"));
}

TEST_CASE("AT: out-of-order completion of multi-lane requests matches the golden model") {
  bench b(overlapping_traffic(8), answer::out_of_order, 7);
  sc_core::sc_start();
  b.check_golden();
  CHECK(b.target.inversions() > 100);
}

TEST_CASE("LT and AT plan overlapping traffic to the same cycles") {
  auto p = overlapping_traffic(8);
  bench at(p, answer::completed, 1, "_at");
  p.at = false;
  bench lt(p, answer::completed, 1, "_lt");
  sc_core::sc_start();
  at.check_golden();
  lt.check_golden();
  CHECK(stat(lt.gen, "overlap_stalls") > 0);
  CHECK(flynn::stats_to_json(lt.gen.stats()).dump() == flynn::stats_to_json(at.gen.stats()).dump());
}

// The golden check is not vacuous: one read value the target damages changes the digest.
TEST_CASE("AT: a wrong read value from an out-of-order target is caught by the golden check") {
  bench b(overlapping_traffic(), answer::out_of_order, 42);
  b.target.corrupt_read = 60;  // a read of the second stream
  sc_core::sc_start();
  CHECK(b.gen.done());
  std::vector<unsigned char> golden = b.initial;
  CHECK(b.gen.read_checksum() != flynn::traffic_golden_replay(b.gp, golden));
  CHECK(b.target.mem == golden);  // the memory itself is right
}

// Without the generator's ordering rule the target above breaks in-order assumptions: a
// write and a read of one word, both outstanding, reach memory read first.
TEST_CASE("the out-of-order target really reorders a write and a read of the same word") {
  lrm_target t("target", answer::out_of_order, 64);
  t.window = 2;
  t.newest_first = true;
  flynn::payload_pool pool(8);
  std::uint64_t read_value = 0;
  flynn_test::initiator init("init", [&](flynn_test::initiator& self) {
    tlm::tlm_generic_payload* w = pool.allocate();
    tlm::tlm_generic_payload* r = pool.allocate();
    const std::uint64_t v = 0x1122334455667788ull;
    std::memcpy(pool.buffer(w), &v, 8);
    for (auto* gp : {w, r}) {
      gp->set_command(gp == w ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      gp->set_address(0);
      gp->set_data_ptr(pool.buffer(gp));
      gp->set_data_length(8);
      gp->set_streaming_width(8);
      gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    }
    self.on_bw = [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_core::sc_time&) {
      return ph == tlm::BEGIN_RESP ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED;
    };
    for (auto* gp : {w, r}) {
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      self.socket->nb_transport_fw(*gp, ph, d);
      wait(ns(3));  // past any END_REQ
    }
    wait(ns(50));
    std::memcpy(&read_value, pool.buffer(r), 8);
    w->release();
    r->release();
  });
  init.socket.bind(t.socket);
  sc_core::sc_start();
  REQUIRE(init.finished);
  REQUIRE(t.executed.size() == 2);
  CHECK(t.executed[0] == 1);  // the read went first ...
  CHECK(t.overlap_inversions == 1);
  std::uint64_t before = 0;
  for (int i = 7; i >= 0; --i) before = (before << 8) | static_cast<unsigned char>(i * 7 + 3);
  CHECK(read_value == before);  // ... and saw the old value
}

TEST_CASE("AT: a target that ignores the lanes extension is a fault naming it") {
  traffic_stream s;
  s.lanes = 4;
  s.size = 4;
  s.lane_stride = 16;
  s.count = 3;
  traffic_generator::params p;
  p.at = true;
  p.streams = {s};
  lrm_target t("plain_memory", answer::updated_begin_resp, 4096);
  t.honour_lanes = false;
  traffic_generator gen("gen", p);
  gen.out.bind(t.socket);
  CHECK_THAT(fault_message(),
             Contains("gen: target plain_memory ignored the lanes extension of request 0 (read of 16 B in 4 "
                      "lanes at 0x0, cycle 0): multi-lane requests need a lanes-aware target") &&
                 Contains("such as banked_memory"));
}

TEST_CASE("LT: a target that ignores the lanes extension is a fault naming it") {
  traffic_stream s;
  s.lanes = 2;
  s.size = 8;
  s.lane_stride = 64;
  s.write = true;
  s.count = 2;
  s.base = 128;
  traffic_generator::params p;
  p.streams = {s};
  lrm_target t("plain_memory", answer::completed, 4096);
  t.honour_lanes = false;
  traffic_generator gen("gen", p);
  gen.out.bind(t.socket);
  CHECK_THAT(fault_message(), Contains("target plain_memory ignored the lanes extension of request 0 (write of "
                                       "16 B in 2 lanes at 0x80, cycle 0)"));
}

TEST_CASE("AT: a target that begins a response while another awaits END_RESP is a protocol fault") {
  // A broken target: request 0 ends its request phase and waits; request 1 is answered at once
  // on the return path (BEGIN_RESP at t + 10); one cycle later, before END_RESP of request 1,
  // it sends BEGIN_RESP for request 0.
  struct eager_target : sc_core::sc_module, tlm::tlm_fw_transport_if<> {
    tlm::tlm_target_socket<32> socket;
    tlm::tlm_generic_payload* first = nullptr;
    sc_core::sc_event later;
    SC_HAS_PROCESS(eager_target);
    explicit eager_target(const sc_core::sc_module_name& n)
        : sc_core::sc_module(n), socket("socket") {
      socket.bind(*this);
      SC_METHOD(answer_first);
      sensitive << later;
      dont_initialize();
    }
    void b_transport(tlm::tlm_generic_payload&, sc_core::sc_time&) override {}
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                       sc_core::sc_time& d) override {
      if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      if (!first) {
        first = &gp;
        ph = tlm::END_REQ;
        return tlm::TLM_UPDATED;
      }
      ph = tlm::BEGIN_RESP;
      d += ns(10);
      later.notify(ns(1));
      return tlm::TLM_UPDATED;
    }
    void answer_first() {
      tlm::tlm_phase ph = tlm::BEGIN_RESP;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      socket->nb_transport_bw(*first, ph, d);
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
    unsigned transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
  };
  traffic_stream s;
  s.count = 4;
  traffic_generator::params p;
  p.at = true;
  p.streams = {s};
  eager_target t("eager");
  traffic_generator gen("gen", p);
  gen.out.bind(t.socket);
  CHECK_THAT(fault_message(),
             Contains("gen: target eager broke the TLM-2.0 base protocol: BEGIN_RESP for request 0 (read of 8 B at 0x0, "
                      "cycle 0) before END_RESP of request 1 (read of 8 B at 0x8, cycle 1): the response exclusion rule"));
}

namespace {
// Neither side broke a base-protocol rule, and the target has nothing left open.
void check_rules_kept(const flynn::protocol_checker& checker, const lrm_target& target) {
  std::string errors;
  for (const auto& e : target.errors) errors += e + "\n";
  INFO(checker.report() << errors);
  CHECK(checker.violations() == 0);
  CHECK(target.errors.empty());
  CHECK(target.idle());
}

// Word i of the output (from byte 2048) is word i of the input (from byte 0) plus one.
template <class Word>
void check_incremented(const std::vector<unsigned char>& before, const std::vector<unsigned char>& after, unsigned n,
                       const char* what) {
  for (unsigned i = 0; i < n; ++i) {
    Word in = 0, out = 0;
    std::memcpy(&in, &before[sizeof(Word) * i], sizeof(Word));
    std::memcpy(&out, &after[2048 + sizeof(Word) * i], sizeof(Word));
    INFO(what << " " << i);
    CHECK(out == in + 1);
  }
}
}  // namespace

// The SIMT core's load/store unit against the same target: every legal answer to its
// BEGIN_REQ (the response on the return path, TLM_COMPLETED, BEGIN_RESP on the backward path
// only, out-of-order completion) gives the right data, with no rule broken on either side.
namespace {
void simt_core_against(answer how) {
  flynn::simt_core::params p;
  flynn::simt_core core("sm", p);
  lrm_target global("global_memory", how, 4096), shared("shared_memory", answer::completed, 1024);
  flynn::protocol_checker checker("checker");
  checker.warnings = false;
  core.global.bind(checker.target);
  checker.initiator.bind(global.socket);
  core.shared.bind(shared.socket);
  flynn::simt_launch l;
  l.grid = 1;
  l.block = 64;
  core.load(flynn::simt::assemble(R"(
        mov   r2, %tid
        shl   r3, r2, 2
        ld.global.32 r4, [r3]
        add   r4, r4, 1
        add   r5, r3, 2048
        st.global.32 [r5], r4
        exit
)", "k.s"), l);
  const std::vector<unsigned char> initial = global.mem;
  sc_core::sc_start();
  check_rules_kept(checker, global);
  check_incremented<std::uint32_t>(initial, global.mem, 64, "thread");
}
}  // namespace

TEST_CASE("SIMT core: a response on the return path (TLM_UPDATED, BEGIN_RESP)") {
  simt_core_against(answer::updated_begin_resp);
}
TEST_CASE("SIMT core: TLM_COMPLETED on the return path") { simt_core_against(answer::completed); }
TEST_CASE("SIMT core: BEGIN_RESP without END_REQ on the backward path") { simt_core_against(answer::begin_resp_only); }
TEST_CASE("SIMT core: out-of-order completion") { simt_core_against(answer::out_of_order); }

// The vector unit's memory ports against the same target: a load, an add chained on it and a
// store of the sums, with one lane (plain requests) and four (multi-lane requests).
namespace {
struct vector_issue : sc_core::sc_module {
  sc_core::sc_port<flynn::vec::vector_dispatch_if> vu;
  std::string fault;
  bool drained = false;
  SC_HAS_PROCESS(vector_issue);
  explicit vector_issue(const sc_core::sc_module_name& n) : sc_module(n) { SC_THREAD(run); }
  void issue(flynn::vec::op code, std::uint8_t rd, std::uint8_t ra, std::uint8_t rb, flynn::vec::src2 kind,
             std::uint64_t value, std::int64_t imm = 0) {
    flynn::vec::instr in;
    in.code = code;
    in.rd = rd;
    in.ra = ra;
    in.rb = rb;
    in.kind = kind;
    in.imm = imm;
    flynn::vec::scalar_operands ops;
    ops.base = ops.value = value;
    const auto r = vu->dispatch(in, ops, 0);
    if (!r.fault.empty() && fault.empty()) fault = r.fault;
  }
  void run() {
    using flynn::vec::op;
    using flynn::vec::src2;
    issue(op::setvl, 0, 0, 0, src2::imm, 48);
    issue(op::setvs, 0, 0, 0, src2::imm, 1);
    issue(op::vld, 0, 0, 0, src2::none, 0);
    issue(op::vadd, 1, 0, 0, src2::imm, 0, 1);
    issue(op::vst, 0, 0, 1, src2::none, 2048);
    const auto r = vu->drain();
    if (!r.fault.empty() && fault.empty()) fault = r.fault;
    drained = true;
  }
};

void vector_unit_against(answer how, unsigned lanes) {
  flynn::vector_unit::params p;
  p.lanes = lanes;
  flynn::vector_unit vu("vpu", p);
  vector_issue host("host");
  host.vu.bind(vu.dispatch_export);
  lrm_target memory("memory", how, 4096);
  flynn::protocol_checker checker("checker");
  checker.warnings = false;
  vu.port(0).bind(checker.target);
  checker.initiator.bind(memory.socket);
  const std::vector<unsigned char> initial = memory.mem;
  sc_core::sc_start();
  INFO(host.fault);
  CHECK(host.drained);
  CHECK(host.fault.empty());
  check_rules_kept(checker, memory);
  check_incremented<std::uint64_t>(initial, memory.mem, 48, "element");
}
}  // namespace

TEST_CASE("vector unit: a response on the return path (TLM_UPDATED, BEGIN_RESP)") {
  vector_unit_against(answer::updated_begin_resp, 1);
}
TEST_CASE("vector unit: TLM_COMPLETED on the return path") { vector_unit_against(answer::completed, 4); }
TEST_CASE("vector unit: BEGIN_RESP without END_REQ on the backward path") {
  vector_unit_against(answer::begin_resp_only, 1);
}
TEST_CASE("vector unit: out-of-order completion with one lane") { vector_unit_against(answer::out_of_order, 1); }
TEST_CASE("vector unit: out-of-order completion with four lanes") { vector_unit_against(answer::out_of_order, 4); }

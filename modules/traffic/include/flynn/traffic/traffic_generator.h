// Traffic generator: a TLM-2.0 initiator for memory experiments. It plays a list of
// streams (linear with stride, indexed, seeded random; optionally multi-lane requests) at
// a given issue interval with an outstanding-request limit, over LT (b_transport with
// temporal decoupling) or AT (every base-protocol phase path, at the annotated times).
// Requests that overlap a request in flight, when either writes, wait for its response, so
// a target may complete them in any legal order. See docs/modules/traffic_generator.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>

#include "flynn/common/bits.h"
#include "flynn/common/golden.h"
#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/tlm/lanes_extension.h"
#include "flynn/tlm/memory_manager.h"
#include "flynn/tlm/no_dmi_initiator.h"
#include "flynn/tma/swizzle.h"
#include "flynn/traffic/issue_plan.h"

namespace flynn {

enum class stream_kind { linear, indexed, random };

inline constexpr std::pair<stream_kind, const char*> stream_kind_names[] = {
    {stream_kind::linear, "linear"},
    {stream_kind::indexed, "indexed"},
    {stream_kind::random, "random"}};

struct traffic_stream : param_struct {
  property<stream_kind> kind{this, {"kind", "",
      "linear (base + i * stride), indexed or random addresses"}, stream_kind::linear, stream_kind_names};
  property<bool> write{this, {"write", "", "stores instead of loads"}, false};
  property<std::uint64_t> base{this, {"base", "B", "base address"}, 0};
  property<std::int64_t> stride{this, {"stride", "B",
      "linear: address step between requests (may be negative)"}, 8};
  property<std::uint64_t> count{this, {"count", "requests",
      "number of requests (indexed: 0 = once over the indices)"}, 64};
  property<unsigned> size{this, {"size", "B",
      "bytes per request, or per lane of a multi-lane request"}, 8, 1, 4096};
  property<unsigned> lanes{this, {"lanes", "",
      "0: plain requests; 1..32: multi-lane requests with this many lanes"}, 0, 0, lanes_extension::max_lanes};
  property<std::int64_t> lane_stride{this, {"lane_stride", "B",
      "address step between lanes (0: all lanes on one word)"}, 0};
  property<std::uint64_t> range_bytes{this, {"range_bytes", "B",
      "linear: offsets wrap modulo this (0: no wrap); random: range"}, 0};
  property<std::vector<std::uint64_t>> indices{this, {"indices", "elements",
      "indexed: element indices, address = base + index * size"}};
  property<std::uint64_t> seed{this, {"seed", "", "random: address seed"}, 1};
  property<swizzle_mode> swizzle{this, {"swizzle", "",
      "shared-memory layout of the offsets from base"}, swizzle_mode::none, swizzle_modes};

  std::vector<param_issue> check(const std::string& prefix) const;
};

struct traffic_generator_params : clocked_params {
  property<bool> at{this, {"at", "",
      "use the 4-phase AT protocol (false: LT with temporal decoupling)"}, false};
  property<unsigned> issue_interval{this, {"issue_interval", "cycles",
      "cycles between consecutive request issues"}, 1, 1, 1 << 20};
  property<unsigned> max_outstanding{this, {"max_outstanding", "requests",
      "requests in flight at most"}, 16, 1, 1 << 20};
  property<unsigned> quantum{this, {"quantum", "cycles",
      "LT: temporal decoupling quantum"}, 1000, 1, 1u << 30};
  property<std::uint64_t> start_cycle{this, {"start_cycle", "cycles",
      "cycle of the first issue"}, 0, 0, 1000000000000ull};
  property<std::uint64_t> data_seed{this, {"data_seed", "",
      "seed of the written data pattern"}, 0x5eed};
  property<unsigned> histogram_bucket{this, {"histogram_bucket", "cycles",
      "latency histogram bucket width"}, 4, 1, 1 << 20};
  property<unsigned> histogram_buckets{this, {"histogram_buckets", "",
      "latency histogram buckets (plus one overflow)"}, 32, 1, 4096};
  property<std::vector<traffic_stream>> streams{this, {"streams", "",
      "request streams, played one after the other"}, {traffic_stream{}}};

  std::vector<param_issue> check() const;
  // What it allocates by these parameters (see param_footprint).
  param_footprint footprint() const;
};

// One request of the played sequence: addresses and, for writes, data. The same cursor
// feeds the timed run and the golden functional replay.
class traffic_cursor {
 public:
  explicit traffic_cursor(const traffic_generator_params& p);
  bool next();  // advances to the next request; false at the end
  const traffic_stream& stream() const { return p_.streams[s_]; }
  std::uint64_t index() const { return serial_; }  // request serial number over all streams
  // Plain request: address and length. Multi-lane: lane addresses in `lanes`.
  std::uint64_t address() const { return addr_; }
  std::size_t length() const { return std::size_t(stream().size) * (stream().lanes ? stream().lanes : 1); }
  const lanes_extension& lanes() const { return lanes_; }
  bool multi_lane() const { return stream().lanes > 0; }
  void fill_data(unsigned char* dst) const;  // write data of this request
  void footprint(issue_plan::footprint& f) const;  // the bytes this request touches

 private:
  std::uint64_t offset(std::int64_t delta) const;
  const traffic_generator_params& p_;
  std::size_t s_ = 0;
  std::uint64_t i_ = 0, serial_ = 0;
  bool started_ = false;
  std::uint64_t addr_ = 0;
  lanes_extension lanes_;
  fixed_divisor range_;  // range_bytes of stream range_stream_
  std::size_t range_stream_ = SIZE_MAX;
};

// Functional summary of a run: read-data checksum (order-independent).
std::uint64_t read_digest(std::uint64_t serial, const unsigned char* data, std::size_t len);

// Golden functional model of a generator's traffic: applies every request in issue order
// to a flat memory image and returns the digest of all data read. Right for any target that
// follows the base protocol, in whatever order it completes requests: the generator never
// has two overlapping requests in flight when either writes (see issue_plan).
std::uint64_t traffic_golden_replay(const traffic_generator_params& p,
                                    std::vector<unsigned char>& image);

class traffic_generator : public module, public no_dmi_initiator, public golden_traffic {
 public:
  using params = traffic_generator_params;
  tlm::tlm_initiator_socket<32> out;

  traffic_generator(const sc_core::sc_module_name& name, const params& p);
  ~traffic_generator() override;

  const params& parameters() const { return p_; }
  std::uint64_t read_checksum() const { return read_sum_; }
  // Golden model: traffic_golden_replay of its parameters against the memory behind `out`.
  const char* golden_socket() const override { return "out"; }
  bool golden_replay(std::vector<unsigned char>& image) const override {
    return traffic_golden_replay(p_, image) == read_sum_;
  }
  bool done() const { return done_; }
  // LT: one thread issuing at its planned cycles, in order, ahead of simulated time.
  bool keeps_local_time() const override { return !p_.at; }
  std::uint64_t requests_done() const { return completed_.value(); }
  std::string pending_work() const override;
  std::string socket_lanes(const std::string& s) const override {
    (void)s;
    return "sends: per-lane addresses for streams with lanes > 0";
  }
  void attach_trace(trace_sink& sink) override;
  void finish() override;  // writes the trace of requests in flight

 private:
  struct inflight {
    std::uint64_t serial = 0, issued = 0;
    lanes_extension ext;         // attached while a multi-lane request is in flight
    bool end_resp_owed = false;  // BEGIN_RESP came on the return path: END_RESP is ours to send
  };

  void run_lt();
  [[gnu::cold, gnu::noinline]] void debug_phase(const tlm::tlm_generic_payload& gp, const inflight& f,
                                                const tlm::tlm_phase& ph) const;
  [[gnu::cold, gnu::noinline]] void debug_lt(const tlm::tlm_generic_payload& gp, const inflight& f,
                                             std::uint64_t done) const;
  void run_at();
  void setup(tlm::tlm_generic_payload& gp, unsigned char* buf, lanes_extension& ext,
             const traffic_cursor& c);
  void complete(tlm::tlm_generic_payload& gp, const inflight& f, std::uint64_t done);
  std::string describe(const tlm::tlm_generic_payload& gp, const inflight& f) const;
  std::string target_name() const;

  // AT: the outcome of BEGIN_REQ, and every phase at its annotated time (payload event queue).
  void begin_request(tlm::tlm_generic_payload& gp, inflight& f);
  void at_time(tlm::tlm_generic_payload& gp, const tlm::tlm_phase& ph, const sc_core::sc_time& d);
  void on_phase(tlm::tlm_generic_payload& gp, const tlm::tlm_phase& ph);
  void handle_phase(tlm::tlm_generic_payload& gp, const tlm::tlm_phase& ph);
  void end_request(tlm::tlm_generic_payload& gp, const inflight& f, const char* how);
  void response(tlm::tlm_generic_payload& gp, inflight& f);
  void protocol_fault(const std::string& what) const;

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& d) override;

  params p_;
  payload_pool pool_;
  issue_plan plan_;
  tlm_utils::peq_with_cb_and_phase<traffic_generator> peq_;
  unsigned queued_phases_ = 0;  // phases waiting in peq_
  std::unordered_map<tlm::tlm_generic_payload*, inflight> inflight_;  // AT, per payload
  // Request exclusion: the request whose request phase has not ended (at most one).
  tlm::tlm_generic_payload* req_waiting_ = nullptr;
  // Response exclusion: the response the target began on the return path, until END_RESP.
  tlm::tlm_generic_payload* resp_open_ = nullptr;
  unsigned outstanding_ = 0;  // AT: requests awaiting their response
  sc_core::sc_event end_req_ev_, resp_ev_;
  std::uint64_t read_sum_ = 0;
  bool done_ = false;
  std::uint64_t first_issue_ = UINT64_MAX, last_done_ = 0;

  // Trace: +1 at each request's issue cycle, -1 at its completion; the level is written in
  // time order at the end (requests complete out of issue order).
  trace_signal in_flight_sig_;
  std::map<std::uint64_t, std::int64_t> in_flight_;

  // Statistics, in the order they are written.
  statistic completed_{stats_, "requests", "requests", "requests completed"};
  statistic reads_{stats_, "reads", "requests", "read requests completed"};
  statistic writes_{stats_, "writes", "requests", "write requests completed"};
  statistic bytes_{stats_, "bytes", "B", "bytes transferred"};
  statistic_histogram latency_{stats_, "latency", p_.histogram_bucket, p_.histogram_buckets, "cycles",
                               "request issue to response, per request"};
  stat_alias overlap_stalls_{stats_, "overlap_stalls", plan_.overlap_stalls(), "requests",
                             "requests held back until an overlapping request in flight (one of the two a "
                             "write) completed"};
  stat_alias overlap_stall_cycles_{stats_, "overlap_stall_cycles", plan_.overlap_stall_cycles(), "cycles",
                                   "cycles requests were held back by overlapping requests in flight"};
  stat_formula bandwidth_{stats_, "bandwidth",
                          [this] {
                            if (!completed_.value()) return 0.0;
                            return double(bytes_.value()) / double(last_done_ - first_issue_);
                          },
                          "B/cycle", "bytes per cycle from the first issue to the last response"};
  stat_formula requests_per_cycle_{stats_, "requests_per_cycle",
                                   [this] {
                                     if (!completed_.value()) return 0.0;
                                     return double(completed_.value()) / double(last_done_ - first_issue_);
                                   },
                                   "requests/cycle", "requests per cycle from the first issue to the last response"};
};

}  // namespace flynn

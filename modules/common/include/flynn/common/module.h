// The common face of every Flynn module: an ordinary sc_module with a stats group, a
// clock period and optional trace signals. Users can instantiate modules directly from C++
// with a typed parameter struct; the platform adds JSON on top.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/common/debug_flag.h"
#include "flynn/common/programmable_core.h"
#include "flynn/common/stats.h"
#include "flynn/common/trace.h"
#include "flynn/tlm/lanes_extension.h"
#include "flynn/tlm/payload.h"
#include "flynn/tlm/sim_now.h"

namespace flynn {

// A parameter value that breaks a constraint: which field, what was expected, what was found.
struct param_issue {
  std::string field, expected, found;
};

// Adds an issue to `r` unless `value` (of parameter `field`) is a power of two or 0 (a zero is
// left to the parameter's range).
inline void require_power_of_two(std::vector<param_issue>& r, const char* field, std::uint64_t value) {
  if (value & (value - 1)) r.push_back({field, "a power of two", std::to_string(value)});
}

// Throws std::invalid_argument listing the issues (for C++ users); the platform checks the
// same list first to produce precise scenario errors.
void throw_if_invalid(const std::string& type, const std::vector<param_issue>& issues);

// What a blocking access (module::transport) came back with.
struct transport_result {
  tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  std::uint64_t done = 0;      // the cycle the response is seen at (the initiator's clock, rounded up)
  bool lanes_ignored = false;  // sent with per-lane addresses, answered by a target that moved
                               // contiguous bytes instead (it did not acknowledge the lanes)
  bool ok() const { return status == tlm::TLM_OK_RESPONSE; }
  // The status as TLM names it ("TLM_ADDRESS_ERROR_RESPONSE"), for fault reports.
  std::string response_string() const;
};

class module : public sc_core::sc_module {
 public:
  module(const sc_core::sc_module_name& name, double clock_ns);

  stats_group& stats() { return stats_; }
  const stats_group& stats() const { return stats_; }
  const sc_core::sc_time& clock_period() const { return clock_; }

  // Simulated time and cycles of this module's clock, computed on sc_time values (whole
  // units of the kernel's time resolution) in integer arithmetic: exact at any run length.
  // A time beyond the kernel's range is sc_max_time().
  //
  // The cycle t falls in (the cycles completed by t).
  // (The last two times converted are kept: most calls ask about the current time, or a
  // time just asked about, again and again, and a 64-bit division is slow.)
  std::uint64_t to_cycles(const sc_core::sc_time& t) const { return converted(t).floor; }
  // The first clock edge at or after t (responses from a differently clocked target are
  // seen at the next edge of this module's clock).
  std::uint64_t to_cycles_ceil(const sc_core::sc_time& t) const { return converted(t).ceil; }
  // The simulated time of n cycles of this module's clock (a duration, or the time of cycle n).
  sc_core::sc_time to_time(std::uint64_t n) const { return to_time(n, clock_); }
  // The delay annotation that places a call at cycle n: zero when cycle n has come.
  sc_core::sc_time delay_until(std::uint64_t n) const {
    const sc_core::sc_time when = to_time(n), now = flynn::sim_now();
    return when > now ? when - now : sc_core::SC_ZERO_TIME;
  }
  // The simulated time at which the run will be stopped (sc_max_time(): none): a platform
  // that runs to a limit sets it on every module, so that no model acts ahead of simulated
  // time past the point where the run ends.
  void set_run_limit(const sc_core::sc_time& t) { run_limit_ = t; }
  const sc_core::sc_time& run_limit() const { return run_limit_; }
  // Whether no other process can act before cycle n (of this clock) is over: nothing else is
  // runnable now and the next pending activity comes after cycle n, which is before the run's
  // limit. A target may then serve a request of cycle n from a thread that keeps its own
  // local time (keeps_local_time) at once, ahead of simulated time: nothing can be ordered
  // differently than had the thread waited for cycle n.
  bool alone_until(std::uint64_t n) const {
    const sc_core::sc_time at = to_time(n);
    if (at >= run_limit_) return false;
    const sc_core::sc_time now = flynn::sim_now();
    return sc_core::sc_time_to_pending_activity() > (at > now ? at - now : sc_core::SC_ZERO_TIME);
  }
  // An initiator whose threads keep a local time of their own ahead of simulated time (a
  // quantum keeper): each request carries its local time in its delay annotation, the times
  // of its requests never decrease, and nothing it does reads simulated time as its own. A
  // time-ordered target may serve such a thread at once when it is alone (alone_until)
  // instead of making it wait for the request's cycle.
  virtual bool keeps_local_time() const { return false; }
  // Waits (from a thread) until cycle n when it is still ahead; never goes back.
  void wait_until(std::uint64_t n) {
    const sc_core::sc_time when = to_time(n), now = flynn::sim_now();
    if (when > now) wait(when - now);
  }
  // The same for a clock of period `period` (a linked module's, the platform's).
  static std::uint64_t to_cycles(const sc_core::sc_time& t, const sc_core::sc_time& period) {
    return t.value() / period.value();
  }
  static std::uint64_t to_cycles_ceil(const sc_core::sc_time& t, const sc_core::sc_time& period) {
    const std::uint64_t c = period.value();
    return t.value() / c + (t.value() % c != 0);
  }
  static sc_core::sc_time to_time(std::uint64_t n, const sc_core::sc_time& period) {
    return flynn::periods(n, period);
  }

  // Connects the module's trace signals to a sink (call before simulation starts).
  virtual void attach_trace(trace_sink& sink) { (void)sink; }
  // Called once after simulation ends, before stats are written.
  virtual void finish() {}
  // Sockets and links a platform may leave unbound (optional units).
  virtual bool optional_socket(const std::string& socket) const {
    (void)socket;
    return false;
  }
  // How a socket treats per-lane addresses (a lanes_extension), for listings: "" when it
  // moves contiguous bytes only.
  virtual std::string socket_lanes(const std::string& socket) const {
    (void)socket;
    return {};
  }
  // Work the module still had when simulation stopped ("" when none). A non-empty answer
  // after the kernel ran out of events means the platform deadlocked.
  virtual std::string pending_work() const { return {}; }
  // What a deadlock report says about this module: its pending work, then each blocking
  // transport it has sent and not seen return (socket, command, address, length and the
  // cycle it was issued). Empty when the module has nothing left to do.
  std::string stalled_report() const;
  // What the run's summary should tell its user about how this module's results were
  // obtained (one line each; none when nothing needs saying), e.g. that some grants followed
  // call order rather than simulated time. Asked after finish().
  virtual std::vector<std::string> run_notes() const { return {}; }
  // A core that runs programs (programmable_core.h): the module itself, or nullptr.
  virtual programmable_core* as_core() { return nullptr; }
  const programmable_core* as_core() const { return const_cast<module*>(this)->as_core(); }
  // A memory a workload fills and reads back outside simulated time, or nullptr.
  virtual backdoor_memory* as_backdoor() { return nullptr; }
  const backdoor_memory* as_backdoor() const { return const_cast<module*>(this)->as_backdoor(); }

  // Log messages: SystemC info reports of type "flynn/log" with the module's name, at a
  // verbosity (sc_core::SC_LOW .. SC_DEBUG). A module prints those at or below its own
  // level when one is set (set_log_level), else the global SystemC verbosity.
  void set_log_level(int verbosity) { log_level_ = verbosity; }
  bool log_enabled(int verbosity) const {
    return verbosity <= (log_level_ >= 0 ? log_level_ : sc_core::sc_report_handler::get_verbosity_level());
  }
  void log(int verbosity, const std::string& msg) const;

  // Debug output: named flags (debug_flag.h), one per family of events, each declared by
  // the family that reports it. With a flag set, the module reports each such event as an
  // info report of type "flynn/debug/NAME" (NAME: Exec, Mem, ...), its message "CYCLE:
  // INSTANCE: NAME: what happened", at verbosity SC_NONE: an embedding platform can route,
  // count or silence them with sc_report_handler. Events outside the cycle window [from, to)
  // of this module's clock are not reported. Off (no flag) the cost is one test of a member.
  void set_debug(std::vector<const debug_flag*> flags, std::uint64_t from = 0, std::uint64_t to = ~std::uint64_t(0)) {
    debug_on_ = std::move(flags);
    debug_from_ = from;
    debug_to_ = to;
  }
  bool debugging(const debug_flag& flag) const {
    for (const debug_flag* f : debug_on_)
      if (f == &flag) return true;
    return false;
  }
  // Reports `what` under `flag` at `cycle` (of this module's clock), inside the window.
  void debug(const debug_flag& flag, std::uint64_t cycle, const std::string& what) const;

 protected:
  // Reports a simulated fault (bad address, protocol violation seen by this module...).
  // Raised as an sc_report error of type "flynn/fault", which a platform turns into a
  // fault report and exit status 1.
  void fault(const std::string& what) const;

  // b_transport through `socket`, recorded while it is open so that a target that never
  // returns (a deadlocked handshake, a port that is never granted) shows up in the
  // deadlock report instead of a silent stop.
  template <class Socket>
  void tracked_b_transport(Socket& socket, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    tracked_b_transport(socket, gp, delay, flynn::sim_now());
  }
  // The same from a caller that has the current time `now` at hand.
  template <class Socket>
  void tracked_b_transport(Socket& socket, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay,
                           const sc_core::sc_time& now) {
    const std::size_t id = next_transport_id_++;
    open_transports_.push_back({id, socket.name(), gp.get_command(), gp.get_address(), gp.get_data_length(), now + delay});
    socket->b_transport(gp, delay);
    if (open_transports_.back().id == id) open_transports_.pop_back();  // (the usual case: the latest one)
    else close_transport(id);
  }

  // A blocking access through `socket` for cycle `at` (the delay annotation delay_until(at):
  // a cycle that has come is now): `command` on `length` bytes at `address`, moved from or
  // into `data`, tracked as tracked_b_transport is. `extensions` ride along for the call
  // and stay the caller's. TLM_IGNORE_COMMAND with no data carries a request made by an
  // extension alone.
  template <class Socket, class... Extensions>
  transport_result transport(Socket& socket, tlm::tlm_command command, std::uint64_t address, unsigned char* data,
                             unsigned length, std::uint64_t at, Extensions*... extensions) {
    std::unique_ptr<tlm::tlm_generic_payload> held = take_payload();
    tlm::tlm_generic_payload& gp = *held;
    prepare_payload(gp, command, address, data, length);
    ((void)gp.set_extension(extensions), ...);
    sc_core::sc_time delay = delay_until(at);
    tracked_b_transport(socket, gp, delay);
    transport_result r;
    r.status = gp.get_response_status();
    r.done = to_cycles_ceil(flynn::sim_now() + delay);
    if (debugging(debug_tlm)) debug_transport_done(socket.basename(), gp, at, r);
    ((void)gp.clear_extension(extensions), ...);
    give_back_payload(std::move(held));
    return r;
  }
  // The same with an address per lane (a lanes_extension, every lane active): the `length`
  // bytes are split evenly over the lanes, lane i's at lane_addresses[i], and the payload's
  // address is lane 0's. More lanes than a lanes_extension holds (or none) is a generic
  // error, answered at `at` without a call.
  template <class Socket, class... Extensions>
  transport_result transport_lanes(Socket& socket, tlm::tlm_command command,
                                   const std::vector<std::uint64_t>& lane_addresses, unsigned char* data,
                                   unsigned length, std::uint64_t at, Extensions*... extensions) {
    lanes_extension lanes;
    if (!fill_lanes(lanes, lane_addresses, length)) {
      transport_result r;
      r.status = tlm::TLM_GENERIC_ERROR_RESPONSE;
      r.done = at;
      return r;
    }
    transport_result r = transport(socket, command, lane_addresses.front(), data, length, at, &lanes, extensions...);
    r.lanes_ignored = r.ok() && !lanes.acknowledged;
    return r;
  }

  // A debug access through `socket` (transport_dbg: no time passes, no traffic is counted
  // as such): `command` on `length` bytes at `address`, moved from or into `data`. Returns
  // the bytes the target moved.
  template <class Socket>
  unsigned debug_transport(Socket& socket, tlm::tlm_command command, std::uint64_t address, unsigned char* data,
                           unsigned length) {
    tlm::tlm_generic_payload gp;
    prepare_payload(gp, command, address, data, length);
    return socket->transport_dbg(gp);
  }
  stats_group stats_;

 private:
  struct open_transport_entry {
    std::size_t id;
    const char* socket;
    tlm::tlm_command command;
    std::uint64_t address;
    unsigned length;
    sc_core::sc_time at;  // (in cycles only when a report needs it: a division per call saved)
  };
  void debug_transport_done(const char* socket, const tlm::tlm_generic_payload& gp, std::uint64_t at,
                            const transport_result& r) const;
  static bool fill_lanes(lanes_extension& lanes, const std::vector<std::uint64_t>& addresses, unsigned length);
  void close_transport(std::size_t id);
  std::vector<open_transport_entry> open_transports_;
  // transport()'s payloads, kept for the next call: constructing one allocates its extension
  // array. One comes back only as a fresh one would be, with no extension set; one a target
  // left an extension on is destroyed, as a payload of the call's own would have been.
  std::unique_ptr<tlm::tlm_generic_payload> take_payload();
  void give_back_payload(std::unique_ptr<tlm::tlm_generic_payload> gp);
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> spare_payloads_;
  std::size_t next_transport_id_ = 0;

  sc_core::sc_time clock_;
  sc_core::sc_time run_limit_ = sc_core::sc_max_time();
  struct conversion {
    sc_core::sc_time::value_type time = ~sc_core::sc_time::value_type(0);  // (none yet: no sc_time is this)
    std::uint64_t floor = 0, ceil = 0;
  };
  mutable std::array<conversion, 2> conversions_;  // the last two times converted, the latest first
  const conversion& converted(const sc_core::sc_time& t) const {
    if (t.value() == conversions_[0].time) return conversions_[0];
    std::swap(conversions_[0], conversions_[1]);
    conversion& c = conversions_[0];
    if (t.value() != c.time) {
      c.time = t.value();
      c.floor = to_cycles(t, clock_);
      c.ceil = c.floor + (c.floor * clock_.value() != t.value());
    }
    return c;
  }
  int log_level_ = -1;  // -1: the global verbosity
  std::vector<const debug_flag*> debug_on_;
  std::uint64_t debug_from_ = 0, debug_to_ = ~std::uint64_t(0);
};

}  // namespace flynn

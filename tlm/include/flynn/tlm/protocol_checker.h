// TLM-2.0 base-protocol checker: a pass-through module placed on one initiator-to-target
// link. It forwards every call of the forward and backward interfaces unchanged and checks
// the rules of the IEEE 1666-2011 base protocol that can be observed on the link:
// generic payload attribute handling (b_transport, nb_transport), the 4-phase sequence per
// transaction, the request and response exclusion rules, the memory manager requirement of
// nb_transport, DMI grants and invalidations, and debug transport. Every violation is
// counted and recorded with the rule, the transaction (command, address, length), the phase
// and the simulated time. See docs/protocol_checker.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/tlm/protocol_terms.h"
#include "flynn/tlm/sim_now.h"

namespace flynn {

class protocol_checker : public sc_core::sc_module, private protocol_terms {
 public:
  static constexpr const char* msg_type = "flynn/protocol";

  struct violation {
    std::string rule;     // short identifier, e.g. "nb.request_exclusion"
    std::string text;     // the full message (time, rule, transaction, phase, details)
    sc_core::sc_time time;
  };

  tlm::tlm_target_socket<32> target;        // bind the initiator's socket to this
  tlm::tlm_initiator_socket<32> initiator;  // bind this to the target's socket

  // strict: each violation is an SC_REPORT_ERROR (msg_type); otherwise an
  // SC_REPORT_WARNING when `warnings` is set, and always recorded.
  bool strict = false;
  bool warnings = true;
  // Debug reads are repeated once by the checker to detect read side effects.
  bool check_debug_side_effects = true;

  explicit protocol_checker(const sc_core::sc_module_name& name, bool strict_mode = false)
      : sc_core::sc_module(name), target("target"), initiator("initiator"), fw_(*this), bw_(*this) {
    strict = strict_mode;
    target.bind(fw_);
    initiator.bind(bw_);
  }

  std::size_t violations() const { return violations_.size(); }
  const std::vector<violation>& violation_list() const { return violations_; }
  // Violations of one rule.
  std::size_t count(const std::string& rule) const {
    return static_cast<std::size_t>(std::count_if(
        violations_.begin(), violations_.end(),
        [&](const violation& v) { return v.rule == rule; }));
  }
  // One line per violation, then a summary line.
  std::string report() const {
    std::ostringstream o;
    for (const auto& v : violations_) o << v.text << '\n';
    o << name() << ": " << violations_.size() << " protocol violation"
      << (violations_.size() == 1 ? "" : "s") << ", " << b_calls_ << " b_transport, "
      << nb_calls_ << " nb_transport, " << dmi_calls_ << " DMI, " << dbg_calls_
      << " debug calls checked\n";
    return o.str();
  }

  // Transactions that started on nb_transport and have not completed.
  std::size_t open_transactions() const { return open_.size(); }

  // DMI bookkeeping. An initiator (or a test) may call note_dmi_access when it reads or
  // writes through a DMI pointer obtained over this link: the access must lie inside a
  // granted range that has not been invalidated since, with the access type granted.
  bool dmi_valid(std::uint64_t address, tlm::tlm_command cmd) const {
    for (const auto& g : grants_)
      if (address >= g.start && address <= g.end && allows(g.access, cmd)) return true;
    return false;
  }
  void note_dmi_access(std::uint64_t address, unsigned length, tlm::tlm_command cmd) {
    const std::uint64_t last = address + (length ? length - 1 : 0);
    bool ok = false;
    for (const auto& g : grants_)
      if (address >= g.start && last <= g.end && allows(g.access, cmd)) ok = true;
    if (ok) return;
    bool invalidated = false;
    for (const auto& r : invalidated_)
      if (address <= r.second && last >= r.first) invalidated = true;
    std::ostringstream m;
    m << cmd_name(cmd) << " of " << length << " B at " << hex(address)
      << " through a DMI pointer "
      << (invalidated ? "whose range was invalidated by invalidate_direct_mem_ptr"
                      : "without a valid grant covering it");
    flag("dmi.use_after_invalidate", m.str());
  }
  std::size_t dmi_invalidations() const { return invalidated_.size(); }

 private:
  // ------------------------------------------------------------------ bookkeeping types
  enum class nb_state { request, request_ended, response };
  struct open_txn {
    nb_state state = nb_state::request;
    attributes attr;
  };
  struct grant {
    std::uint64_t start, end;
    tlm::tlm_dmi::dmi_access_e access;
  };

  void flag(const std::string& rule, const std::string& what) {
    std::ostringstream o;
    o << "@" << flynn::sim_now() << " " << name() << " [" << rule << "] " << what;
    violations_.push_back({rule, o.str(), flynn::sim_now()});
    if (strict)
      SC_REPORT_ERROR(msg_type, o.str().c_str());
    else if (warnings)
      SC_REPORT_WARNING(msg_type, o.str().c_str());
  }
  // The context of a transport call's return ("... returned TLM_UPDATED BEGIN_RESP"), after
  // checking that TLM_ACCEPTED left the phase as it was sent.
  std::string returned(const tlm::tlm_generic_payload& gp, const std::string& ctx, tlm::tlm_sync_enum r,
                       const tlm::tlm_phase& sent, const tlm::tlm_phase& phase) {
    const std::string rctx =
        ctx + " returned " + sync_name(r) + (r == tlm::TLM_UPDATED ? " " + phase_str(phase) : std::string());
    if (r == tlm::TLM_ACCEPTED && phase != sent)
      flag_txn("nb.accepted_phase_changed", gp, rctx, "TLM_ACCEPTED with the phase changed from " + phase_str(sent));
    return rctx;
  }
  void cannot_follow(const tlm::tlm_generic_payload& gp, const std::string& rctx, const tlm::tlm_phase& sent) {
    flag_txn("nb.phase_sequence", gp, rctx, "TLM_UPDATED with a phase that cannot follow " + phase_str(sent));
  }

  void flag_txn(const std::string& rule, const tlm::tlm_generic_payload& gp,
                const std::string& context, const std::string& what) {
    flag(rule, describe(gp) + ", " + context + ": " + what);
  }

  // Reports attributes the callee changed (returns false if any).
  bool compare(const tlm::tlm_generic_payload& gp, const attributes& a, const std::string& rule,
               const std::string& context) {
    const std::vector<std::string> changed = changes(gp, a);
    if (changed.empty()) return true;
    std::string list;
    for (const auto& c : changed) list += (list.empty() ? "" : ", ") + c;
    std::ostringstream o;
    o << cmd_name(a.cmd) << " of " << a.length << " B at " << hex(a.address) << ", " << context
      << ": the target modified " << list;
    flag(rule, o.str());
    return false;
  }

  // ------------------------------------------------------------------ b_transport
  // The attributes an initiator sets before it sends a request (IEEE 1666-2011 14.8-14.17),
  // checked at b_transport and at BEGIN_REQ.
  void check_request(const tlm::tlm_generic_payload& gp, const std::string& ctx) {
    const bool moves = gp.get_command() != tlm::TLM_IGNORE_COMMAND;
    if (gp.get_byte_enable_ptr() && gp.get_byte_enable_length() == 0)
      flag_txn("gp.byte_enable_length", gp, ctx,
               "byte enable pointer set with a byte enable length of 0");
    if (!gp.get_data_ptr() && (moves || gp.get_data_length() > 0))
      flag_txn("gp.data_pointer", gp, ctx,
               moves ? "a read or write with a null data pointer (14.11)"
                     : "a null data pointer with a data length of " + std::to_string(gp.get_data_length()) +
                           " (14.11: a checker or target may read the bytes the length names)");
    if (moves && gp.get_data_length() == 0)
      flag_txn("gp.data_length", gp, ctx, "a read or write of 0 bytes (14.12: use TLM_IGNORE_COMMAND)");
    if (gp.get_streaming_width() == 0)
      flag_txn("gp.streaming_width", gp, ctx, "streaming width 0 (14.15: it shall be greater than 0)");
    if (gp.is_dmi_allowed())
      flag_txn("gp.dmi_allowed", gp, ctx,
               "the DMI hint is already set on the request (14.16: the initiator shall clear it; a "
               "recycled payload keeps the hint its last target set)");
    if (gp.get_gp_option() != tlm::TLM_MIN_PAYLOAD)
      flag_txn("gp.option", gp, ctx, "generic payload option is not TLM_MIN_PAYLOAD (14.8: other values are "
                                     "for DMI and debug transport only)");
  }

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++b_calls_;
    const std::string ctx = "b_transport";
    if (gp.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
      flag_txn("b.status_on_entry", gp, ctx,
               "response status is " + gp.get_response_string() +
                   " on entry; the initiator shall set TLM_INCOMPLETE_RESPONSE");
    check_request(gp, ctx);
    if (open_.count(&gp))
      flag_txn("b.in_flight", gp, ctx,
               "the transaction object is still in flight on nb_transport");
    attributes a;
    capture(gp, a);
    const sc_core::sc_time in = delay, entered = flynn::sim_now();
    initiator->b_transport(gp, delay);
    const sc_core::sc_time waited = flynn::sim_now() - entered;
    compare(gp, a, "b.attribute_modified", ctx);
    if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      flag_txn("b.response_incomplete", gp, ctx,
               "returned with the response status still TLM_INCOMPLETE_RESPONSE");
    // (A target that waits consumes the annotation: the local time it ends at, the time it
    // returns at plus its annotation, is what may not move earlier.)
    if (waited + delay < in) {
      std::ostringstream o;
      o << "the target decreased the timing annotation from " << in << " to " << delay;
      if (waited > sc_core::SC_ZERO_TIME) o << " after waiting " << waited;
      flag_txn("b.delay_decreased", gp, ctx, o.str());
    }
  }

  // ------------------------------------------------------------------ nb_transport
  void check_mm(const tlm::tlm_generic_payload& gp, const std::string& ctx) {
    if (!gp.has_mm())
      flag_txn("nb.memory_manager", gp, ctx,
               "transaction object without a memory manager used with nb_transport");
    else if (gp.get_ref_count() <= 0)
      flag_txn("nb.memory_manager", gp, ctx,
               "transaction object with a reference count of 0 (not acquired) used with "
               "nb_transport");
  }
  void end_txn(tlm::tlm_generic_payload* gp) {
    if (req_open_ == gp) req_open_ = nullptr;
    if (resp_open_ == gp) resp_open_ = nullptr;
    open_.erase(gp);
  }
  // The target starts the response of `gp` (BEGIN_RESP on either path).
  void begin_resp(tlm::tlm_generic_payload& gp, open_txn& t, const std::string& ctx) {
    if (t.state == nb_state::response)
      flag_txn("nb.phase_sequence", gp, ctx,
               "BEGIN_RESP for a transaction already in its response phase");
    if (resp_open_ && resp_open_ != &gp)
      flag_txn("nb.response_exclusion", gp, ctx,
               "BEGIN_RESP before END_RESP of the previous response (" + describe(*resp_open_) +
                   ")");
    if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      flag_txn("nb.response_status", gp, ctx,
               "BEGIN_RESP with the response status still TLM_INCOMPLETE_RESPONSE");
    compare(gp, t.attr, "nb.attribute_modified", ctx);
    if (req_open_ == &gp) req_open_ = nullptr;  // BEGIN_RESP implies END_REQ
    resp_open_ = &gp;
    t.state = nb_state::response;
  }
  void end_req(tlm::tlm_generic_payload& gp, open_txn& t, const std::string& ctx) {
    if (t.state != nb_state::request)
      flag_txn("nb.phase_sequence", gp, ctx,
               t.state == nb_state::request_ended ? "END_REQ sent twice"
                                                  : "END_REQ after BEGIN_RESP");
    else
      t.state = nb_state::request_ended;
    if (req_open_ == &gp) req_open_ = nullptr;
  }
  void completed(tlm::tlm_generic_payload& gp, open_txn& t, const std::string& ctx,
                 bool by_target) {
    if (by_target && gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      flag_txn("nb.response_status", gp, ctx,
               "TLM_COMPLETED with the response status still TLM_INCOMPLETE_RESPONSE");
    if (by_target) compare(gp, t.attr, "nb.attribute_modified", ctx);
    end_txn(&gp);
  }

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    ++nb_calls_;
    const tlm::tlm_phase sent = phase;
    const std::string ctx = "nb_transport_fw " + phase_str(sent);
    check_mm(gp, ctx);
    auto it = open_.find(&gp);
    if (sent == tlm::BEGIN_REQ) {
      if (it != open_.end()) {
        flag_txn("nb.phase_sequence", gp, ctx, "BEGIN_REQ for a transaction already in flight");
      } else {
        if (req_open_)
          flag_txn("nb.request_exclusion", gp, ctx,
                   "BEGIN_REQ before END_REQ (or BEGIN_RESP) of the previous request (" +
                       describe(*req_open_) + ")");
        if (gp.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
          flag_txn("nb.status_on_entry", gp, ctx,
                   "response status is " + gp.get_response_string() +
                       "; the initiator shall set TLM_INCOMPLETE_RESPONSE");
        check_request(gp, ctx);
        open_txn t;
        capture(gp, t.attr);
        it = open_.emplace(&gp, std::move(t)).first;
        req_open_ = &gp;
      }
    } else if (sent == tlm::END_RESP) {
      if (it == open_.end())
        flag_txn("nb.phase_sequence", gp, ctx, "END_RESP for a transaction not in flight");
      else if (it->second.state != nb_state::response)
        flag_txn("nb.phase_sequence", gp, ctx, "END_RESP before BEGIN_RESP");
      else
        end_txn(&gp);
      it = open_.end();
    } else if (sent == tlm::END_REQ || sent == tlm::BEGIN_RESP) {
      flag_txn("nb.phase_direction", gp, ctx,
               phase_str(sent) + " is a target phase and shall not be sent on the forward path");
    } else {
      flag_txn("nb.phase_unknown", gp, ctx, "phase is not one of the base protocol");
    }

    const tlm::tlm_sync_enum r = initiator->nb_transport_fw(gp, phase, delay);

    const std::string rctx = returned(gp, ctx, r, sent, phase);
    if (r == tlm::TLM_ACCEPTED) return r;
    if (sent == tlm::END_RESP) {
      if (r == tlm::TLM_UPDATED)
        flag_txn("nb.phase_sequence", gp, rctx, "no phase may follow END_RESP");
      return r;
    }
    it = open_.find(&gp);
    if (it == open_.end()) return r;  // already diagnosed
    if (r == tlm::TLM_COMPLETED) {
      completed(gp, it->second, rctx, true);
    } else if (phase == tlm::END_REQ) {
      end_req(gp, it->second, rctx);
    } else if (phase == tlm::BEGIN_RESP) {
      begin_resp(gp, it->second, rctx);
    } else {
      cannot_follow(gp, rctx, sent);
    }
    return r;
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    ++nb_calls_;
    const tlm::tlm_phase sent = phase;
    const std::string ctx = "nb_transport_bw " + phase_str(sent);
    check_mm(gp, ctx);
    auto it = open_.find(&gp);
    bool tracked = it != open_.end();
    if (!tracked) {
      flag_txn("nb.phase_sequence", gp, ctx, "backward call for a transaction not in flight");
    } else if (sent == tlm::END_REQ) {
      end_req(gp, it->second, ctx);
    } else if (sent == tlm::BEGIN_RESP) {
      begin_resp(gp, it->second, ctx);
    } else if (sent == tlm::BEGIN_REQ || sent == tlm::END_RESP) {
      flag_txn("nb.phase_direction", gp, ctx,
               phase_str(sent) +
                   " is an initiator phase and shall not be sent on the backward path");
    } else {
      flag_txn("nb.phase_unknown", gp, ctx, "phase is not one of the base protocol");
    }

    const tlm::tlm_sync_enum r = target->nb_transport_bw(gp, phase, delay);

    const std::string rctx = returned(gp, ctx, r, sent, phase);
    if (r == tlm::TLM_ACCEPTED) return r;
    it = open_.find(&gp);
    if (it == open_.end()) return r;
    if (r == tlm::TLM_COMPLETED) {
      completed(gp, it->second, rctx, false);
    } else if (sent == tlm::BEGIN_RESP && phase == tlm::END_RESP) {
      end_txn(&gp);
    } else {
      cannot_follow(gp, rctx, sent);
    }
    return r;
  }

  // ------------------------------------------------------------------ DMI
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
    ++dmi_calls_;
    const std::uint64_t addr = gp.get_address();
    const tlm::tlm_command cmd = gp.get_command();
    const bool ok = initiator->get_direct_mem_ptr(gp, dmi);
    const std::string ctx = "get_direct_mem_ptr";
    if (gp.get_address() != addr || gp.get_command() != cmd)
      flag_txn("dmi.attribute_modified", gp, ctx,
               "the target modified the address or command of the DMI request (was " +
                   std::string(cmd_name(cmd)) + " at " + hex(addr) + ")");
    const std::uint64_t s = dmi.get_start_address(), e = dmi.get_end_address();
    const std::string range = "[" + hex(s) + ", " + hex(e) + "]";
    if (s > e) {
      flag_txn("dmi.range_malformed", gp, ctx,
               "DMI range " + range + " has its start address after its end address");
      return ok;
    }
    if (!ok) return ok;
    if (addr < s || addr > e)
      flag_txn("dmi.range_excludes_address", gp, ctx,
               "granted DMI range " + range + " does not contain the requested address " +
                   hex(addr));
    if (dmi.get_dmi_ptr() == nullptr)
      flag_txn("dmi.null_pointer", gp, ctx, "DMI granted with a null pointer");
    const auto acc = dmi.get_granted_access();
    if (acc == tlm::tlm_dmi::DMI_ACCESS_NONE)
      flag_txn("dmi.access", gp, ctx, "DMI granted (returned true) with DMI_ACCESS_NONE");
    else if (!allows(acc, cmd))
      flag_txn("dmi.access", gp, ctx,
               std::string("DMI granted without ") + cmd_name(cmd) +
                   " access for a " + cmd_name(cmd) + " request");
    grants_.push_back({s, e, acc});
    return ok;
  }

  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
    if (start > end) {
      flag("dmi.invalidate_malformed", "invalidate_direct_mem_ptr range [" + hex(start) + ", " +
                                           hex(end) + "] has its start after its end");
    } else {
      invalidated_.emplace_back(start, end);
      // Drop every grant overlapping the range (a grant is invalid as a whole).
      auto overlaps = [&](const grant& g) { return g.start <= end && g.end >= start; };
      grants_.erase(std::remove_if(grants_.begin(), grants_.end(), overlaps), grants_.end());
    }
    target->invalidate_direct_mem_ptr(start, end);
  }

  // ------------------------------------------------------------------ debug transport
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) {
    ++dbg_calls_;
    const std::string ctx = "transport_dbg";
    const tlm::tlm_command cmd = gp.get_command();
    const std::uint64_t addr = gp.get_address();
    unsigned char* data = gp.get_data_ptr();
    const unsigned len = gp.get_data_length();
    const sc_core::sc_time t0 = flynn::sim_now();
    const unsigned n = initiator->transport_dbg(gp);
    if (gp.get_command() != cmd || gp.get_address() != addr || gp.get_data_ptr() != data ||
        gp.get_data_length() != len)
      flag_txn("dbg.attribute_modified", gp, ctx,
               "the target modified the command, address, data pointer or length (was " +
                   std::string(cmd_name(cmd)) + " of " + std::to_string(len) + " B at " +
                   hex(addr) + ")");
    if (n > len)
      flag_txn("dbg.count", gp, ctx,
               "returned " + std::to_string(n) + " bytes, more than the data length " +
                   std::to_string(len));
    if (flynn::sim_now() != t0)
      flag_txn("dbg.time", gp, ctx, "simulation time advanced during debug transport");
    if (check_debug_side_effects && cmd == tlm::TLM_READ_COMMAND && data && n > 0 &&
        n <= len) {
      // A second debug read of the same bytes must return the same data.
      std::vector<unsigned char> again(n, 0);
      tlm::tlm_generic_payload probe;
      probe.set_command(tlm::TLM_READ_COMMAND);
      probe.set_address(addr);
      probe.set_data_ptr(again.data());
      probe.set_data_length(n);
      probe.set_streaming_width(n);
      const unsigned m = initiator->transport_dbg(probe);
      if (m != n || std::memcmp(again.data(), data, n) != 0) {
        unsigned first = 0;
        while (first < std::min(m, n) && again[first] == data[first]) ++first;
        flag_txn("dbg.side_effect", gp, ctx,
                 "a repeated debug read of the same bytes returned different data (first "
                 "difference at byte " + std::to_string(first) + ", count " +
                     std::to_string(n) + " then " + std::to_string(m) +
                     "): the debug read had side effects");
      }
    }
    return n;
  }

  // ------------------------------------------------------------------ interfaces
  struct fw_if final : tlm::tlm_fw_transport_if<> {
    protocol_checker& c;
    explicit fw_if(protocol_checker& owner) : c(owner) {}
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
      c.b_transport(gp, d);
    }
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                       sc_core::sc_time& d) override {
      return c.nb_transport_fw(gp, ph, d);
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) override {
      return c.get_direct_mem_ptr(gp, dmi);
    }
    unsigned int transport_dbg(tlm::tlm_generic_payload& gp) override {
      return c.transport_dbg(gp);
    }
  };
  struct bw_if final : tlm::tlm_bw_transport_if<> {
    protocol_checker& c;
    explicit bw_if(protocol_checker& owner) : c(owner) {}
    tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                       sc_core::sc_time& d) override {
      return c.nb_transport_bw(gp, ph, d);
    }
    void invalidate_direct_mem_ptr(sc_dt::uint64 s, sc_dt::uint64 e) override {
      c.invalidate_direct_mem_ptr(s, e);
    }
  };

  fw_if fw_;
  bw_if bw_;
  std::vector<violation> violations_;
  std::unordered_map<tlm::tlm_generic_payload*, open_txn> open_;
  tlm::tlm_generic_payload* req_open_ = nullptr;   // in its request phase
  tlm::tlm_generic_payload* resp_open_ = nullptr;  // in its response phase
  std::vector<grant> grants_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> invalidated_;
  std::uint64_t b_calls_ = 0, nb_calls_ = 0, dmi_calls_ = 0, dbg_calls_ = 0;
};

}  // namespace flynn

#include "flynn/common/module.h"

#include <sstream>
#include <stdexcept>

namespace flynn {

void throw_if_invalid(const std::string& type, const std::vector<param_issue>& issues) {
  if (issues.empty()) return;
  std::string msg = type + ": invalid parameters:";
  for (const auto& i : issues)
    msg += " " + i.field + " (expected " + i.expected + ", found " + i.found + ");";
  throw std::invalid_argument(msg);
}

std::string transport_result::response_string() const {
  tlm::tlm_generic_payload gp;
  gp.set_response_status(status);
  return gp.get_response_string();
}

module::module(const sc_core::sc_module_name& name, double clock_ns)
    : sc_core::sc_module(name), stats_(std::string(this->name())),
      clock_(sc_core::sc_time(clock_ns, sc_core::SC_NS)) {}

void module::log(int verbosity, const std::string& msg) const {
  if (!log_enabled(verbosity)) return;
  // Already filtered by this module's level: shown whatever the global verbosity.
  sc_core::sc_report_handler::report(sc_core::SC_INFO, "flynn/log", (std::string(name()) + ": " + msg).c_str(),
                                     sc_core::SC_NONE, __FILE__, __LINE__);
}

void module::debug(const debug_flag& flag, std::uint64_t cycle, const std::string& what) const {
  if (!debugging(flag) || cycle < debug_from_ || cycle >= debug_to_) return;
  const std::string type = std::string("flynn/debug/") + flag.name;
  const std::string msg = std::to_string(cycle) + ": " + name() + ": " + flag.name + ": " + what;
  sc_core::sc_report_handler::report(sc_core::SC_INFO, type.c_str(), msg.c_str(), sc_core::SC_NONE, __FILE__,
                                     __LINE__);
}

void module::debug_transport_done(const char* socket, const tlm::tlm_generic_payload& gp, std::uint64_t at,
                                  const transport_result& r) const {
  std::ostringstream o;
  o << socket << " " << (gp.is_read() ? "read" : gp.is_write() ? "write" : "ignore") << " 0x" << std::hex
    << gp.get_address() << std::dec << " " << gp.get_data_length() << " B";
  if (const auto* lx = gp.get_extension<lanes_extension>())
    o << " lanes " << lx->lanes << " x " << lx->lane_bytes << " B mask 0x" << std::hex << lx->active_mask << std::dec;
  o << ": " << (r.ok() ? "ok" : r.response_string()) << ", issued " << at << ", done " << r.done << " (latency "
    << (r.done >= at ? r.done - at : 0) << ")";
  debug(debug_tlm, at, o.str());
}

bool module::fill_lanes(lanes_extension& lanes, const std::vector<std::uint64_t>& addresses, unsigned length) {
  if (addresses.empty() || addresses.size() > lanes_extension::max_lanes) return false;
  lanes.lanes = static_cast<unsigned>(addresses.size());
  lanes.lane_bytes = length / lanes.lanes;
  lanes.active_mask = first_lanes(lanes.lanes);
  for (unsigned l = 0; l < lanes.lanes; ++l) lanes.address[l] = addresses[l];
  return true;
}

std::unique_ptr<tlm::tlm_generic_payload> module::take_payload() {
  if (spare_payloads_.empty()) return std::make_unique<tlm::tlm_generic_payload>();
  std::unique_ptr<tlm::tlm_generic_payload> gp = std::move(spare_payloads_.back());
  spare_payloads_.pop_back();
  return gp;
}

void module::give_back_payload(std::unique_ptr<tlm::tlm_generic_payload> gp) {
  if (gp->has_mm()) return;
  gp->resize_extensions();  // (every extension index valid to look at)
  for (unsigned i = 0, n = tlm::max_num_extensions(); i < n; ++i)
    if (gp->get_extension(i)) return;
  spare_payloads_.push_back(std::move(gp));
}

void module::close_transport(std::size_t id) {
  for (auto it = open_transports_.begin(); it != open_transports_.end(); ++it)
    if (it->id == id) {
      open_transports_.erase(it);
      return;
    }
}

std::string module::stalled_report() const {
  std::string s = pending_work();
  for (const auto& t : open_transports_) {
    std::ostringstream o;
    o << "b_transport through " << t.socket << " never returned: ";
    if (t.command == tlm::TLM_IGNORE_COMMAND)
      o << "an extension-only request (IGNORE command)";
    else
      o << (t.command == tlm::TLM_READ_COMMAND ? "READ" : "WRITE") << " 0x" << std::hex << t.address << std::dec
        << " (" << t.length << " bytes)";
    o << " issued at cycle " << to_cycles(t.at);
    s += (s.empty() ? "" : "; ") + o.str();
  }
  return s;
}

void module::fault(const std::string& what) const {
  SC_REPORT_ERROR("flynn/fault", (std::string(name()) + ": " + what).c_str());
}

}  // namespace flynn

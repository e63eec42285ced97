#include "flynn/common/module.h"

#include <stdexcept>

namespace flynn {

void throw_if_invalid(const std::string& type, const std::vector<param_issue>& issues) {
  if (issues.empty()) return;
  std::string msg = type + ": invalid parameters:";
  for (const auto& i : issues)
    msg += " " + i.field + " (expected " + i.expected + ", found " + i.found + ");";
  throw std::invalid_argument(msg);
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

void module::fault(const std::string& what) const {
  SC_REPORT_ERROR("flynn/fault", (std::string(name()) + ": " + what).c_str());
}

}  // namespace flynn

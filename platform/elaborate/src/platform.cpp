#include "flynn/platform/platform.h"

#include "flynn/tlm/protocol_checker.h"

#include <cmath>
#include <iterator>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include <tlm>

#include "flynn/platform/checks.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/json_params.h"
#include "flynn/platform/workload.h"

using nlohmann::json;

namespace flynn {

std::string run_result::sim_time_ns_text() const {
  std::string t = std::to_string(sim_time_ps / 1000);
  if (const std::uint64_t f = sim_time_ps % 1000) {
    std::string frac = std::to_string(1000 + f).substr(1);
    while (frac.back() == '0') frac.pop_back();
    t += "." + frac;
  }
  return t;
}

const char* to_string(run_result::status s) {
  switch (s) {
    case run_result::status::ok: return "ok";
    case run_result::status::fault: return "fault";
    case run_result::status::deadlock: return "deadlock";
    case run_result::status::cycle_limit: return "cycle_limit";
    case run_result::status::mismatch: return "mismatch";
    case run_result::status::hazard: return "hazard";
  }
  return "?";
}

struct platform::top_module : sc_core::sc_module {
  top_module(const sc_core::sc_module_name& n, const std::function<void()>& build)
      : sc_core::sc_module(n) {
    build();  // modules created here become children of "top"
  }
};

namespace {

using base_initiator = tlm::tlm_base_initiator_socket_b<32, tlm::tlm_fw_transport_if<>,
                                                        tlm::tlm_bw_transport_if<>>;
using base_target = tlm::tlm_base_target_socket_b<32, tlm::tlm_fw_transport_if<>,
                                                  tlm::tlm_bw_transport_if<>>;

// Sockets and link ports/exports of a module: everything a binding may name.
std::vector<std::string> socket_names(const sc_core::sc_object& m, const std::vector<link_type>& links) {
  std::vector<std::string> n;
  for (auto* c : m.get_child_objects()) {
    bool is = dynamic_cast<const tlm::tlm_base_socket_if*>(c) != nullptr;
    for (const auto& l : links) is = is || l.is_port(c) || l.is_export(c);
    if (is) n.push_back(c->basename());
  }
  return n;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::string bytes_text(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(bytes);
  std::size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) {
    v /= 1024;
    ++u;
  }
  std::ostringstream o;
  if (u == 0 || v >= 100 || v == std::floor(v)) o << std::fixed << std::setprecision(0) << v;
  else o << std::fixed << std::setprecision(1) << v;
  return o.str() + " " + units[u];
}

memory_budget memory_budget::from(const std::string& option) {
  memory_budget b;
  std::string text = option, what = "--memory-budget";
  if (text.empty()) {
    const char* env = std::getenv("FLYNN_MEMORY_BUDGET");
    if (!env || !*env) return b;
    text = env;
    what = "$FLYNN_MEMORY_BUDGET";
  }
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  std::string unit = text.substr(digits);
  if (unit.size() == 3 && unit[1] == 'i' && (unit[2] == 'B' || unit[2] == 'b')) unit = unit.substr(0, 1);
  static const std::string units = "KMGT";
  const std::size_t shift = unit.empty() ? 0 : unit.size() == 1 && units.find(char(std::toupper(unit[0]))) != std::string::npos
                                                   ? 10 * (units.find(char(std::toupper(unit[0]))) + 1)
                                                   : 99;
  if (digits == 0 || digits > 12 || shift == 99)
    throw input_error("command line: " + what + ": expected a size in bytes with an optional K, M, G or T (8G, 512M), found " +
                      excerpt(text));
  const std::uint64_t n = std::stoull(text.substr(0, digits));
  if (n == 0 || (shift && n > (std::uint64_t(1) << (63 - shift))))
    throw input_error("command line: " + what + ": expected a size from 1 byte to 8 EiB, found " + excerpt(text));
  b.bytes = n << shift;
  b.source = what;
  return b;
}

platform::platform(const scenario_doc& sd, const module_registry& registry, bool check_protocol,
                   const memory_budget& budget)
    : sd_(sd), spec_(parse_scenario(sd)), links_types_(registry.links()), check_protocol_(check_protocol) {
  resolved_ = json::object();
  resolved_["name"] = spec_.name;
  resolved_["description"] = spec_.description;
  resolved_["clock_ns"] = spec_.clock_ns;
  resolved_["max_cycles"] = spec_.max_cycles;
  resolved_["modules"] = json::object();

  // Validate every module's parameters before constructing anything.
  std::vector<const module_type*> types;
  std::vector<param_footprint> footprints;
  for (const auto& m : spec_.modules) {
    const module_type* t = registry.find(m.type);
    if (!t) {
      const std::string hint = did_you_mean(m.type, registry.names());
      throw input_error(sd.origin_of(m.path + ".type"), m.path + ".type",
                        "a module type (" + joined(registry.names()) + ")" +
                            (hint.empty() ? "" : "; " + hint),
                        excerpt(m.type, 80));
    }
    types.push_back(t);
    json src = *m.params;
    if (!src.contains("clock_ns")) src["clock_ns"] = spec_.clock_ns;  // platform clock
    json out = json::object();
    json_binder b(src, out, m.path, sd, {"type"});
    const auto report = t->check(b);
    b.reject_unknown();
    if (!report.issues.empty()) {
      const auto& i = report.issues.front();
      const std::string p = join_path(m.path, i.field);
      throw input_error(sd.origin_of(p), p, i.expected, i.found);
    }
    footprints.push_back(report.footprint);
    json entry = json::object();
    entry["type"] = m.type;
    entry.update(out);
    resolved_["modules"][m.name] = entry;
  }

  check_memory_budget(footprints, budget);

  top_ = std::make_unique<top_module>("top", [&] {
    for (std::size_t i = 0; i < spec_.modules.size(); ++i) {
      const auto& m = spec_.modules[i];
      json out = json::object();
      json_binder b(resolved_["modules"][m.name], out, m.path, sd, {"type"});
      modules_.push_back(types[i]->create(m.name.c_str(), b));
    }
  });
  for (auto* m : modules_) m->stats().set_owner(m->name());
  bind_all();
  resolved_["bindings"] = json::array();
  for (const auto& b : spec_.bindings) resolved_["bindings"].push_back({b.initiator, b.target});
  if (spec_.workload) {
    workload_ = load_workload(*this, sd, *spec_.workload);
    resolved_["workload"] = *spec_.workload;
  } else if (!spec_.abstract) {
    // A programmable module without a program would run as "ok, 0 cycles".
    std::string idle;
    for (auto* m : modules_)
      if (m->as_core()) idle += (idle.empty() ? "" : ", ") + std::string(m->basename());
    if (!idle.empty())
      throw input_error(sd.file, "workload",
                        "a workload for the programmable module" + std::string(idle.find(',') == std::string::npos ? " " : "s ") +
                            idle + " (or \"abstract\": true for a base platform that other scenarios extend)",
                        "none");
  }
  if (spec_.abstract) resolved_["abstract"] = true;
}

platform::~platform() = default;

void platform::require_every_core_loaded() const {
  if (!spec_.workload) return;
  std::string idle;
  for (auto* m : modules_)
    if (m->as_core() && !m->as_core()->has_program()) idle += (idle.empty() ? "" : ", ") + std::string(m->basename());
  if (!idle.empty())
    throw input_error(sd_.origin_of("workload"), "workload.core",
                      "the one programmable module of the platform (a workload runs on one core; " + idle +
                          " would have no program)",
                      excerpt(spec_.workload->value("core", std::string()), 80));
}

// Model memory against the budget, before anything is allocated: the modules' own state and
// their memory contents four times over (see memory_budget).
void platform::check_memory_budget(const std::vector<param_footprint>& footprints, const memory_budget& budget) const {
  std::vector<std::pair<long double, std::size_t>> weight;  // (bytes, module), in long double: no overflow
  long double total = 0;
  for (std::size_t i = 0; i < footprints.size(); ++i) {
    const long double w = (long double)footprints[i].state_bytes + 4.0L * (long double)footprints[i].contents_bytes;
    weight.emplace_back(w, i);
    total += w;
  }
  if (total <= (long double)budget.bytes) return;
  std::stable_sort(weight.begin(), weight.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string largest;
  for (std::size_t k = 0; k < weight.size() && k < 3 && weight[k].first > 0; ++k) {
    const auto& f = footprints[weight[k].second];
    largest += std::string(k ? "; " : "") + "modules." + spec_.modules[weight[k].second].name + " " +
               bytes_text(std::uint64_t(std::min(weight[k].first, 1.8e19L)));
    if (f.contents_bytes)
      largest += " (" + bytes_text(f.contents_bytes) + " of memory contents, four times with the golden checks' copies)";
  }
  const std::string& heaviest = spec_.modules[weight.front().second].path;
  throw input_error(sd_.origin_of(heaviest), heaviest,
                    "model memory within the memory budget of " + bytes_text(budget.bytes) + " (" + budget.source + ")",
                    bytes_text(std::uint64_t(std::min(total, 1.8e19L))) + " in all: " + largest);
}

module* platform::find(const std::string& instance) const {
  for (auto* m : modules_)
    if (instance == m->basename()) return m;
  return nullptr;
}

module* platform::target_of(const std::string& initiator_socket) const {
  for (const auto& [i, t] : links_)
    if (i == initiator_socket) return find(t);
  return nullptr;
}

void platform::bind_all() {
  std::set<std::string> bound;
  auto locate = [&](const binding_spec& b, std::size_t side) -> sc_core::sc_object* {
    const std::string& ref = side == 0 ? b.initiator : b.target;
    const std::string path = index_path(b.path, side);
    const std::string file = sd_.origin_of(path);  // (a --set may have replaced this side alone)
    const auto dot = ref.find('.');
    std::vector<std::string> instances;
    for (auto* m : modules_) instances.push_back(m->basename());
    module* m = dot == std::string::npos ? nullptr : find(ref.substr(0, dot));
    if (!m)
      throw input_error(file, path, "\"instance.socket\" naming an instance of this scenario (" +
                                        joined(instances) + ")",
                        excerpt(ref, 80));
    const std::string sock = ref.substr(dot + 1);
    const auto names = socket_names(*m, links_types_);
    for (auto* c : m->get_child_objects())
      if (c->basename() == sock && std::find(names.begin(), names.end(), sock) != names.end()) return c;
    const std::string hint = did_you_mean(sock, names);
    throw input_error(file, path, "a socket of " + ref.substr(0, dot) + " (" + joined(names) + ")" +
                                      (hint.empty() ? "" : "; " + hint),
                      excerpt(sock, 80));
  };
  for (const auto& b : spec_.bindings) {
    sc_core::sc_object* io = locate(b, 0);
    sc_core::sc_object* to = locate(b, 1);
    const link_type* link = nullptr;
    for (const auto& l : links_types_)
      if (l.is_port(io) || l.is_export(io) || l.is_port(to) || l.is_export(to)) link = &l;
    if (link) {  // a non-TLM link: port -> export of one interface
      if (!link->is_port(io))
        throw input_error(sd_.origin_of(index_path(b.path, 0)), index_path(b.path, 0), "a " + link->interface_name + " port",
                          excerpt(b.initiator, 80) + ", a " + std::string(io->kind()));
      if (!link->is_export(to))
        throw input_error(sd_.origin_of(index_path(b.path, 1)), index_path(b.path, 1), "a " + link->interface_name + " export",
                          excerpt(b.target, 80) + ", a " + std::string(to->kind()));
      for (const auto& [ref, side] : {std::pair{b.initiator, 0}, std::pair{b.target, 1}})
        if (!bound.insert(ref).second)
          throw input_error(sd_.origin_of(index_path(b.path, static_cast<std::size_t>(side))), index_path(b.path, static_cast<std::size_t>(side)),
                            "a socket bound only once", excerpt(ref, 80) + " bound again");
      link->bind(io, to);
      links_.emplace_back(b.initiator, b.target.substr(0, b.target.find('.')));
      continue;
    }
    auto* i = dynamic_cast<base_initiator*>(io);
    auto* t = dynamic_cast<base_target*>(to);
    if (!i)
      throw input_error(sd_.origin_of(index_path(b.path, 0)), index_path(b.path, 0), "an initiator socket (TLM-2.0 base protocol)",
                        excerpt(b.initiator, 80) + ", a " + std::string(io->kind()));
    if (!t)
      throw input_error(sd_.origin_of(index_path(b.path, 1)), index_path(b.path, 1), "a target socket (TLM-2.0 base protocol)",
                        excerpt(b.target, 80) + ", a " + std::string(to->kind()));
    for (const auto& [ref, side] : {std::pair{b.initiator, 0}, std::pair{b.target, 1}})
      if (!bound.insert(ref).second)
        throw input_error(sd_.origin_of(index_path(b.path, static_cast<std::size_t>(side))), index_path(b.path, static_cast<std::size_t>(side)),
                          "a socket bound only once", excerpt(ref, 80) + " bound again");
    if (check_protocol_) {  // initiator -> checker -> target
      std::string n = "protocol_" + b.initiator + "_" + b.target;
      std::replace(n.begin(), n.end(), '.', '_');
      checkers_.push_back(std::make_unique<protocol_checker>(n.c_str()));
      protocol_checker& c = *checkers_.back();
      c.warnings = false;
      i->get_base_port().bind(c.target.get_base_interface());
      c.target.get_base_port().bind(i->get_base_interface());
      c.initiator.get_base_port().bind(t->get_base_interface());
      t->get_base_port().bind(c.initiator.get_base_interface());
    } else {
      i->get_base_port().bind(t->get_base_interface());
      t->get_base_port().bind(i->get_base_interface());
    }
    links_.emplace_back(b.initiator, b.target.substr(0, b.target.find('.')));
  }
  for (auto* m : modules_)
    for (const auto& s : socket_names(*m, links_types_)) {
      const std::string ref = std::string(m->basename()) + "." + s;
      if (!bound.count(ref) && !m->optional_socket(s))
        throw input_error(sd_.origin_of("bindings"), "bindings",
                          "a binding for every socket", "socket '" + ref + "' left unbound");
    }
  for (const auto& c : spec_.calibration) {
    std::vector<std::string> names;
    bool found = false;
    for (auto* m : modules_)
      for (const auto& e : m->stats().entries())
        if (e.k == stat_entry::kind::counter || e.k == stat_entry::kind::real) {
          names.push_back(std::string(m->name()) + "." + e.name);
          found = found || names.back() == c.stat;
        }
    if (!found) {
      const std::string hint = did_you_mean(c.stat, names);
      throw input_error(sd_.origin_of(c.path), c.path + ".stat",
                        "a statistic of the platform (module.stat, e.g. top.sm.ipc)" + (hint.empty() ? "" : "; " + hint),
                        excerpt(c.stat, 80));
    }
  }
}

void platform::attach_trace(trace_sink& sink) {
  for (auto* m : modules_) m->attach_trace(sink);
}

run_result platform::run(std::uint64_t max_cycles) {
  run_result r = simulate(max_cycles);
  if (!r.failed()) verify(r);
  if (r.state == run_result::status::ok || r.state == run_result::status::mismatch) {
    // Hazards the program's synchronisation leaves open fail the run whether or not the
    // data happened to differ; the functional check's verdict goes with them.
    std::string hazards;
    for (auto* m : modules_) {
      const std::string h = m->as_core() ? m->as_core()->hazard_report() : std::string();
      if (!h.empty()) hazards += std::string(hazards.empty() ? "" : "\n") + m->name() + ": " + h;
    }
    if (!hazards.empty()) {
      const std::string check = r.state == run_result::status::ok ? "the functional checks passed"
                                                                  : "the functional check failed too: " + r.message;
      r.state = run_result::status::hazard;
      r.message = hazards + "\n  (" + check + ")";
    }
  }
  return r;
}

run_result platform::simulate(std::uint64_t max_cycles) {
  run_result r;
  const sc_core::sc_time clock(spec_.clock_ns, sc_core::SC_NS);
  sc_core::sc_report_handler::set_actions("flynn/fault", sc_core::SC_ERROR, sc_core::SC_THROW);
  const sc_core::sc_time run_limit = max_cycles ? module::to_time(max_cycles, clock) : sc_core::sc_max_time();
  for (auto* m : modules_) m->set_run_limit(run_limit);
  try {
    if (progress_) {  // in slices of simulated time, reporting between them
      const sc_core::sc_time slice = module::to_time(10000, clock);
      const sc_core::sc_time limit = max_cycles ? module::to_time(max_cycles, clock) : sc_core::sc_max_time();
      while (sc_core::sc_time_stamp() < limit) {
        const sc_core::sc_time left = limit - sc_core::sc_time_stamp();
        sc_core::sc_start(left < slice ? left : slice, sc_core::SC_EXIT_ON_STARVATION);
        if (!sc_core::sc_pending_activity()) break;
        progress_(module::to_cycles(sc_core::sc_time_stamp(), clock), false);
      }
      progress_(0, true);
    } else if (max_cycles) {
      const sc_core::sc_time limit = module::to_time(max_cycles, clock);
      sc_core::sc_start(limit, sc_core::SC_EXIT_ON_STARVATION);
      // Stopped with events still due beyond the last one processed: advance to the limit.
      if (sc_core::sc_pending_activity() && sc_core::sc_time_stamp() < limit)
        sc_core::sc_start(limit - sc_core::sc_time_stamp());
    } else
      sc_core::sc_start();
  } catch (const sc_core::sc_report& e) {
    r.state = run_result::status::fault;
    r.message = e.get_msg();
  }
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  r.cycles = module::to_cycles_ceil(now, clock);
  r.sim_time_ps = now.value() / sc_core::sc_time(1, sc_core::SC_PS).value();
  for (auto* m : modules_) m->finish();
  for (auto* m : modules_)
    for (const auto& n : m->run_notes()) r.notes.push_back(std::string(m->name()) + ": " + n);
  if (r.failed()) {
    r.message += " (at cycle " + std::to_string(r.cycles) + ")";
    return r;
  }
  std::string pending;
  for (auto* m : modules_) {
    const std::string p = m->stalled_report();
    if (!p.empty()) pending += std::string(pending.empty() ? "" : "; ") + m->name() + ": " + p;
  }
  if (!pending.empty()) {
    const bool limit = max_cycles && sc_core::sc_pending_activity();
    r.state = limit ? run_result::status::cycle_limit : run_result::status::deadlock;
    r.message = limit ? "cycle limit of " + std::to_string(max_cycles) + " reached with work left: " + pending
                      : "no further events at cycle " + std::to_string(r.cycles) +
                            " but work is left (deadlock): " + pending;
    return r;
  }
  return r;
}

void platform::verify(run_result& r) const {
  if (!checkers_.empty()) {
    std::size_t v = 0;
    std::string first;
    for (const auto& c : checkers_) {
      v += c->violations();
      if (first.empty() && c->violations()) first = c->report();
    }
    if (v) {
      r.state = run_result::status::mismatch;
      r.message = "TLM-2.0 base protocol: " + std::to_string(v) + " violations; " + first.substr(0, 2000);
      return;
    }
    r.checks.push_back("TLM-2.0 base protocol: " + std::to_string(checkers_.size()) + " links checked, no violation");
  }
  run_functional_checks(modules_, *this, r);
  if (!r.failed() && workload_) workload_->check(r);
  if (!r.failed()) check_calibration(r);
}

// Published figures: the model's statistic against each, within its tolerance.
void platform::check_calibration(run_result& r) const {
  for (const auto& c : spec_.calibration) {
    const auto dot = c.stat.rfind('.');
    const std::string owner = dot == std::string::npos ? "" : c.stat.substr(0, dot), stat = c.stat.substr(dot + 1);
    const stat_entry* found = nullptr;
    for (auto* m : modules_)
      if (std::string(m->name()) == owner)
        for (const auto& e : m->stats().entries())
          if (e.name == stat && (e.k == stat_entry::kind::counter || e.k == stat_entry::kind::real)) found = &e;
    if (!found) {
      r.state = run_result::status::mismatch;
      r.message = c.path + ": no statistic '" + c.stat + "' (a counter or value of a module, e.g. top.sm.ipc)";
      return;
    }
    const double model = found->k == stat_entry::kind::counter ? double(found->counter->value()) : found->real();
    const double dev = c.published != 0 ? (model - c.published) / c.published : model;
    std::ostringstream line;
    line << "calibration: " << c.stat << " = " << model << ", published " << c.published << " ("
         << std::showpos << std::fixed << std::setprecision(1) << 100.0 * dev << std::noshowpos << "%, tolerance "
         << 100.0 * c.tolerance << "%), " << (c.kind == "predicted" ? "a prediction" : c.kind == "fitted" ? "fitted" : "a consistency check")
         << (c.source.empty() ? "" : "; " + c.source);
    if (std::fabs(dev) > c.tolerance) {
      r.state = run_result::status::mismatch;
      r.message = line.str() + ": outside the tolerance";
      return;
    }
    r.checks.push_back(line.str());
  }
}

bool platform::runs_program() const {
  for (auto* m : modules_)
    if (m->as_core() && m->as_core()->has_program()) return true;
  return false;
}

std::uint64_t platform::instructions() const {
  std::uint64_t n = 0;
  for (auto* m : modules_)
    if (m->as_core()) n += m->as_core()->counts().instructions;
  return n;
}

std::vector<std::string> platform::core_instances() const {
  std::vector<std::string> names;
  for (auto* m : modules_)
    if (m->as_core()) names.push_back(m->basename());
  return names;
}

}  // namespace flynn

// flynn run: a scenario elaborated and simulated with the logging, debug lines, traces and
// progress its command line asks for, and its results folder written (resolved
// configuration, provenance, statistics, host figures, traces).
#include <sys/resource.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_parts.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/output.h"
#include "flynn/platform/perfetto_writer.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/stats_writer.h"
#include "flynn/platform/trace_filter.h"
#include "flynn/platform/vcd_writer.h"

using nlohmann::json;

namespace flynn::cli_detail {

namespace {

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

// Both waveforms and a timeline: one sink that hands everything to two.
class tee_sink final : public trace_sink {
 public:
  tee_sink(trace_sink& a, trace_sink& b) : a_(a), b_(b) {}
  int declare(const std::string& scope, const std::string& name, unsigned width) override {
    handles_.emplace_back(a_.declare(scope, name, width), b_.declare(scope, name, width));
    return static_cast<int>(handles_.size()) - 1;
  }
  void set_format(int h, trace_format f) override {
    a_.set_format(handles_[static_cast<std::size_t>(h)].first, f);
    b_.set_format(handles_[static_cast<std::size_t>(h)].second, f);
  }
  void change(int h, const sc_core::sc_time& when, std::uint64_t v) override {
    a_.change(handles_[static_cast<std::size_t>(h)].first, when, v);
    b_.change(handles_[static_cast<std::size_t>(h)].second, when, v);
  }
  void add_view(const trace_view& v) override {
    a_.add_view(v);
    b_.add_view(v);
  }
  bool wants_timeline() const override { return a_.wants_timeline() || b_.wants_timeline(); }
  void slice(const std::string& scope, const std::string& track, const std::string& name, const sc_core::sc_time& s,
             const sc_core::sc_time& e) override {
    if (a_.wants_timeline()) a_.slice(scope, track, name, s, e);
    if (b_.wants_timeline()) b_.slice(scope, track, name, s, e);
  }
  void span(const std::string& scope, const std::string& cat, const std::string& name, std::uint64_t id,
            const sc_core::sc_time& s, const sc_core::sc_time& e) override {
    if (a_.wants_timeline()) a_.span(scope, cat, name, id, s, e);
    if (b_.wants_timeline()) b_.span(scope, cat, name, id, s, e);
  }

 private:
  trace_sink& a_;
  trace_sink& b_;
  std::vector<std::pair<int, int>> handles_;
};

int verbosity_of(const std::string& level, const std::string& what) {
  static const std::pair<const char*, int> levels[] = {{"none", sc_core::SC_NONE}, {"low", sc_core::SC_LOW},
                                                       {"medium", sc_core::SC_MEDIUM}, {"high", sc_core::SC_HIGH},
                                                       {"full", sc_core::SC_FULL}, {"debug", sc_core::SC_DEBUG}};
  for (const auto& [n, v] : levels)
    if (level == n) return v;
  throw input_error("command line: --log-level " + what + ": expected none, low, medium, high, full or debug, found '" +
                    level + "'");
}

// --log-level LEVEL (every module) or INSTANCE=LEVEL (one module, "sm" or "top.sm").
void apply_log_levels(platform& p, const std::vector<std::string>& specs) {
  sc_core::sc_report_handler::set_verbosity_level(sc_core::SC_LOW);  // the default
  for (const auto& s : specs) {
    const auto eq = s.find('=');
    if (eq == std::string::npos) {
      sc_core::sc_report_handler::set_verbosity_level(verbosity_of(s, s));
      continue;
    }
    const std::string inst = s.substr(0, eq);
    const int v = verbosity_of(s.substr(eq + 1), s);
    module* m = nullptr;
    std::vector<std::string> names;
    for (auto* x : p.modules()) {
      names.emplace_back(x->name());
      if (inst == x->name() || inst == x->basename()) m = x;
    }
    if (!m) {
      const std::string hint = did_you_mean(inst, names);
      throw input_error("command line: --log-level " + s + ": expected a module instance (" +
                        (hint.empty() ? "e.g. top.sm" : hint) + "), found '" + inst + "'");
    }
    m->set_log_level(v);
  }
}

// --debug FLAGS: the debug flags named ("Exec,Mem"; "All": every one the registry's families declare).
std::vector<const debug_flag*> debug_flags_of(const std::string& spec, const module_registry& reg) {
  std::vector<const debug_flag*> flags;
  std::stringstream ss(spec);
  std::string f;
  std::vector<std::string> names;
  for (const debug_flag* d : reg.debug_flags()) names.emplace_back(d->name);
  auto add = [&](const debug_flag* d) {
    if (std::find(flags.begin(), flags.end(), d) == flags.end()) flags.push_back(d);
  };
  while (std::getline(ss, f, ',')) {
    if (f == "All" || f == "all") {
      for (const debug_flag* d : reg.debug_flags()) add(d);
      continue;
    }
    const debug_flag* found = nullptr;
    for (const debug_flag* d : reg.debug_flags())
      if (strcasecmp(f.c_str(), d->name) == 0) found = d;
    if (!found) {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      const std::string hint = did_you_mean(f, names);
      throw input_error("command line: --debug: expected debug flags (" + all + ", All)" +
                        (hint.empty() ? "" : "; " + hint) + ", found '" + f + "'");
    }
    add(found);
  }
  return flags;
}

// Debug lines are info reports of type flynn/debug/FLAG: printed here as bare lines on
// stdout; every other report goes to SystemC's own handler.
void debug_line_handler(const sc_core::sc_report& rep, const sc_core::sc_actions& actions) {
  if (rep.get_severity() == sc_core::SC_INFO && std::strncmp(rep.get_msg_type(), "flynn/debug/", 12) == 0) {
    if (actions & sc_core::SC_DISPLAY) std::cout << rep.get_msg() << "\n";
    return;
  }
  sc_core::sc_report_handler::default_handler(rep, actions);
}

// --trace-window / --debug-window START:END in cycles (END 0: the end of the run).
std::pair<std::uint64_t, std::uint64_t> window_of(const std::string& option, const std::string& w) {
  if (w.empty()) return {0, 0};
  const auto colon = w.find(':');
  if (colon == std::string::npos)
    throw input_error("command line: " + option + ": expected START:END in cycles (e.g. 1000:5000), found '" + w + "'");
  const std::string a = w.substr(0, colon), b = w.substr(colon + 1);
  const std::uint64_t from = a.empty() ? 0 : count_option(option + " START", a);
  const std::uint64_t to = b.empty() ? 0 : count_option(option + " END", b);
  if (!b.empty() && to <= from) throw input_error("command line: " + option + ": expected END after START, found " + w);
  return {from, to};
}

std::string module_names(const platform& p) {
  std::string all;
  for (auto* m : p.modules()) all += (all.empty() ? "" : ", ") + std::string(m->name());
  return all;
}

// The run's limit in cycles: --max-cycles, else the scenario's max_cycles.
std::uint64_t cycle_limit(const options& o, const platform& p) {
  const std::uint64_t max_cycles = o.max_cycles_given ? o.max_cycles : p.spec().max_cycles;
  if (double(max_cycles) * p.spec().clock_ns > 1e15)  // simulated time must fit sc_time (ps)
    throw input_error("command line: --max-cycles: expected at most " +
                      std::to_string(static_cast<std::uint64_t>(1e15 / p.spec().clock_ns)) +
                      " cycles at this clock, found " + std::to_string(max_cycles));
  return max_cycles;
}

// --debug FLAGS on the modules --debug-modules names, within --debug-window: each module's
// window in its own clock's cycles.
void set_up_debug(platform& p, const options& o, const module_registry& reg) {
  const std::vector<const debug_flag*> flags = debug_flags_of(o.debug, reg);
  const auto [from, to] = window_of("--debug-window", o.debug_window);
  const sc_core::sc_time period(p.spec().clock_ns, sc_core::SC_NS);
  bool any = false;
  for (auto* m : p.modules()) {
    if (!matches_module_pattern(o.debug_modules, m->name())) continue;
    any = true;
    m->set_debug(flags, m->to_cycles_ceil(module::to_time(from, period)),
                 to ? m->to_cycles_ceil(module::to_time(to, period)) : ~std::uint64_t(0));
  }
  if (!any) throw input_error("command line: --debug-modules: expected a pattern matching a module (" +
                              module_names(p) + "), found '" + o.debug_modules + "'");
  sc_core::sc_report_handler::set_handler(debug_line_handler);
}

// The traces --trace asks for (waveforms, a timeline or both), through --trace-window and
// --trace-modules when given, attached to the platform; written into the results folder
// after the run.
class run_traces {
 public:
  run_traces(const options& o, platform& p)
      : want_vcd_(o.trace.find("vcd") != std::string::npos),
        want_timeline_(o.trace.find("perfetto") != std::string::npos) {
    trace_sink* sink = want_vcd_ && want_timeline_ ? static_cast<trace_sink*>(&both_)
                       : want_vcd_                 ? static_cast<trace_sink*>(&vcd_)
                       : want_timeline_            ? static_cast<trace_sink*>(&timeline_)
                                                   : nullptr;
    if (sink && (!o.trace_window.empty() || !o.trace_modules.empty())) {
      const sc_core::sc_time period(p.spec().clock_ns, sc_core::SC_NS);
      const auto [from, to] = window_of("--trace-window", o.trace_window);
      filter_ = std::make_unique<trace_filter>(*sink, module::to_time(from, period),
                                               to ? module::to_time(to, period) : sc_core::sc_max_time(), o.trace_modules);
      bool any = false;
      for (auto* m : p.modules()) any = any || filter_->matches(m->name());
      if (!any)
        throw input_error("command line: --trace-modules: expected a pattern matching a module (" + module_names(p) +
                          "), found '" + o.trace_modules + "'");
      sink = filter_.get();
    }
    if (sink) p.attach_trace(*sink);
  }

  // After the run: the filter's last values.
  void finish() {
    if (filter_) filter_->finish();
  }

  // trace.json, waves.vcd and its GTKWave files into `dir`, as asked for.
  void write(const std::string& dir) {
    if (want_timeline_) {  // streamed: the timeline is never whole in memory
      std::ofstream t(dir + "/trace.json", std::ios::binary);
      timeline_.write(t);
      t.close();
      if (!t) throw std::runtime_error("cannot write " + dir + "/trace.json");
    }
    if (want_vcd_) {
      std::ofstream v(dir + "/waves.vcd", std::ios::binary);  // streamed, as the timeline
      vcd_.write_vcd(v);
      v.close();
      if (!v) throw std::runtime_error("cannot write " + dir + "/waves.vcd");
      std::ostringstream g;
      vcd_.write_gtkw(g, "waves.vcd");
      write_file(dir + "/waves.gtkw", g.str());
      for (const auto& view : vcd_.views()) {
        std::ostringstream gv;
        vcd_.write_view_gtkw(gv, "waves.vcd", view);
        write_file(dir + "/waves." + view.name + ".gtkw", gv.str());
      }
    }
  }

 private:
  vcd_writer vcd_;
  perfetto_writer timeline_;
  bool want_vcd_, want_timeline_;
  tee_sink both_{vcd_, timeline_};
  std::unique_ptr<trace_filter> filter_;
};

// Progress on a terminal (cycles, rate, elapsed), after 3 s of wall time
// (FLYNN_PROGRESS_AFTER=SECONDS changes that).
void show_progress(platform& p, std::chrono::steady_clock::time_point wall0) {
  const char* after_env = std::getenv("FLYNN_PROGRESS_AFTER");
  const double after = after_env ? std::atof(after_env) : 3.0;
  p.set_progress([name = p.spec().name, wall0, after, printed = false](std::uint64_t cycles, bool end) mutable {
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    if (end) {
      if (printed) std::cerr << "\n";
      return;
    }
    if (el < after) return;
    printed = true;
    std::cerr << "\rflynn: " << name << ": " << cycles << " cycles simulated, " << std::fixed << std::setprecision(0)
              << cycles / el << " cycles/s, " << std::setprecision(1) << el << " s   " << std::flush;
    std::cerr.unsetf(std::ios::fixed);
  });
}

// stats.json: the run's result and counts, then every module's statistics.
json run_stats(const platform& p, const run_result& r) {
  json stats = json::object();
  stats["scenario"] = p.spec().name;
  stats["result"] = to_string(r.state);
  if (r.failed()) stats["message"] = r.message;
  stats["cycles"] = r.cycles;
  if (p.runs_program()) stats["instructions"] = p.instructions();
  stats["sim_time_ns"] = r.sim_time_ns();
  stats["sim_time_ps"] = r.sim_time_ps;
  stats["checks"] = r.checks;
  if (!r.notes.empty()) stats["notes"] = r.notes;
  stats["modules"] = json::object();
  for (auto* m : p.modules()) stats["modules"][m->name()] = stats_to_json(m->stats());
  return stats;
}

// The results folder: the resolved configuration, the inputs, provenance, statistics (JSON
// and text), host figures and the traces.
void write_results(const std::string& outdir, const options& o, const run_record& record, const platform& p,
                   const run_result& r, double wall, run_traces& traces) {
  const json stats = run_stats(p, r);
  std::vector<const stats_group*> groups;
  for (auto* m : p.modules()) groups.push_back(&m->stats());
  json host = {{"wall_seconds", wall},
               {"cycles_per_second", wall > 0 ? double(r.cycles) / wall : 0.0},
               {"peak_rss_mb", peak_rss_mb()}};

  publish_outdir(outdir, [&](const std::string& dir) {
    write_file(dir + "/config.resolved.json", record.config.dump(2) + "\n");
    write_run_inputs(dir, record);
    write_file(dir + "/provenance.json",
               provenance_json(record, o.command_line, o.sets, outdir)
                       .dump(2, ' ', false, json::error_handler_t::replace) +
                   "\n");
    write_file(dir + "/stats.json", stats.dump(2) + "\n");
    std::ostringstream txt;
    txt << "# scenario " << p.spec().name << ": " << to_string(r.state) << ", " << r.cycles
        << " cycles\n";
    write_stats_text(txt, groups);
    write_file(dir + "/stats.txt", txt.str());
    write_file(dir + "/host.json", host.dump(2) + "\n");
    traces.write(dir);
  });
}

// The run's summary on stdout: result, counts and speed, checks, notes and every counter.
void print_summary(const platform& p, const run_result& r, double wall, const std::string& outdir) {
  std::cout << p.spec().name << ": " << to_string(r.state) << ", " << r.cycles << " cycles"
            << (p.runs_program() ? ", " + std::to_string(p.instructions()) + " instructions" : "") << " ("
            << r.sim_time_ns_text() << " ns simulated), " << std::fixed << std::setprecision(3) << wall
            << " s host, " << std::setprecision(0) << (wall > 0 ? r.cycles / wall : 0.0)
            << " cycles/s, peak " << std::setprecision(1) << peak_rss_mb() << " MB\n";
  std::cout.unsetf(std::ios::fixed);
  for (const auto& c : r.checks) std::cout << "  check: " << c << "\n";
  for (const auto& n : r.notes) std::cout << "  note: " << n << "\n";
  for (auto* m : p.modules())
    for (const auto& e : m->stats().entries()) {
      if (e.k == stat_entry::kind::counter)
        std::cout << "  " << std::left << std::setw(36) << (std::string(m->name()) + "." + e.name)
                  << e.counter->value() << "\n";
      else if (e.k == stat_entry::kind::real)
        std::cout << "  " << std::left << std::setw(36) << (std::string(m->name()) + "." + e.name)
                  << std::setprecision(6) << e.real() << "\n";
    }
  std::cout << "  results: " << std::filesystem::absolute(outdir).lexically_normal().string() << "/\n";
}

}  // namespace

int cmd_run(const options& o) {
  const auto wall0 = std::chrono::steady_clock::now();
  const scenario_doc sd = load(o);
  module_registry reg;
  register_builtin_modules(reg);
  platform p(sd, reg, o.check_protocol, memory_budget::from(o.memory_budget));
  p.require_every_core_loaded();
  if (p.spec().abstract && !p.runs_program())
    throw input_error(o.scenario + ": abstract: expected a scenario to run, found a base platform (\"abstract\": "
                      "true) that other scenarios extend; run one of them, or give this one a workload");
  const std::string outdir = o.outdir.empty() ? output_root(o.out_root) + "/" + p.spec().name : o.outdir;
  check_outdir(outdir);
  const std::uint64_t max_cycles = cycle_limit(o, p);
  // Read before the run: the inputs as they were when it started.
  const run_record record = make_run_record(p, sd, max_cycles);

  apply_log_levels(p, o.log_levels);
  if (o.no_hazard_check)
    for (auto* m : p.modules())
      if (m->as_core()) m->as_core()->check_hazards(false);
  if (!o.debug.empty()) set_up_debug(p, o, reg);
  run_traces traces(o, p);
  if (!o.quiet && isatty(2)) show_progress(p, wall0);
  const run_result r = p.run(max_cycles);
  traces.finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  write_results(outdir, o, record, p, r, wall, traces);
  if (r.failed()) std::cerr << "flynn: " << p.spec().name << ": " << to_string(r.state) << ": " << r.message << "\n";
  if (!o.quiet) print_summary(p, r, wall, outdir);
  return r.failed() ? 1 : 0;
}

}  // namespace flynn::cli_detail

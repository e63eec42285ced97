#include "flynn/platform/cli.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <strings.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "flynn/platform/attribute.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/json_params.h"
#include "flynn/platform/module_info.h"
#include "flynn/platform/output.h"
#include "flynn/platform/perfetto_writer.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/stats_writer.h"
#include "flynn/platform/sweep.h"
#include "flynn/platform/trace_filter.h"
#include "flynn/platform/vcd_writer.h"

namespace po = boost::program_options;
using nlohmann::json;

#ifndef FLYNN_VERSION
#define FLYNN_VERSION "0"
#endif

namespace flynn {

namespace {

#ifndef FLYNN_DEFAULT_SCENARIO
#define FLYNN_DEFAULT_SCENARIO "scenarios/memory/showcase.json"
#endif

const char* usage =
    "Flynn " FLYNN_VERSION " - SystemC/TLM-2.0 models of SIMD, vector and GPU hardware\n"
    "\n"
    "usage:\n"
    "  flynn run [SCENARIO] [options]      simulate a scenario\n"
    "  flynn validate SCENARIO [--set PATH=VALUE]...\n"
    "                                      check a scenario without simulating\n"
    "  flynn list [TYPE] [--markdown | --json]\n"
    "                                      module types: parameters, sockets, statistics,\n"
    "                                      trace signals\n"
    "  flynn sweep SWEEP.json [options]    run a scenario at every point of parameter axes\n"
    "  flynn attribute SCENARIO [options]  where its time goes: each timing resource made\n"
    "                                      ideal in turn, and the speed-up it brings\n"
    "  flynn --help | --version\n"
    "  flynn COMMAND --help                the options of one command\n"
    "\n"
    "exit status: 0 success, 1 simulation failure (fault, deadlock, cycle limit, functional\n"
    "mismatch), 2 bad input (scenario, parameters, command line).\n";

const char* run_usage =
    "usage: flynn run [SCENARIO] [options]\n"
    "\n"
    "Simulates SCENARIO (default " FLYNN_DEFAULT_SCENARIO ") and checks its functional\n"
    "result against the golden model. Results go to OUT_ROOT/<scenario name>/ (or --outdir):\n"
    "config.resolved.json (runs again as it is), stats.json, stats.txt, host.json,\n"
    "provenance.json (version, command line, input file hashes), inputs/ (copies of workload\n"
    "files), and the traces asked for.\n"
    "\n"
    "options:\n"
    "  --outdir DIR, --out DIR the results folder (a new folder, or one Flynn wrote before:\n"
    "                          a rerun replaces what it wrote and refuses when the folder\n"
    "                          holds files it did not write)\n"
    "  --out-root DIR          the folder that holds results folders (default: $FLYNN_OUT,\n"
    "                          else out/ in the current folder)\n"
    "  --set PATH=VALUE        override a scenario value by its dotted path, for example\n"
    "                          --set modules.mem.banks=8 --set modules.gen.streams.0.stride=16;\n"
    "                          VALUE is read as JSON when it parses (8, true, \"x\", [1,2]),\n"
    "                          else as a string\n"
    "  --trace FORMATS         vcd, perfetto or vcd,perfetto: waves.vcd with waves.gtkw and\n"
    "                          views (GTKWave), trace.json (a timeline for ui.perfetto.dev:\n"
    "                          warp instructions, GMMA phases, TMA copies, memory\n"
    "                          transactions, signals as counters)\n"
    "  --trace-window START:END\n"
    "                          trace cycles START (inclusive) to END (exclusive) only;\n"
    "                          signals start with the values they had at START; either\n"
    "                          side may be left out (1000: , :5000)\n"
    "  --trace-modules PATTERN trace only modules whose name (top.sm) or instance name (sm)\n"
    "                          matches a glob of the comma-separated PATTERN (sm,rf*)\n"
    "  --max-cycles N          stop after N >= 1 cycles (a cycle-limit failure); default: the\n"
    "                          scenario's max_cycles\n"
    "  --check-protocol        a TLM-2.0 base-protocol checker on every TLM link; a violation\n"
    "                          fails the run\n"
    "  --no-hazard-check       do not check the kernel's synchronisation (on by default: an\n"
    "                          access to shared memory or registers that no barrier, wait or\n"
    "                          program order places after a conflicting one is a hazard and\n"
    "                          fails the run; docs/hazards.md)\n"
    "  --log-level [INSTANCE=]LEVEL\n"
    "                          how much the modules log: none, low, medium, high, full,\n"
    "                          debug (default low); INSTANCE=LEVEL for one module (top.sm)\n"
    "  --debug FLAGS           a line on stdout for each event of the comma-separated flags\n"
    "                          (cycle, instance, flag, what happened): Exec, Mem, TLM, Sched,\n"
    "                          Barrier, GMMA, TMA, or All (flynn run --debug help lists them)\n"
    "  --debug-window START:END  only cycles START (inclusive) to END (exclusive)\n"
    "  --debug-modules PATTERN only modules whose name or instance name matches a glob of\n"
    "                          the comma-separated PATTERN\n"
    "  --memory-budget SIZE    the model memory a run may take (module state and memory\n"
    "                          contents with the golden checks' copies), checked before\n"
    "                          anything is built: 8G, 512M (default: $FLYNN_MEMORY_BUDGET,\n"
    "                          else 8 GiB)\n"
    "  --quiet, -q             print nothing but errors\n"
    "  --help, -h              this text\n"
    "\n"
    "Runs longer than a few seconds show progress on stderr when it is a terminal.\n";

const char* validate_usage =
    "usage: flynn validate SCENARIO [--set PATH=VALUE]... [--memory-budget SIZE]\n"
    "\n"
    "Checks a scenario (JSON, parameters, bindings, workload) without simulating: prints\n"
    "\"valid\" with the module and binding counts, or the first error with its file and JSON\n"
    "path (exit status 2).\n"
    "\n"
    "options:\n"
    "  --set PATH=VALUE        override a scenario value by its dotted path (as for run)\n"
    "  --memory-budget SIZE    as for run\n"
    "  --help, -h              this text\n";

const char* list_usage =
    "usage: flynn list [TYPE] [--markdown | --json]\n"
    "\n"
    "Every module type, or TYPE alone, with its parameters (name, type, default, unit,\n"
    "description), sockets and links (name, direction, protocol, lanes), statistics (name,\n"
    "kind, unit, description) and trace signals (name, bits). Sockets, statistics and signals\n"
    "are those of an instance with default parameters.\n"
    "\n"
    "options:\n"
    "  --markdown              Markdown tables (docs/reference.md is this output)\n"
    "  --json                  JSON, the form the others are printed from\n"
    "  --help, -h              this text\n";

const char* sweep_usage =
    "usage: flynn sweep SWEEP.json [options]\n"
    "\n"
    "Runs a base scenario at every point of parameter axes (one folder per point,\n"
    "OUT_ROOT/sweep-<name>/points/), locally on all cores or as a Slurm job array, and\n"
    "writes results.csv and results.json. A finished point is kept when the sweep runs again\n"
    "unless its configuration or an input file it reads has changed since. See docs/sweeps.md.\n"
    "\n"
    "options:\n"
    "  --outdir DIR, --out DIR the sweep folder (default OUT_ROOT/sweep-<name>)\n"
    "  --out-root DIR          as for run (default: $FLYNN_OUT, else out/)\n"
    "  --jobs N, -j N          points run at once (default: the cores)\n"
    "  --slurm                 submit the points as a Slurm job array, then --collect\n"
    "  --sbatch OPTIONS        extra sbatch options with --slurm\n"
    "  --collect               gather the results of finished points\n"
    "  --memory-budget SIZE    the model memory all points running at once may take\n"
    "                          (default: $FLYNN_MEMORY_BUDGET, else 8 GiB); each point may\n"
    "                          take its share: SIZE / the points run at once\n"
    "  --quiet, -q             print nothing but errors\n"
    "  --help, -h              this text\n";


double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

struct options {
  std::string command, scenario, module_type, outdir, out_root, trace, trace_window, trace_modules, debug, debug_window,
      debug_modules, memory_budget;
  std::vector<std::string> sets, log_levels;
  std::vector<std::string> command_line;  // for provenance.json
  std::uint64_t max_cycles = 0;
  bool max_cycles_given = false, quiet = false, markdown = false, json_out = false, check_protocol = false, no_hazard_check = false,
       help = false;
};

// A count given on the command line: digits only, so "-1" is named as negative instead of
// wrapping around.
std::uint64_t count_option(const std::string& option, const std::string& v) {
  if (!v.empty() && v[0] == '-')
    throw input_error("command line: " + option + ": expected a non-negative integer, found '" + v + "' (negative)");
  if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
    throw input_error("command line: " + option + ": expected a non-negative integer, found '" + v + "'");
  return std::stoull(v);
}

options parse_args(const std::string& command, int argc, char** argv) {
  options o;
  o.command = command;
  std::string max_cycles, operand;  // the scenario, or list's module type
  po::options_description desc;
  desc.add_options()("outdir", po::value<std::string>(&o.outdir))("out", po::value<std::string>(&o.outdir))(
      "out-root", po::value<std::string>(&o.out_root))(
      "set", po::value<std::vector<std::string>>(&o.sets)->composing())(
      "trace", po::value<std::string>(&o.trace))("trace-window", po::value<std::string>(&o.trace_window))(
      "trace-modules", po::value<std::string>(&o.trace_modules))("debug", po::value<std::string>(&o.debug))(
      "debug-window", po::value<std::string>(&o.debug_window))("debug-modules", po::value<std::string>(&o.debug_modules))("max-cycles", po::value<std::string>(&max_cycles))(
      "quiet,q", po::bool_switch(&o.quiet))("markdown", po::bool_switch(&o.markdown))(
      "json", po::bool_switch(&o.json_out))("help,h", po::bool_switch(&o.help))(
      "check-protocol", po::bool_switch(&o.check_protocol))("no-hazard-check", po::bool_switch(&o.no_hazard_check))(
      "log-level", po::value<std::vector<std::string>>(&o.log_levels)->composing())(
      "memory-budget", po::value<std::string>(&o.memory_budget))(
      "operand", po::value<std::string>(&operand));
  po::positional_options_description pos;
  pos.add("operand", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(desc).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw input_error("command line: " + std::string(e.what()) + " (see flynn " + command + " --help)");
  }
  (command == "list" ? o.module_type : o.scenario) = operand;
  if (vm.count("max-cycles")) {
    o.max_cycles = count_option("--max-cycles", max_cycles);
    if (o.max_cycles == 0)  // (a scenario's max_cycles 0 means no limit; a limit given here is one)
      throw input_error("command line: --max-cycles: expected a limit of at least 1 cycle (leave the option out for "
                        "the scenario's max_cycles), found 0");
    o.max_cycles_given = true;
  }
  if (!o.trace.empty() && o.trace != "vcd" && o.trace != "perfetto" && o.trace != "vcd,perfetto" &&
      o.trace != "perfetto,vcd")
    throw input_error("command line: --trace: expected \"vcd\", \"perfetto\" or \"vcd,perfetto\", found \"" + o.trace +
                      "\"");
  if (o.trace.empty() && (!o.trace_window.empty() || !o.trace_modules.empty()))
    throw input_error(std::string("command line: ") + (o.trace_window.empty() ? "--trace-modules" : "--trace-window") +
                      ": expected --trace vcd, perfetto or vcd,perfetto with it, found no --trace");
  if (o.debug.empty() && (!o.debug_window.empty() || !o.debug_modules.empty()))
    throw input_error(std::string("command line: ") + (o.debug_window.empty() ? "--debug-modules" : "--debug-window") +
                      ": expected --debug FLAGS with it, found no --debug");
  if (o.markdown && o.json_out) throw input_error("command line: list: expected --markdown or --json, found both");
  return o;
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

scenario_doc load(const options& o) {
  scenario_doc sd = load_scenario_doc(o.scenario);
  for (const auto& s : o.sets) apply_override(sd, s);
  return sd;
}

int cmd_list(const options& o) {
  module_registry reg;
  register_builtin_modules(reg);
  std::vector<std::string> types = reg.names();
  if (!o.module_type.empty()) {
    if (!reg.find(o.module_type)) {
      const std::string hint = did_you_mean(o.module_type, types);
      std::string all;
      for (const auto& t : types) all += (all.empty() ? "" : ", ") + t;
      throw input_error("command line: list: expected a module type (" + all + ")" + (hint.empty() ? "" : "; " + hint) +
                        ", found '" + o.module_type + "'");
    }
    types = {o.module_type};
  }
  json all = json::array();
  for (const auto& t : types) all.push_back(describe_module_type(reg, t));
  if (o.json_out) {
    std::cout << (o.module_type.empty() ? all : all.front()).dump(2) << "\n";
    return 0;
  }
  for (std::size_t i = 0; i < all.size(); ++i)
    std::cout << (i ? "\n" : "") << (o.markdown ? module_markdown(all[i]) : module_text(all[i]));
  return 0;
}

int cmd_validate(const options& o) {
  const scenario_doc sd = load(o);
  module_registry reg;
  register_builtin_modules(reg);
  platform p(sd, reg, false, memory_budget::from(o.memory_budget));
  p.require_every_core_loaded();
  std::cout << o.scenario << ": valid (" << (p.spec().abstract ? "a base platform, " : "") << p.modules().size()
            << " modules, " << p.spec().bindings.size() << " bindings)\n";
  return 0;
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
  const std::uint64_t max_cycles = o.max_cycles_given ? o.max_cycles : p.spec().max_cycles;
  if (double(max_cycles) * p.spec().clock_ns > 1e15)  // simulated time must fit sc_time (ps)
    throw input_error("command line: --max-cycles: expected at most " +
                      std::to_string(static_cast<std::uint64_t>(1e15 / p.spec().clock_ns)) +
                      " cycles at this clock, found " + std::to_string(max_cycles));
  // Read before the run: the inputs as they were when it started.
  const run_record record = make_run_record(p, sd, max_cycles);

  apply_log_levels(p, o.log_levels);
  if (o.no_hazard_check)
    for (auto* m : p.modules())
      if (m->as_core()) m->as_core()->check_hazards(false);
  if (!o.debug.empty()) {  // each module's window in its own clock's cycles
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
  vcd_writer vcd;
  perfetto_writer timeline;
  const bool want_vcd = o.trace.find("vcd") != std::string::npos;
  const bool want_timeline = o.trace.find("perfetto") != std::string::npos;
  tee_sink both(vcd, timeline);
  trace_sink* sink = want_vcd && want_timeline ? static_cast<trace_sink*>(&both)
                     : want_vcd                ? static_cast<trace_sink*>(&vcd)
                     : want_timeline           ? static_cast<trace_sink*>(&timeline)
                                               : nullptr;
  std::unique_ptr<trace_filter> filter;
  if (sink && (!o.trace_window.empty() || !o.trace_modules.empty())) {
    const sc_core::sc_time period(p.spec().clock_ns, sc_core::SC_NS);
    const auto [from, to] = window_of("--trace-window", o.trace_window);
    filter = std::make_unique<trace_filter>(*sink, module::to_time(from, period),
                                            to ? module::to_time(to, period) : sc_core::sc_max_time(), o.trace_modules);
    bool any = false;
    for (auto* m : p.modules()) any = any || filter->matches(m->name());
    if (!any)
      throw input_error("command line: --trace-modules: expected a pattern matching a module (" + module_names(p) +
                        "), found '" + o.trace_modules + "'");
    sink = filter.get();
  }
  if (sink) p.attach_trace(*sink);
  if (!o.quiet && isatty(2)) {  // progress on a terminal: cycles, rate, elapsed
    // After 3 s of wall time (FLYNN_PROGRESS_AFTER=SECONDS changes that).
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
  const run_result r = p.run(max_cycles);
  if (filter) filter->finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

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
  std::vector<const stats_group*> groups;
  for (auto* m : p.modules()) {
    stats["modules"][m->name()] = stats_to_json(m->stats());
    groups.push_back(&m->stats());
  }
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
    if (want_timeline) {  // streamed: the timeline is never whole in memory
      std::ofstream t(dir + "/trace.json", std::ios::binary);
      timeline.write(t);
      t.close();
      if (!t) throw std::runtime_error("cannot write " + dir + "/trace.json");
    }
    if (want_vcd) {
      std::ofstream v(dir + "/waves.vcd", std::ios::binary);  // streamed, as the timeline
      vcd.write_vcd(v);
      v.close();
      if (!v) throw std::runtime_error("cannot write " + dir + "/waves.vcd");
      std::ostringstream g;
      vcd.write_gtkw(g, "waves.vcd");
      write_file(dir + "/waves.gtkw", g.str());
      for (const auto& view : vcd.views()) {
        std::ostringstream gv;
        vcd.write_view_gtkw(gv, "waves.vcd", view);
        write_file(dir + "/waves." + view.name + ".gtkw", gv.str());
      }
    }
  });

  if (r.failed()) std::cerr << "flynn: " << p.spec().name << ": " << to_string(r.state) << ": " << r.message << "\n";
  if (!o.quiet) {
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
  return r.failed() ? 1 : 0;
}

}  // namespace

int cli_main(int argc, char** argv) {
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  if (argc < 2) {
    std::cerr << usage;
    return 2;
  }
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << usage;
    return 0;
  }
  if (cmd == "--version") {
    std::cout << "flynn " FLYNN_VERSION " (revision " << flynn_revision() << ")\n";
    return 0;
  }
  try {
    if (cmd != "run" && cmd != "validate" && cmd != "list" && cmd != "sweep" && cmd != "attribute")
      throw input_error("command line: expected a command (run, validate, list, sweep, attribute), found '" + cmd +
                        "' (see flynn --help)");
    const std::vector<std::string> args(argv + 2, argv + argc);
    if (std::find(args.begin(), args.end(), "--help") != args.end() ||
        std::find(args.begin(), args.end(), "-h") != args.end()) {
      std::cout << (cmd == "run"        ? run_usage
                    : cmd == "validate" ? validate_usage
                    : cmd == "list"     ? list_usage
                    : cmd == "sweep"    ? sweep_usage
                                        : attribute_usage);
      return 0;
    }
    if (cmd == "sweep") return sweep_main(args);
    if (cmd == "attribute") return attribute_main(args);
    options o = parse_args(cmd, argc - 1, argv + 1);
    // The program as "flynn": where the binary lies says nothing about the run.
    o.command_line.assign(argv, argv + argc);
    o.command_line[0] = "flynn";
    if (o.debug == "help") {  // flynn run --debug help
      std::cout << "debug flags (flynn run --debug FLAG,FLAG...; All: every one):\n";
      module_registry reg;
      register_builtin_modules(reg);
      for (const debug_flag* f : reg.debug_flags())
        std::cout << "  " << std::left << std::setw(9) << f->name << f->description << "\n";
      return 0;
    }
    if (cmd == "list") return cmd_list(o);
    if (o.markdown || o.json_out)
      throw input_error("command line: " + cmd + ": " + (o.markdown ? "--markdown" : "--json") +
                        " belongs to list (see flynn " + cmd + " --help)");
    if (o.scenario.empty()) {
      if (cmd == "validate") throw input_error("command line: validate: expected a SCENARIO file");
      o.scenario = FLYNN_DEFAULT_SCENARIO;
    }
    return cmd == "run" ? cmd_run(o) : cmd_validate(o);
  } catch (const input_error& e) {
    std::cerr << "flynn: error: " << e.what() << "\n";
    return 2;
  } catch (const sc_core::sc_report& e) {
    std::cerr << "flynn: error: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "flynn: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "flynn: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace flynn

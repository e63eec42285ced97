#include "flynn/platform/cli.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "flynn/platform/errors.h"
#include "flynn/platform/json_params.h"
#include "flynn/platform/output.h"
#include "flynn/platform/perfetto_writer.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/stats_writer.h"
#include "flynn/platform/sweep.h"
#include "flynn/platform/vcd_writer.h"

namespace po = boost::program_options;
using nlohmann::json;

#ifndef FLYNN_VERSION
#define FLYNN_VERSION "0"
#endif

namespace flynn {

namespace {

const char* usage =
    "Flynn " FLYNN_VERSION " - SystemC/TLM-2.0 models of SIMD, vector and GPU hardware\n"
    "\n"
    "usage:\n"
    "  flynn run [SCENARIO] [--outdir DIR] [--set PATH=VALUE]... [--trace vcd|perfetto|vcd,perfetto]\n"
    "            [--max-cycles N] [--check-protocol] [--log-level [INSTANCE=]LEVEL]... [--quiet]\n"
    "  flynn validate SCENARIO [--set PATH=VALUE]...\n"
    "  flynn list [--markdown]\n"
    "  flynn sweep SWEEP.json [--outdir DIR] [--jobs N] [--slurm [--sbatch OPTIONS]] [--collect]\n"
    "  flynn --help | --version\n"
    "\n"
    "run       simulate a scenario; results go to out/<scenario name>/ (or --outdir):\n"
    "          config.resolved.json (runs again as it is), stats.json, stats.txt,\n"
    "          host.json, provenance.json (version, command line, input file hashes),\n"
    "          inputs/ (copies of workload files), with --trace vcd also waves.vcd and\n"
    "          waves.gtkw, with --trace perfetto trace.json (a timeline\n"
    "          for ui.perfetto.dev: warp instructions, GMMA phases, TMA copies, memory\n"
    "          transactions, signals as counters)\n"
    "          --check-protocol puts a TLM-2.0 base-protocol checker on every TLM link;\n"
    "          a violation fails the run\n"
    "          --log-level LEVEL sets how much the modules log (none, low, medium, high,\n"
    "          full, debug; default: low); INSTANCE=LEVEL sets it for one module\n"
    "          (top.sm=debug). Runs longer than a few seconds show progress on stderr\n"
    "          when it is a terminal\n"
    "validate  check a scenario (parameters, bindings) without simulating\n"
    "list      every module type with its parameters (name, default, unit, description)\n"
    "sweep     run a base scenario at every point of parameter axes (one folder per point,\n"
    "          out/sweep-<name>/points/), locally on all cores or as a Slurm job array\n"
    "          (--slurm; then --collect), and write results.csv and results.json; a\n"
    "          finished point is kept when the sweep runs again unless its configuration\n"
    "          or an input file it reads has changed since\n"
    "\n"
    "--set PATH=VALUE overrides a scenario value by its dotted path, for example\n"
    "  --set modules.mem.banks=8 --set modules.gen.streams.0.stride=16\n"
    "VALUE is read as JSON when it parses (8, true, \"x\", [1,2]), else as a string.\n"
    "\n"
    "exit status: 0 success, 1 simulation failure (fault, deadlock, cycle limit, functional\n"
    "mismatch), 2 bad input (scenario, parameters, command line).\n";

#ifndef FLYNN_DEFAULT_SCENARIO
#define FLYNN_DEFAULT_SCENARIO "scenarios/memory/showcase.json"
#endif

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

struct options {
  std::string command, scenario, outdir, trace;
  std::vector<std::string> sets, log_levels;
  std::vector<std::string> command_line;  // for provenance.json
  std::uint64_t max_cycles = 0;
  bool max_cycles_given = false, quiet = false, markdown = false, check_protocol = false;
};

options parse_args(int argc, char** argv) {
  options o;
  po::options_description desc;
  desc.add_options()("outdir", po::value<std::string>(&o.outdir))(
      "set", po::value<std::vector<std::string>>(&o.sets)->composing())(
      "trace", po::value<std::string>(&o.trace))("max-cycles", po::value<std::uint64_t>())(
      "quiet,q", po::bool_switch(&o.quiet))("markdown", po::bool_switch(&o.markdown))(
      "check-protocol", po::bool_switch(&o.check_protocol))(
      "log-level", po::value<std::vector<std::string>>(&o.log_levels)->composing())(
      "scenario", po::value<std::string>(&o.scenario));
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(desc).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw input_error(std::string("command line: ") + e.what() + " (see flynn --help)");
  }
  if (vm.count("max-cycles")) {
    o.max_cycles = vm["max-cycles"].as<std::uint64_t>();
    o.max_cycles_given = true;
  }
  if (!o.trace.empty() && o.trace != "vcd" && o.trace != "perfetto" && o.trace != "vcd,perfetto" &&
      o.trace != "perfetto,vcd")
    throw input_error("command line: --trace: expected \"vcd\", \"perfetto\" or \"vcd,perfetto\", found \"" + o.trace +
                      "\"");
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
  for (const auto& n : reg.names()) {
    const module_type* t = reg.find(n);
    const auto rows = describe_params(t->describe);
    if (o.markdown) {
      std::cout << "### `" << n << "`\n\n" << t->description << "\n\n"
                << "| parameter | type | default | unit | description |\n"
                << "| --- | --- | --- | --- | --- |\n";
      auto cell = [](std::string x) {  // a '|' would end the table cell
        for (std::size_t i = 0; (i = x.find('|', i)) != std::string::npos; i += 2) x.replace(i, 1, "\\|");
        return x;
      };
      for (const auto& r : rows)
        std::cout << "| `" << r.name << "` | " << cell(r.kind) << " | `" << r.default_value << "` | "
                  << r.unit << " | " << r.description << " |\n";
      std::cout << "\n";
    } else {
      std::cout << n << " - " << t->description << "\n";
      for (const auto& r : rows)
        std::cout << "  " << std::left << std::setw(26) << r.name << std::setw(22) << r.kind
                  << std::setw(12) << r.default_value << std::setw(10) << r.unit
                  << r.description << "\n";
      std::cout << "\n";
    }
  }
  return 0;
}

int cmd_validate(const options& o) {
  const scenario_doc sd = load(o);
  module_registry reg;
  register_builtin_modules(reg);
  platform p(sd, reg);
  std::cout << o.scenario << ": valid (" << p.modules().size() << " modules, "
            << p.spec().bindings.size() << " bindings)\n";
  return 0;
}

int cmd_run(const options& o) {
  const auto wall0 = std::chrono::steady_clock::now();
  const scenario_doc sd = load(o);
  module_registry reg;
  register_builtin_modules(reg);
  platform p(sd, reg, o.check_protocol);
  const std::string outdir = o.outdir.empty() ? "out/" + p.spec().name : o.outdir;
  check_outdir(outdir);
  const std::uint64_t max_cycles = o.max_cycles_given ? o.max_cycles : p.spec().max_cycles;
  if (double(max_cycles) * p.spec().clock_ns > 1e15)  // simulated time must fit sc_time (ps)
    throw input_error("command line: --max-cycles: expected at most " +
                      std::to_string(static_cast<std::uint64_t>(1e15 / p.spec().clock_ns)) +
                      " cycles at this clock, found " + std::to_string(max_cycles));
  // Read before the run: the inputs as they were when it started.
  const run_record record = make_run_record(p, sd, max_cycles);

  apply_log_levels(p, o.log_levels);
  vcd_writer vcd;
  perfetto_writer timeline;
  const bool want_vcd = o.trace.find("vcd") != std::string::npos;
  const bool want_timeline = o.trace.find("perfetto") != std::string::npos;
  tee_sink both(vcd, timeline);
  if (want_vcd && want_timeline) p.attach_trace(both);
  else if (want_vcd) p.attach_trace(vcd);
  else if (want_timeline) p.attach_trace(timeline);
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
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  json stats = json::object();
  stats["scenario"] = p.spec().name;
  stats["result"] = to_string(r.state);
  if (r.failed()) stats["message"] = r.message;
  stats["cycles"] = r.cycles;
  if (p.runs_program()) stats["instructions"] = p.instructions();
  stats["sim_time_ns"] = r.sim_time_ns;
  stats["checks"] = r.checks;
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
    if (want_timeline) {
      std::ostringstream t;
      timeline.write(t);
      write_file(dir + "/trace.json", t.str());
    }
    if (want_vcd) {
      std::ostringstream v, g;
      vcd.write_vcd(v);
      vcd.write_gtkw(g, "waves.vcd");
      write_file(dir + "/waves.vcd", v.str());
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
              << r.sim_time_ns << " ns simulated), " << std::fixed << std::setprecision(3) << wall
              << " s host, " << std::setprecision(0) << (wall > 0 ? r.cycles / wall : 0.0)
              << " cycles/s, peak " << std::setprecision(1) << peak_rss_mb() << " MB\n";
    std::cout.unsetf(std::ios::fixed);
    for (const auto& c : r.checks) std::cout << "  check: " << c << "\n";
    for (auto* m : p.modules())
      for (const auto& e : m->stats().entries()) {
        if (e.k == stat_entry::kind::counter)
          std::cout << "  " << std::left << std::setw(36) << (std::string(m->name()) + "." + e.name)
                    << e.counter->value() << "\n";
        else if (e.k == stat_entry::kind::real)
          std::cout << "  " << std::left << std::setw(36) << (std::string(m->name()) + "." + e.name)
                    << std::setprecision(6) << e.real() << "\n";
      }
    std::cout << "  results: " << outdir << "/\n";
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
    if (cmd == "sweep") return sweep_main(std::vector<std::string>(argv + 2, argv + argc));
    if (cmd != "run" && cmd != "validate" && cmd != "list")
      throw input_error("command line: expected a command (run, validate, list, sweep), found '" + cmd +
                        "' (see flynn --help)");
    options o = parse_args(argc - 1, argv + 1);
    o.command = cmd;
    // The program as "flynn": where the binary lies says nothing about the run.
    o.command_line.assign(argv, argv + argc);
    o.command_line[0] = "flynn";
    if (cmd == "list") return cmd_list(o);
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

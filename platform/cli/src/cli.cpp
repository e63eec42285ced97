// The `flynn` command line: its usage texts, the options of run, validate and list, the
// list and validate commands, and the choice of command (run is in cli_run.cpp, sweep in
// sweep.cpp, attribute in attribute.cpp).
#include "flynn/platform/cli.h"

#include <algorithm>
#include <iomanip>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli_parts.h"
#include "flynn/platform/attribute.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/json_params.h"
#include "flynn/platform/module_info.h"
#include "flynn/platform/output.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/sweep.h"

namespace po = boost::program_options;
using nlohmann::json;

#ifndef FLYNN_VERSION
#define FLYNN_VERSION "0"
#endif

namespace flynn {

namespace cli_detail {

std::uint64_t count_option(const std::string& option, const std::string& v) {
  if (!v.empty() && v[0] == '-')
    throw input_error("command line: " + option + ": expected a non-negative integer, found '" + v + "' (negative)");
  if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
    throw input_error("command line: " + option + ": expected a non-negative integer, found '" + v + "'");
  return std::stoull(v);
}

scenario_doc load(const options& o) {
  scenario_doc sd = load_scenario_doc(o.scenario);
  for (const auto& s : o.sets) apply_override(sd, s);
  return sd;
}

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

// The options of run, validate or list (`command`); argv[0] is the command.
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

}  // namespace

}  // namespace cli_detail

int cli_main(int argc, char** argv) {
  using namespace cli_detail;
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

// What the commands of `flynn` share: the options of its command line as parsed, and the
// scenario they name with its --set overrides.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flynn/platform/scenario.h"

namespace flynn::cli_detail {

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
std::uint64_t count_option(const std::string& option, const std::string& v);

// The scenario of the command line with its --set overrides applied.
scenario_doc load(const options& o);

// flynn run (cli_run.cpp): simulates the scenario and writes its results folder; returns the
// exit status.
int cmd_run(const options& o);

}  // namespace flynn::cli_detail

// Scenario documents: JSON files, `extends` chains (paths relative to the extending file),
// `--set a.b.c=VALUE` overrides, and the typed view the builder uses. Every value keeps the
// file it came from, so errors can name it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace flynn {

struct scenario_doc {
  nlohmann::json doc;                          // merged document
  std::map<std::string, std::string> origin;   // dotted path -> file (or "--set")
  std::string file;                            // the scenario file as given
  // The file a value at `path` came from (longest recorded prefix).
  std::string origin_of(const std::string& path) const;
};

// Parses `text`, read from `path`, as JSON. Throws input_error "PATH:LINE:COL: malformed
// JSON: ..." for a syntax error or a number no double holds.
nlohmann::json parse_json_text(const std::string& path, const std::string& text);
// Reads `path`, following `extends`. Throws input_error (unreadable, malformed JSON with
// line:column, extends cycles, wrong types).
scenario_doc load_scenario_doc(const std::string& path);
// Applies one "a.b.c=VALUE" override (VALUE parsed as JSON, else taken as a string).
void apply_override(scenario_doc& sd, const std::string& assignment);

struct module_spec {
  std::string name, type, path;  // path: "modules.<name>"
  const nlohmann::json* params = nullptr;  // the module's object (minus "type")
};

struct binding_spec {
  std::string initiator, target, path;
};

// A published figure the model should reproduce: after the run the statistic `stat`
// ("top.sm.shared_load_latency") is compared with `published` within `tolerance` (relative).
struct calibration_target {
  std::string stat, source, path;
  double published = 0, tolerance = 0.1;
};

struct scenario {
  std::string name, description;
  std::vector<calibration_target> calibration;
  double clock_ns = 1.0;
  std::uint64_t max_cycles = 0;
  // A base platform that other scenarios extend: it may leave its programmable modules
  // without a workload (it validates but does not run).
  bool abstract = false;
  std::vector<module_spec> modules;
  std::vector<binding_spec> bindings;
  const nlohmann::json* workload = nullptr;  // "workload" object, when present
};

// Checks the top level and returns the typed view (module parameters are bound later).
scenario parse_scenario(const scenario_doc& sd);

// Dotted path helpers.
std::string join_path(const std::string& a, const std::string& b);
std::string index_path(const std::string& a, std::size_t i);
std::string json_kind(const nlohmann::json& j);  // "a string", "the number 3", ...

}  // namespace flynn

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

// Limits on any JSON document Flynn reads (scenario, extends, sweep, --set values), so that
// no input makes the reader recurse without bound or use memory out of proportion to it.
constexpr std::size_t max_json_depth = 64;       // nesting of arrays and objects
constexpr std::size_t max_extends_chain = 32;    // files in one extends chain, the scenario included

// Where each value of a merged document came from: a file, or "--set PATH=VALUE". Kept as a
// tree of path components (dotted keys, [i] indices) with a source at the root of each value
// a file or override put in place; a value's origin is that of its nearest recorded
// ancestor. Memory is linear in the documents merged, whatever their depth.
class origin_map {
 public:
  // `source` put the value at `path` in place ("" is the whole document).
  void set(const std::string& path, const std::string& source);
  // Forgets what was recorded strictly below `path` (a value replaced as a whole).
  void forget_under(const std::string& path);
  // The source of the value at `path`, or `fallback` when nothing above it is recorded.
  std::string lookup(const std::string& path, const std::string& fallback) const;

  // The same by node, for walking a document without building its paths: node 0 is the
  // whole document, under(n, key) the value at key `key` of n (made when new).
  std::size_t under(std::size_t n, const std::string& key);
  void set(std::size_t n, const std::string& source);
  void forget_under(std::size_t n) { nodes_[n].children.clear(); }

 private:
  struct node {
    std::map<std::string, std::size_t> children;  // component -> index in nodes_
    int source = -1;                              // index in sources_
  };
  std::vector<node> nodes_{node{}};
  std::vector<std::string> sources_;
};

struct scenario_doc {
  nlohmann::json doc;    // merged document
  origin_map origin;     // where each value came from
  std::string file;      // the scenario file as given
  // The files read, as opened, with their text: the scenario first, then each file it
  // extends in chain order (provenance records them as read).
  std::vector<std::pair<std::string, std::string>> sources;
  // The file a value at `path` came from (longest recorded prefix).
  std::string origin_of(const std::string& path) const;
};

// Parses `text`, read from `path`, as JSON. Throws input_error "PATH:LINE:COL: malformed
// JSON: ..." for a syntax error or a number no double holds, and "PATH:LINE:COL: expected
// JSON nested at most 64 levels deep" before parsing a deeper document.
nlohmann::json parse_json_text(const std::string& path, const std::string& text);
// Reads `path`, following `extends` (at most max_extends_chain files, max_input_bytes in
// all). Throws input_error (unreadable, not a regular file, too large, malformed JSON with
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
// `kind` says what agreement shows: "fitted" (a parameter was chosen to give the figure),
// "consistency" (the figure restates a parameter set from it) or "predicted" (neither).
struct calibration_target {
  std::string stat, source, path, kind;
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

// Throws input_error for the first key of `object` that is not one of `keys`, at path
// prefix + key, expecting `what` (with "; did you mean 'k'?" where a key is close), found
// "unknown key 'x'"; the message names the file `sd` says the key came from, or `file`.
void reject_unknown_keys(const nlohmann::json& object, const std::vector<std::string>& keys,
                         const std::string& prefix, const std::string& what, const scenario_doc& sd);
void reject_unknown_keys(const nlohmann::json& object, const std::vector<std::string>& keys,
                         const std::string& prefix, const std::string& what, const std::string& file);

}  // namespace flynn

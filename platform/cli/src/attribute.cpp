// flynn attribute: where a scenario's time goes, by experiment. The scenario runs once as it
// is and once with each timing resource made ideal in turn (its `ideal` parameter: no
// latency, no bandwidth or occupancy limit, the same functional result), as a sweep; the
// speed-up each would bring is printed as a table and written as attribution.json.
#include "flynn/platform/attribute.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "flynn/common/registry.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/module_info.h"
#include "flynn/platform/output.h"
#include "flynn/platform/scenario.h"
#include "flynn/platform/sweep.h"

using nlohmann::json;

namespace flynn {

namespace {

// The instance name without its trailing index ("l2_3" -> "l2", "tc0" -> "tc").
std::string stem(const std::string& name) {
  std::size_t e = name.size();
  while (e > 0 && std::isdigit(static_cast<unsigned char>(name[e - 1]))) --e;
  if (e > 0 && e < name.size() && name[e - 1] == '_') --e;
  return e == 0 ? name : name.substr(0, e);
}

struct resource {
  std::string label, type;
  std::vector<std::string> instances;
};

// The command line of flynn attribute.
struct attribute_options {
  std::string scenario, out, out_root, jobs;
  std::vector<std::string> sets;
  bool quiet = false;
};

attribute_options parse_options(const std::vector<std::string>& args) {
  attribute_options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw input_error("command line: attribute: " + a + ": expected a value");
      return args[++i];
    };
    if (a == "--set") o.sets.push_back(value());
    else if (a == "--outdir" || a == "--out") o.out = value();
    else if (a == "--out-root") o.out_root = value();
    else if (a == "--jobs" || a == "-j") o.jobs = value();
    else if (a == "--quiet" || a == "-q") o.quiet = true;
    else if (!a.empty() && a[0] == '-')
      throw input_error("command line: attribute: expected an option of attribute (see flynn attribute --help), found '" +
                        excerpt(a) + "'");
    else if (o.scenario.empty()) o.scenario = a;
    else throw input_error("command line: attribute: expected one SCENARIO, found a second: '" + excerpt(a) + "'");
  }
  if (o.scenario.empty()) throw input_error("command line: attribute: expected a SCENARIO file");
  return o;
}

// The scenario's timing resources: the instances whose type has an `ideal` switch.
std::vector<resource> timing_resources(const std::string& file, const scenario& spec) {
  module_registry reg;
  register_builtin_modules(reg);
  std::vector<resource> resources;
  std::vector<const module_spec*> timed;
  // Instances of one type with the same parameters whose names differ only by an index are
  // one resource (L2 slices, tensor cores); others stand alone ("l1" and "l2" are levels).
  const auto key = [](const module_spec& m) {
    return stem(m.name) + "\n" + m.type + "\n" + (m.params ? m.params->dump() : std::string());
  };
  std::map<std::string, unsigned> siblings;
  for (const auto& m : spec.modules) {
    if (!reg.find(m.type)) continue;  // (the sweep names it)
    const json info = describe_module_type(reg, m.type);
    const bool has_ideal = std::any_of(info["parameters"].begin(), info["parameters"].end(),
                                       [](const json& p) { return p["name"] == "ideal"; });
    if (!has_ideal) continue;
    timed.push_back(&m);
    ++siblings[key(m)];
  }
  for (const module_spec* mp : timed) {
    const module_spec& m = *mp;
    // (one instance keeps its name: "l1" is not "l")
    const std::string label = siblings[key(m)] > 1 ? stem(m.name) + "*" : m.name;
    auto it = std::find_if(resources.begin(), resources.end(),
                           [&](const resource& r) { return r.label == label && r.type == m.type; });
    if (it == resources.end()) it = resources.insert(resources.end(), resource{label, m.type, {}});
    it->instances.push_back(m.name);
  }
  if (resources.empty())
    throw input_error(file + ": modules: expected a module with an ideal switch (banked_memory, cache, crossbar, "
                                 "dram, register_file, tensor_core, tma_loader), found none");
  return resources;
}

// The sweep: point 0 as it is, point k + 1 with resource k ideal (one axis per instance).
json attribute_sweep(const std::string& file, const scenario& spec, const std::vector<std::string>& sets,
                     const std::vector<resource>& resources) {
  json sw;
  sw["name"] = "attribute-" + spec.name;
  sw["base"] = std::filesystem::absolute(file).lexically_normal().string();
  sw["mode"] = "zip";
  sw["sets"] = sets;
  sw["axes"] = json::array();
  for (std::size_t k = 0; k < resources.size(); ++k)
    for (const auto& inst : resources[k].instances) {
      json values = json::array();
      for (std::size_t p = 0; p <= resources.size(); ++p) values.push_back(p == k + 1);
      sw["axes"].push_back({{"path", "modules." + inst + ".ideal"}, {"values", values}});
    }
  sw["metrics"] = json::array();
  return sw;
}

// A temporary folder of its own, removed with everything in it when this goes.
struct temp_folder {
  std::string dir;
  temp_folder() {
    const char* tmp_env = std::getenv("TMPDIR");
    dir = std::string(tmp_env && *tmp_env ? tmp_env : "/tmp") + "/flynn-attribute-XXXXXX";
    if (!::mkdtemp(dir.data())) throw std::runtime_error("attribute: cannot make a temporary folder in " + dir);
  }
  ~temp_folder() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  temp_folder(const temp_folder&) = delete;
  temp_folder& operator=(const temp_folder&) = delete;
};

// attribution.json: the cycles of each run of the sweep in `out` against the scenario as it
// is, the resources in order of the time they would save.
json attribution(const std::string& out, const scenario& spec, const std::vector<resource>& resources) {
  std::ifstream in(out + "/results.json");
  if (!in) throw std::runtime_error("attribute: the sweep wrote no results.json in " + out);
  const json results = json::parse(in);
  // (A point per run: the scenario as it is, then each resource ideal.)
  const auto found = results.find("rows");
  const bool listed = found != results.end() && found->is_array();
  if (!listed || found->size() != resources.size() + 1)
    throw std::runtime_error("attribute: the sweep's results.json in " + out + " holds " +
                             (listed ? std::to_string(found->size()) : std::string("no")) + " rows, not the " +
                             std::to_string(resources.size() + 1) + " of its points");
  const json& rows = *found;
  const auto row = [&](std::size_t p) -> const json& { return rows[p]; };
  const bool base_ok = row(0)["result"] == "ok";
  const double base = base_ok ? row(0)["cycles"].get<double>() : 0.0;
  json att;
  att["scenario"] = spec.name;
  att["baseline"] = {{"result", base_ok ? "ok" : row(0)["result"]}, {"cycles", base_ok ? row(0)["cycles"] : json()}};
  att["ideal"] = json::array();
  for (std::size_t k = 0; k < resources.size(); ++k) {
    const json& r = row(k + 1);
    json e = {{"resource", resources[k].label}, {"type", resources[k].type}, {"instances", resources[k].instances},
              {"result", r["result"]}};
    if (r["result"] == "ok") {
      e["cycles"] = r["cycles"];
      if (base_ok) {
        const double c = r["cycles"].get<double>();
        e["speedup"] = c > 0 ? base / c : 0.0;
        e["time_saved"] = base > 0 ? 1.0 - c / base : 0.0;
      }
    } else {
      e["message"] = r["message"];
    }
    att["ideal"].push_back(std::move(e));
  }
  std::stable_sort(att["ideal"].begin(), att["ideal"].end(), [](const json& a, const json& b) {
    return a.value("time_saved", -1e9) > b.value("time_saved", -1e9);
  });
  return att;
}

// The table of `att` on stdout.
void print_attribution(const json& att, const std::string& name, const std::string& out) {
  const bool base_ok = att["baseline"]["result"] == "ok";
  std::cout << "attribution of " << name << ": "
            << (base_ok ? std::to_string(std::uint64_t(att["baseline"]["cycles"].get<double>())) + " cycles as it is"
                        : "the scenario as it is failed")
            << "; each timing resource made ideal in turn:\n";
  std::cout << "  " << std::left << std::setw(16) << "resource" << std::setw(16) << "type" << std::right << std::setw(12)
            << "cycles" << std::setw(10) << "speed-up" << std::setw(12) << "time saved" << "\n";
  for (const auto& e : att["ideal"]) {
    std::ostringstream line;
    line << "  " << std::left << std::setw(16) << e["resource"].get<std::string>() << std::setw(16)
         << e["type"].get<std::string>() << std::right;
    if (e["result"] != "ok") {
      line << "  " << e["result"].get<std::string>() << ": " << e.value("message", "");
    } else {
      line << std::setw(12) << e["cycles"].get<std::uint64_t>();
      if (e.contains("speedup"))
        line << std::setw(9) << std::fixed << std::setprecision(3) << e["speedup"].get<double>() << "x" << std::setw(11)
             << std::setprecision(1) << 100.0 * e["time_saved"].get<double>() << "%";
    }
    std::cout << line.str() << "\n";
  }
  std::cout << "  results: " << std::filesystem::absolute(out).lexically_normal().string() << "/attribution.json\n";
}

}  // namespace

const char* attribute_usage =
    "usage: flynn attribute SCENARIO [options]\n"
    "\n"
    "Where SCENARIO's time goes, by experiment: it runs once as it is and once with each\n"
    "timing resource made ideal in turn (the `ideal` parameter of its modules: no latency, no\n"
    "bandwidth or occupancy limit, the same functional result; instances that differ only by\n"
    "an index, such as L2 slices, are one resource), as a sweep (OUT_ROOT/attribute-<name>/),\n"
    "and prints the cycles and the speed-up each would bring. attribution.json beside the\n"
    "sweep's tables holds the same.\n"
    "\n"
    "options:\n"
    "  --set PATH=VALUE        override a value of the scenario (as for run), every run\n"
    "  --outdir DIR, --out DIR the folder (default OUT_ROOT/attribute-<scenario name>)\n"
    "  --out-root DIR          as for run (default: $FLYNN_OUT, else out/)\n"
    "  --jobs N, -j N          runs at once (default: the cores)\n"
    "  --quiet, -q             print nothing but errors\n"
    "  --help, -h              this text\n";

int attribute_main(const std::vector<std::string>& args) {
  const attribute_options o = parse_options(args);
  scenario_doc sd = load_scenario_doc(o.scenario);
  for (const auto& s : o.sets) apply_override(sd, s);
  const auto spec = parse_scenario(sd);
  const std::vector<resource> resources = timing_resources(o.scenario, spec);
  // The sweep file, in a temporary folder of its own (every point is checked against it
  // before anything runs, and bad input is named there), removed afterwards.
  const temp_folder tmp;
  const std::string file = tmp.dir + "/attribute-" + spec.name + ".sweep.json";
  write_file(file, attribute_sweep(o.scenario, spec, o.sets, resources).dump(1) + "\n");
  const std::string out = o.out.empty() ? output_root(o.out_root) + "/attribute-" + spec.name : o.out;
  std::vector<std::string> sweep_args{file, "--outdir", out};
  if (!o.jobs.empty()) sweep_args.insert(sweep_args.end(), {"--jobs", o.jobs});
  if (o.quiet) sweep_args.push_back("--quiet");
  const int status = sweep_main(sweep_args);

  const json att = attribution(out, spec, resources);
  write_file(out + "/attribution.json", att.dump(2) + "\n");
  if (!o.quiet) print_attribution(att, spec.name, out);
  return status;
}

}  // namespace flynn

#include "flynn/platform/workload.h"

#include <algorithm>
#include <filesystem>

#include "flynn/platform/errors.h"
#include "flynn/platform/scenario.h"

using nlohmann::json;

namespace flynn {

const std::vector<workload_kind>& workload_kinds() {
  static const std::vector<workload_kind> kinds = {
      {"ptx", "simt", "ptx", load_ptx_workload},
      {"simt", "simt", nullptr, load_simt_workload},
      {"vector", "vector", nullptr, load_vector_workload},
  };
  return kinds;
}

std::string workload_file(const scenario_doc& sd, const std::string& json_path, const std::string& value) {
  const std::string origin = sd.origin_of(json_path);
  if (origin.rfind("--set ", 0) == 0) return value;
  return (std::filesystem::path(origin).parent_path() / value).string();
}

backdoor_memory& workload_memory(const instance_lookup& modules, const scenario_doc& sd, const json& spec) {
  const std::string name = spec.contains("memory") && spec["memory"].is_string() ? spec["memory"].get<std::string>() : "";
  module* m = modules.find(name);
  backdoor_memory* mem = m ? m->as_backdoor() : nullptr;
  if (!mem)
    throw input_error(sd.origin_of("workload.memory"), "workload.memory",
                      "the name of a memory instance (a module whose contents a workload can fill, such as banked_memory)",
                      spec.contains("memory") ? json_kind(spec["memory"]) : "nothing (missing)");
  return *mem;
}

// The core named by workload.core, then the first workload kind that builds a program the
// core runs and whose selecting key the workload has.
std::unique_ptr<workload> load_workload(const instance_lookup& modules, const scenario_doc& sd, const json& spec) {
  const std::vector<std::string> cores = modules.core_instances();
  std::string names;
  for (const auto& c : cores) names += (names.empty() ? "" : ", ") + c;
  const std::string want = "the name of a programmable core (" + (names.empty() ? std::string("the platform has none") : names) + ")";
  if (!spec.contains("core") || !spec["core"].is_string())
    throw input_error(sd.origin_of("workload.core"), "workload.core", want,
                      spec.contains("core") ? json_kind(spec["core"]) : "nothing (missing)");
  module* m = modules.find(spec["core"].get<std::string>());
  programmable_core* core = m ? m->as_core() : nullptr;
  if (!core) {
    const std::string hint = did_you_mean(spec["core"].get<std::string>(), cores);
    throw input_error(sd.origin_of("workload.core"), "workload.core", want + (hint.empty() ? "" : "; " + hint),
                      json_kind(spec["core"]));
  }
  const std::vector<std::string> runs = core->program_kinds();
  std::string kinds;
  for (const auto& k : workload_kinds()) {
    if (std::find(runs.begin(), runs.end(), k.program_kind) == runs.end()) continue;
    if (k.selector && !spec.contains(k.selector)) continue;
    return k.load(*m, modules, sd, spec);
  }
  for (const auto& r : runs) kinds += (kinds.empty() ? "" : ", ") + r;
  throw input_error(sd.origin_of("workload.core"), "workload.core",
                    "a core that runs a program kind some workload kind builds (vector, simt)",
                    "'" + spec["core"].get<std::string>() + "', which runs " + (kinds.empty() ? "none" : kinds));
}

}  // namespace flynn

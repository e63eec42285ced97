#include "flynn/platform/workload.h"

#include <filesystem>

#include "flynn/platform/errors.h"
#include "flynn/platform/scenario.h"

using nlohmann::json;

namespace flynn {

namespace {
// Every kind of workload, by the type of the core that runs it.
const workload_kind kinds[] = {
    {"scalar_unit", load_vector_workload},
    {"simt_core", load_simt_workload},
};
}  // namespace

std::string workload_file(const scenario_doc& sd, const std::string& json_path, const std::string& value) {
  const std::string origin = sd.origin_of(json_path);
  if (origin.rfind("--set ", 0) == 0) return value;
  return (std::filesystem::path(origin).parent_path() / value).string();
}

// The kind of workload follows the type of the core that runs it.
std::unique_ptr<workload> load_workload(const instance_lookup& modules, const scenario_doc& sd, const json& spec) {
  if (!spec.contains("core") || !spec["core"].is_string())
    throw input_error(sd.origin_of("workload.core"), "workload.core", "the name of the instance that runs the program",
                      spec.contains("core") ? json_kind(spec["core"]) : "nothing (missing)");
  const std::string type = modules.type_of(spec["core"].get<std::string>());
  std::string types;
  for (const auto& k : kinds) {
    if (type == k.core_type && type == "simt_core" && spec.contains("ptx")) return load_ptx_workload(modules, sd, spec);
    if (type == k.core_type) return k.load(modules, sd, spec);
    types += (types.empty() ? "" : " or ") + std::string(k.core_type);
  }
  throw input_error(sd.origin_of("workload.core"), "workload.core", "the name of a " + types + " instance",
                    json_kind(spec["core"]));
}

}  // namespace flynn

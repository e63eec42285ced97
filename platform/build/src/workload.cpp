#include "flynn/platform/workload.h"

#include <filesystem>

#include "flynn/platform/errors.h"
#include "flynn/platform/platform.h"
#include "flynn/simt/simt_core.h"
#include "flynn/vector/scalar_unit.h"

using nlohmann::json;

namespace flynn {

std::unique_ptr<workload> make_vector_workload(platform& p, const scenario_doc& sd, const json& spec);
std::unique_ptr<workload> make_simt_workload(platform& p, const scenario_doc& sd, const json& spec);

std::string workload_file(const scenario_doc& sd, const std::string& json_path, const std::string& value) {
  const std::string origin = sd.origin_of(json_path);
  if (origin.rfind("--set ", 0) == 0) return value;
  return (std::filesystem::path(origin).parent_path() / value).string();
}

// The kind of workload follows the type of the core that runs it.
std::unique_ptr<workload> load_workload(platform& p, const scenario_doc& sd, const json& spec) {
  if (!spec.contains("core") || !spec["core"].is_string())
    throw input_error(sd.origin_of("workload.core"), "workload.core", "the name of the instance that runs the program",
                      spec.contains("core") ? json_kind(spec["core"]) : "nothing (missing)");
  module* core = p.find(spec["core"].get<std::string>());
  if (dynamic_cast<scalar_unit*>(core)) return make_vector_workload(p, sd, spec);
  if (dynamic_cast<simt_core*>(core)) return make_simt_workload(p, sd, spec);
  throw input_error(sd.origin_of("workload.core"), "workload.core",
                    "the name of a scalar_unit or simt_core instance", json_kind(spec["core"]));
}

}  // namespace flynn

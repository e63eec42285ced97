// Parameter visitors on the platform side: binding a module's JSON object into its typed
// parameter struct (with precise errors), and describing parameters for `flynn list`.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "flynn/common/params.h"
#include "flynn/platform/scenario.h"

namespace flynn {

// Reads values from `src` (an object; keys in `ignore` are not parameters) into the struct
// it visits and records every effective value, defaults included, into `resolved`.
class json_binder final : public param_visitor {
 public:
  json_binder(const nlohmann::json& src, nlohmann::json& resolved, std::string path,
              const scenario_doc& sd, std::set<std::string> ignore = {});
  // Throws input_error for keys of `src` that no parameter consumed.
  void reject_unknown() const;

  void u64(const param_meta& m, std::uint64_t& v, std::uint64_t min, std::uint64_t max) override;
  void i64(const param_meta& m, std::int64_t& v) override;
  void f64(const param_meta& m, double& v, double min, double max) override;
  void flag(const param_meta& m, bool& v) override;
  void text(const param_meta& m, std::string& v) override;
  void choice(const param_meta& m, std::string& v, const std::vector<std::string>& choices) override;
  void u64_list(const param_meta& m, std::vector<std::uint64_t>& v) override;
  void list(const param_meta& m, param_list& v) override;

 private:
  const nlohmann::json* find(const char* name);
  [[noreturn]] void fail(const char* name, const std::string& expected, const nlohmann::json& found) const;
  const nlohmann::json& src_;
  nlohmann::json& out_;
  std::string path_;
  const scenario_doc& sd_;
  std::set<std::string> ignore_, used_;
  std::vector<std::string> names_;
};

// One row per parameter (nested lists flattened as "streams[].kind").
struct param_row {
  std::string name, kind, default_value, unit, description;
};
std::vector<param_row> describe_params(const std::function<void(param_visitor&)>& visit);

}  // namespace flynn

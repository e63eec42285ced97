// A platform built from a scenario written in the test (JSON), run once: for tests of
// modules through the platform. (One run per test case: SystemC elaborates once per
// process.)
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include "flynn/platform/platform.h"
#include "flynn/platform/stats_writer.h"

namespace flynn_test {

struct json_platform {
  std::filesystem::path dir;
  flynn::module_registry reg;
  std::unique_ptr<flynn::platform> p;

  explicit json_platform(const nlohmann::json& scenario) {
    dir = std::filesystem::temp_directory_path() / ("flynn-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "s.json") << scenario.dump(2);
    flynn::register_builtin_modules(reg);
    p = std::make_unique<flynn::platform>(flynn::load_scenario_doc((dir / "s.json").string()), reg);
  }
  ~json_platform() { std::filesystem::remove_all(dir); }
  // Runs; the run must succeed (its checks included).
  void run(std::uint64_t max_cycles = 10000000) {
    const auto r = p->run(max_cycles);
    INFO(r.message);
    REQUIRE_FALSE(r.failed());
  }
  nlohmann::json stats(const std::string& module) const { return flynn::stats_to_json(p->find(module)->stats()); }
};

// A binding list from pairs: bindings({{"a.out", "b.port0"}, ...}).
inline nlohmann::json bindings(std::initializer_list<std::pair<const char*, const char*>> pairs) {
  nlohmann::json b = nlohmann::json::array();
  for (const auto& [from, to] : pairs) b.push_back(nlohmann::json::array({from, to}));
  return b;
}

}  // namespace flynn_test

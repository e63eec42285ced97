// libFuzzer target: the scenario loader (JSON, extends, --set overrides) and the scenario's
// top-level checks. Bad input must end in an input_error, never in a crash or another
// exception.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "flynn/platform/errors.h"
#include "flynn/platform/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/flynn-fuzz-scenario-" + std::to_string(getpid()) + ".json";
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The last line, if it looks like PATH=VALUE, is also tried as an override.
  const auto nl = text.rfind('\n');
  const std::string last = nl == std::string::npos ? "" : text.substr(nl + 1);
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
  }
  try {
    flynn::scenario_doc sd = flynn::load_scenario_doc(path);
    if (last.find('=') != std::string::npos) flynn::apply_override(sd, last);
    (void)flynn::parse_scenario(sd);
  } catch (const flynn::input_error&) {
  }
  return 0;
}

// libsystemc refers to sc_main; libFuzzer (or replay_main.cpp) provides main, and nothing
// here elaborates SystemC.
extern "C" int sc_main(int, char*[]) { return 0; }

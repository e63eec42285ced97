// Errors the platform reports. input_error: bad scenario, program or parameters (exit 2,
// before anything runs). A failure of the simulated system (exit 1) is a run_result, not an
// exception (platform.h).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace flynn {

class input_error : public std::runtime_error {
 public:
  // file: the file the bad value came from; path: its JSON path (dotted, [i] for arrays).
  input_error(const std::string& file, const std::string& path, const std::string& expected,
              const std::string& found);
  explicit input_error(const std::string& message) : std::runtime_error(message) {}
};

// The text of an input file (program, kernel, workload data); input_error
// "PATH: cannot read file" when it cannot be read.
std::string read_source(const std::string& path);

// "did you mean 'x'?" for the candidate nearest to `word` (empty when nothing is close).
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace flynn

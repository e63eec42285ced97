// Errors the platform reports. input_error: bad scenario, program or parameters (exit 2,
// before anything runs). sim_failure: the simulated system failed (exit 1).
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

class sim_failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "did you mean 'x'?" for the candidate nearest to `word` (empty when nothing is close).
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace flynn

// Errors the platform reports. input_error: bad scenario, program or parameters (exit 2,
// before anything runs). A failure of the simulated system (exit 1) is a run_result, not an
// exception (platform.h).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace flynn {

class input_error : public std::runtime_error {
 public:
  // file: the file the bad value came from; path: its JSON path (dotted, [i] for arrays).
  input_error(const std::string& file, const std::string& path, const std::string& expected,
              const std::string& found);
  // Control characters in the message (but newlines and tabs) are written as \\xNN, so that
  // no input puts terminal controls or a NUL into what is printed.
  explicit input_error(const std::string& message) : std::runtime_error(printable(message)) {}

  static std::string printable(const std::string& message);
};

// Every input file (scenario, extends, sweep, program, kernel, PTX) is read through
// read_source: only a regular file is read (a FIFO, device, socket or directory is bad input,
// so nothing blocks or reads without end), and at most max_input_bytes of it (a larger file is
// bad input). `what` names the kind of file in the messages ("a scenario file (JSON)").
constexpr std::uint64_t max_input_bytes = std::uint64_t(16) << 20;  // 16 MiB
std::string read_source(const std::string& path, const std::string& what = "an input file");

// A short excerpt of input text for a message, in single quotes: at most `max` bytes,
// control characters, quotes, backslashes and bytes >= 0x80 escaped (\n, \t, \xNN), "..."
// after a cut, so that a message never carries much of a file or raw terminal controls.
std::string excerpt(const std::string& text, std::size_t max = 40);

// Names that become folder names (scenarios, sweeps) hold letters, digits, '_', '-' and '.'
// only: the first character of `name` that is not one of them, described for a message
// ("'\\n' at character 2"), or "" when there is none.
std::string unsafe_name_char(const std::string& name);

// "did you mean 'x'?" for the candidate nearest to `word` (empty when nothing is close).
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace flynn

// libFuzzer target: sweep files, and the Slurm job they give. Bad input must end in an
// input_error, never in a crash or another exception. A sweep that is accepted must give a
// job that no value of it can inject into: each task's argument file decodes to exactly the
// point's arguments (no value splits or adds one), and job.sh holds no control character
// but its line ends, one job name of safe characters and one array line of the right size.
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

#include "flynn/platform/errors.h"
#include "flynn/platform/sweep.h"

namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "fuzz_sweep: %s\n", what);
  std::abort();
}

std::vector<std::string> decode(const std::string& file) {
  std::vector<std::string> r;
  std::size_t at = 0;
  while (at < file.size()) {
    const std::size_t end = file.find('\0', at);
    if (end == std::string::npos) broken("a task file does not end with NUL");
    r.push_back(file.substr(at, end - at));
    at = end + 1;
  }
  return r;
}

bool safe_name(const std::string& s) {
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return !s.empty();
}

void check_script(const std::string& script, std::size_t tasks) {
  std::size_t names = 0, arrays = 0, pos = 0;
  for (char c : script)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) broken("a control character in job.sh");
  while (pos < script.size()) {
    const std::size_t nl = script.find('\n', pos);
    const std::string line = script.substr(pos, nl - pos);
    pos = nl == std::string::npos ? script.size() : nl + 1;
    static const std::string name = "#SBATCH --job-name=\"flynn-", array = "#SBATCH --array=";
    if (line.rfind(name, 0) == 0) {
      ++names;
      if (line.back() != '"' || !safe_name(line.substr(name.size(), line.size() - name.size() - 1)))
        broken("an unsafe job name");
    } else if (line.rfind(array, 0) == 0) {
      ++arrays;
      if (line != array + "0-" + std::to_string(tasks - 1)) broken("the array does not cover the points");
    } else if (line.rfind("#SBATCH", 0) == 0 && line.rfind("#SBATCH --output=", 0) != 0) {
      broken("an #SBATCH line the job does not write");
    }
  }
  if (names != 1 || arrays != 1) broken("job.sh lost its job name or array line");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const flynn::sweep_slurm_files job =
        flynn::sweep_slurm_job("/tmp/flynn-fuzz/sweep.json", text, "/tmp/flynn-fuzz/out", "/opt/flynn/bin/flynn");
    if (job.task_files.size() != job.task_argv.size() || job.task_files.empty()) broken("no task per point");
    for (std::size_t t = 0; t < job.task_files.size(); ++t)
      if (decode(job.task_files[t]) != job.task_argv[t]) broken("a task file does not decode to its arguments");
    check_script(job.script, job.task_files.size());
  } catch (const flynn::input_error&) {
  }
  return 0;
}

// libsystemc refers to sc_main; libFuzzer (or replay_main.cpp) provides main, and nothing
// here elaborates SystemC.
extern "C" int sc_main(int, char*[]) { return 0; }

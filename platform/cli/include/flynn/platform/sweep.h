// flynn sweep: a base scenario and parameter axes (a grid or zipped lists), one run and
// output folder per point, locally on all cores or as a Slurm job array, and one results
// table (CSV and JSON). Every point is checked before anything runs; a finished point is
// kept while its configuration and input files are unchanged. See docs/sweeps.md.
#pragma once

#include <string>
#include <vector>

namespace flynn {

// The Slurm job a sweep file gives when every point is submitted, for tests and the fuzzer:
// job.sh, and per task its argument file (the point's log, then flynn and its arguments, each
// ended by a NUL byte) beside the arguments the task must receive. Throws input_error as
// `flynn sweep` does; reads and writes no file.
struct sweep_slurm_files {
  std::string script;
  std::vector<std::string> task_files;
  std::vector<std::vector<std::string>> task_argv;
};
sweep_slurm_files sweep_slurm_job(const std::string& file, const std::string& text, const std::string& outdir,
                                  const std::string& exe);

// The arguments after "sweep"; returns the exit status (0 every point ok, 1 some failed,
// are stale or did not run; bad input, exit status 2, is thrown as input_error).
int sweep_main(const std::vector<std::string>& args);

}  // namespace flynn

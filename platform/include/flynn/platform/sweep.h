// flynn sweep: a base scenario and parameter axes (a grid or zipped lists), one run and
// output folder per point, locally on all cores (resumable: finished points are kept) or
// as a Slurm job array, and one results table (CSV and JSON). See docs/sweeps.md.
#pragma once

#include <string>
#include <vector>

namespace flynn {


// The arguments after "sweep"; returns the exit status (0 every point ok, 1 some failed
// or did not run, 2 bad input is thrown as input_error).
int sweep_main(const std::vector<std::string>& args);

}  // namespace flynn

// flynn sweep: a base scenario and parameter axes (a grid or zipped lists), one run and
// output folder per point, locally on all cores or as a Slurm job array, and one results
// table (CSV and JSON). Every point is checked before anything runs; a finished point is
// kept while its configuration and input files are unchanged. See docs/sweeps.md.
#pragma once

#include <string>
#include <vector>

namespace flynn {


// The arguments after "sweep"; returns the exit status (0 every point ok, 1 some failed,
// are stale or did not run; bad input, exit status 2, is thrown as input_error).
int sweep_main(const std::vector<std::string>& args);

}  // namespace flynn

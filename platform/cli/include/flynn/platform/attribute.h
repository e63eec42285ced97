// flynn attribute: a scenario run once as it is and once with each timing resource made
// ideal in turn (the modules' `ideal` parameter), as a sweep; prints the speed-up each would
// bring and writes attribution.json. See docs/attribution.md.
#pragma once

#include <string>
#include <vector>

namespace flynn {

extern const char* attribute_usage;

// The arguments after "attribute"; returns the exit status (0 every run ok, 1 some failed;
// bad input, exit status 2, is thrown as input_error).
int attribute_main(const std::vector<std::string>& args);

}  // namespace flynn

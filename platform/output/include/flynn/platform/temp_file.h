// An anonymous temporary file: created in $TMPDIR (or /tmp when unset or empty), removed
// from its folder at once, so nothing is left behind however the process ends.
#pragma once

#include <cstdio>

namespace flynn {

// The open file (read and write), or nullptr with errno set when none can be made.
std::FILE* anonymous_temp_file();

}  // namespace flynn

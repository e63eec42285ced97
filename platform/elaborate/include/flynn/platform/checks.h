// Functional checks of a finished run against golden functional models.
#pragma once

#include <vector>

namespace flynn {

class module;
class instance_lookup;
struct run_result;

// Runs every check that applies to the modules, asking each through the golden-model
// interfaces (flynn/common/golden.h) it implements; records passes in r.checks and the
// first failure as r.state = mismatch with a message.
void run_functional_checks(const std::vector<module*>& modules, const instance_lookup& lookup, run_result& r);

}  // namespace flynn

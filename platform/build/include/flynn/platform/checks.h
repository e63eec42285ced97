// Functional checks of a finished run against golden functional models.
#pragma once

namespace flynn {

class platform;
struct run_result;

// Runs every check that applies to the platform's modules; records passes in r.checks and
// the first failure as r.state = mismatch with a message.
void run_functional_checks(const platform& p, run_result& r);

}  // namespace flynn

// The `flynn` command: run, validate, list. Returns the process exit status
// (0 success, 1 simulation failure, 2 bad input).
#pragma once

namespace flynn {

int cli_main(int argc, char** argv);

}  // namespace flynn

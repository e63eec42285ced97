#include <systemc>

#include "flynn/platform/cli.h"

#include <cstdlib>

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);  // before the kernel starts
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) { return flynn::cli_main(argc, argv); }

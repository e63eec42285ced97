// Catch2 inside sc_main: each test case runs in its own process (ctest), so it may
// elaborate and simulate once.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  return Catch::Session().run(argc, argv);
}

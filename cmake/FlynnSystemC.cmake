# Provides SystemC::systemc (SystemC 2.3.x with TLM-2.0).
# Prefers an installed CMake package (SystemCLanguage) and falls back to pkg-config,
# which is all that Debian's libsystemc-dev ships.
if(TARGET SystemC::systemc)
  return()
endif()

find_package(SystemCLanguage CONFIG QUIET)
if(SystemCLanguage_FOUND AND TARGET SystemC::systemc)
  message(STATUS "SystemC: CMake package ${SystemCLanguage_VERSION}")
  return()
endif()

find_package(PkgConfig REQUIRED)
pkg_check_modules(FLYNN_SYSTEMC REQUIRED IMPORTED_TARGET systemc)
add_library(SystemC::systemc INTERFACE IMPORTED)
target_link_libraries(SystemC::systemc INTERFACE PkgConfig::FLYNN_SYSTEMC)
message(STATUS "SystemC: pkg-config ${FLYNN_SYSTEMC_VERSION}")

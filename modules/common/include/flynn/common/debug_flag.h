// Debug flags: one per family of events a module can report as debug lines (module::debug).
// A flag is a constant object declared by the family that reports it, in its own header, and
// registered with its module types (module_registry::add_debug_flag), so `flynn run --debug`
// and `--debug help` know it; a module tests it by identity. The flags below are the ones
// several families report; the GMMA unit's and the TMA loader's are in their families.
#pragma once

namespace flynn {

struct debug_flag {
  const char* name;         // the --debug name, and the report type "flynn/debug/NAME"
  const char* description;  // for --debug help
};

inline constexpr debug_flag debug_exec{"Exec", "instructions issued: warp, PC, active mask, the instruction with its operands"};
inline constexpr debug_flag debug_mem{"Mem",
                                      "memory accesses: a memory's requests (address, size, lanes, wavefronts, latency), a "
                                      "load/store unit's warp accesses and their transactions"};
inline constexpr debug_flag debug_tlm{"TLM",
                                      "blocking TLM transactions a module sends: socket, command, address, size, lanes, "
                                      "response, issue and response cycles"};
inline constexpr debug_flag debug_sched{"Sched", "scheduling: thread blocks launched into block slots, and the launch finished"};
inline constexpr debug_flag debug_barrier{"Barrier", "bar.sync arrivals and releases, mbarrier operations"};

}  // namespace flynn

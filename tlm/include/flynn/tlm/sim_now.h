// The current simulated time, read inline from the simulation context: the same value as
// sc_core::sc_time_stamp(), without a call into the SystemC library (the models ask for it
// several times per transaction).
#pragma once

#include <systemc>

namespace flynn {

inline const sc_core::sc_time& sim_now() { return sc_core::sc_get_curr_simcontext()->time_stamp(); }

}  // namespace flynn

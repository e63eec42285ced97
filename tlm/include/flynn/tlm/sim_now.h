// The current simulated time, read inline from the simulation context: the same value as
// sc_core::sc_time_stamp(), without a call into the SystemC library (the models ask for it
// several times per transaction); and times made from cycle counts, inline as well.
#pragma once

#include <systemc>
#include <type_traits>

namespace flynn {

inline const sc_core::sc_time& sim_now() { return sc_core::sc_get_curr_simcontext()->time_stamp(); }

// `count` periods of `period` (the largest time when that does not fit in a time value): the
// same value as sc_core::sc_time::from_value(count * period.value()), made inline. sc_time is a
// standard-layout class whose one member is its value, so the object and that member are
// pointer-interconvertible and the value is written through the object's address.
// (from_value also fixes the kernel's time resolution when the value is not zero; it has
// been fixed by then: a non-zero period was made by a constructor that fixes it.)
inline sc_core::sc_time periods(sc_core::sc_time::value_type count, const sc_core::sc_time& period) {
  static_assert(std::is_standard_layout<sc_core::sc_time>::value &&
                    sizeof(sc_core::sc_time) == sizeof(sc_core::sc_time::value_type),
                "sc_time holds its value alone");
  sc_core::sc_time::value_type v = 0;
  if (__builtin_mul_overflow(count, period.value(), &v)) return sc_core::sc_max_time();
  sc_core::sc_time t;
  *reinterpret_cast<sc_core::sc_time::value_type*>(&t) = v;
  return t;
}

}  // namespace flynn

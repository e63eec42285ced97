// Lowering of PTX kernels to the SIMT ISA: live ranges, register allocation, and one SIMT
// instruction per PTX instruction.
#include "flynn/platform/ptx_lower.h"

#include "flynn/platform/errors.h"
#include "ptx_lower_parts.h"

namespace flynn::ptx {

[[noreturn]] void refuse(const kernel& k, const instruction& in, const std::string& expected) {
  throw input_error(k.file + ":" + std::to_string(in.line) + ": expected " + expected + ", found '" + in.text + "'");
}

lowered lower(const module& m, const kernel& k) {
  const live_intervals live = liveness(k);
  lowered out;
  out.code.name = k.name;
  out.code.file = k.file;
  allocate(k, live, out);
  select(m, k, live, out);
  return out;
}

}  // namespace flynn::ptx

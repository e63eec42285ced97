// libFuzzer target: the PTX reader, then for every kernel it reads the lowering to the SIMT
// ISA and the golden PTX interpreter (two blocks of 128 threads, a warpgroup, in 64 x 2,
// small memories, a small tensor map for each CUtensorMap parameter the kernel copies
// through, an instruction limit). Reading and lowering errors must be input_errors; the
// interpreter must report faults, never crash.
#include <cstdint>
#include <string>
#include <vector>

#include "flynn/platform/errors.h"
#include "flynn/platform/ptx.h"
#include "flynn/platform/ptx_interp.h"
#include "flynn/platform/ptx_lower.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto read = flynn::fuzz::read_input(data, size, "fuzz.ptx", flynn::ptx::read);
  if (!read) return 0;
  const flynn::ptx::module& m = *read;
  for (const auto& k : m.kernels) {
    flynn::ptx::lowered low;
    try {
      low = flynn::ptx::lower(m, k);
    } catch (const flynn::input_error&) {
      continue;
    }
    flynn::simt::launch l;
    l.grid = 2;
    l.block = 128;
    l.grid_xyz = {2, 1, 1};
    l.block_xyz = {64, 2, 1};
    l.params.assign((k.param_bytes + 3) / 4, 256);  // every pointer at 256, every count 256
    l.shared_bytes = (k.static_shared + 4096 + 3) / 4 * 4;
    for (const unsigned p : low.tensor_map_params) {  // 16 x 64 bf16 at 1024, 8 x 8 boxes
      flynn::tensor_descriptor d;
      d.rank = 2;
      d.elem_bytes = 2;
      d.global_base = 1024;
      d.dims = {64, 16, 0, 0, 0};
      d.strides = {0, 128, 0, 0, 0};
      d.box = {8, 8, 0, 0, 0};
      l.tensor_maps.push_back(d);
      l.tensor_map_offsets.push_back(k.params[p].offset);
    }
    if (l.shared_bytes > (1u << 16)) continue;
    std::vector<unsigned char> global(4096, 0);
    flynn::simt::interp_config c;
    c.max_instructions = 20000;
    (void)flynn::ptx::interpret(m, k, l, global, c);
  }
  return 0;
}

// libsystemc refers to sc_main; libFuzzer (or replay_main.cpp) provides main, and nothing
// here elaborates SystemC.
extern "C" int sc_main(int, char*[]) { return 0; }

// libFuzzer target: the SIMT kernel assembler, then the golden interpreter on whatever
// assembles (one block of 64 threads, small memories, an instruction limit). Assembly
// errors must be input_errors; the interpreter must report faults, never crash.
#include <cstdint>
#include <string>
#include <vector>

#include "flynn/platform/simt_asm.h"
#include "flynn/platform/simt_interp.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto read = flynn::fuzz::read_input(data, size, "fuzz.s", flynn::simt::assemble);
  if (!read) return 0;
  const flynn::simt::kernel& k = *read;
  flynn::simt::launch l;
  l.grid = 1;
  l.block = 64;
  l.params = {0, 64, 128, 256};
  l.shared_bytes = 1024;
  flynn::tensor_descriptor d;
  d.rank = 2;
  d.dims = {16, 16, 0, 0, 0};
  d.strides = {0, 32, 0, 0, 0};
  d.box = {16, 4, 0, 0, 0};
  l.tensor_maps = {d};
  std::vector<unsigned char> global(4096, 0);
  flynn::simt::interp_config c;
  c.max_instructions = 20000;
  (void)flynn::simt::interpret(k, l, global, c);
  return 0;
}

// libsystemc refers to sc_main; libFuzzer (or replay_main.cpp) provides main, and nothing
// here elaborates SystemC.
extern "C" int sc_main(int, char*[]) { return 0; }

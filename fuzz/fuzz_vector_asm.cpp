// libFuzzer target: the vector machine assembler, then the golden interpreter on whatever
// assembles (its data loaded, an instruction limit).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "flynn/platform/vector_asm.h"
#include "flynn/platform/vector_interp.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto read = flynn::fuzz::read_input(data, size, "fuzz.s", flynn::vec::assemble);
  if (!read) return 0;
  const flynn::vec::program& p = *read;
  std::vector<unsigned char> memory(65536, 0);
  for (const auto& b : p.data)
    for (std::size_t i = 0; i < b.words.size(); ++i)
      if (b.address + 8 * (i + 1) <= memory.size()) std::memcpy(&memory[b.address + 8 * i], &b.words[i], 8);
  flynn::vec::interp_config c;
  c.max_instructions = 20000;
  (void)flynn::vec::interpret(p, memory, c);
  return 0;
}

// libsystemc refers to sc_main; libFuzzer (or replay_main.cpp) provides main, and nothing
// here elaborates SystemC.
extern "C" int sc_main(int, char*[]) { return 0; }

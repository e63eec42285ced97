// What the libFuzzer targets share: the input read by a front end (assembler, PTX reader),
// where a rejected input is an input_error and nothing more is run on it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "flynn/platform/errors.h"

namespace flynn::fuzz {

// read(text, "fuzz.<ext>") on the input as text; empty when it throws input_error (any
// other exception, or a crash, is a finding).
template <class Read>
auto read_input(const std::uint8_t* data, std::size_t size, const char* file, Read&& read)
    -> std::optional<decltype(read(std::string(), file))> {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    return read(text, file);
  } catch (const flynn::input_error&) {
    return std::nullopt;
  }
}

}  // namespace flynn::fuzz

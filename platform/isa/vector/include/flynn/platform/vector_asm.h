// Assembler for the vector machine's assembly language (docs/isa/vector.md).
// Errors are input_error with the message "FILE:LINE:COL: expected X, found Y".
#pragma once

#include <string>

#include "flynn/vector/isa.h"

namespace flynn::vec {

// Assembles `text`; `file` names it in error messages and is stored in program.file.
program assemble(const std::string& text, const std::string& file);

// Reads and assembles the file at `path` (input_error "PATH: cannot read file" if it
// cannot be read).
program assemble_file(const std::string& path);

}  // namespace flynn::vec

// Assembler for the SIMT kernel language (docs/isa/simt.md).
// Errors are input_error with the message "FILE:LINE:COL: expected X, found Y".
#pragma once

#include <string>

#include "flynn/simt/isa.h"

namespace flynn::simt {

// Assembles `text`; `file` names it in error messages and is stored in kernel.file. The
// kernel is named by its `.kernel NAME` directive, else by the stem of `file`.
kernel assemble(const std::string& text, const std::string& file);

// Reads and assembles the file at `path` (input_error "PATH: cannot read file" if it
// cannot be read).
kernel assemble_file(const std::string& path);

}  // namespace flynn::simt

// What a module type offers a platform, read from the type itself: its parameters, its
// sockets and links, its statistics and its trace signals. `flynn list` prints it; the
// module pages' generated tables come from it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "flynn/common/registry.h"

namespace flynn {

// One module type as JSON: {"type", "description", "parameters": [{name, kind, default,
// unit, description}], "sockets": [{name, direction, protocol, lanes}], "statistics":
// [{name, kind, unit, description}], "trace_signals": [{name, width, format}]} (format:
// how a waveform view shows the signal: binary, decimal or hex).
// Sockets, statistics and signals are those of an instance built with the default
// parameters (a parameter that adds banks or ports adds per-bank entries of the same names).
nlohmann::json describe_module_type(const module_registry& registry, const std::string& type);

// The same as Markdown (a section with four tables) and as aligned plain text.
std::string module_markdown(const nlohmann::json& info, const std::string& heading = "###");
std::string module_text(const nlohmann::json& info);

}  // namespace flynn

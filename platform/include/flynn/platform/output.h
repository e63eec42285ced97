// The output folder of a run: config.resolved.json, stats.json, stats.txt, host.json and,
// with tracing, waves.vcd + waves.gtkw. Written into a temporary sibling folder and moved
// into place at the end, so a folder is either a complete result or absent.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace flynn {

// Throws input_error if `dir` exists and is not a previous Flynn output folder.
void check_outdir(const std::string& dir);

// Calls write(tmpdir) to fill a temporary folder, then replaces `dir` with it.
void publish_outdir(const std::string& dir, const std::function<void(const std::string&)>& write);

// Writes `text` to `path` (within a folder being prepared).
void write_file(const std::string& path, const std::string& text);

// Replaces the file `path` atomically: writes "<path>.tmp-<pid>", then renames it over
// `path`. Such temporary files left next to `path` by killed processes are removed first.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace flynn

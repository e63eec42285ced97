// The output folder of a run: config.resolved.json, stats.json, stats.txt, host.json,
// provenance.json, inputs/ and, with tracing, waves.vcd + waves.gtkw. Written into a
// temporary sibling folder and moved into place at the end, so a folder is either a
// complete result or absent.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace flynn {

class platform;
struct scenario_doc;

// The folder that holds results folders: `option` (--out-root) when given, else $FLYNN_OUT,
// else "out" (relative to the current folder).
std::string output_root(const std::string& option);

// Throws input_error if `dir` exists and is not a previous Flynn output folder, or holds
// files Flynn did not write there (the marker lists what it wrote; for a marker of an
// earlier version that lists nothing, only the names a run writes are Flynn's), or is a
// symbolic link (never followed).
void check_outdir(const std::string& dir);


// Calls write(tmpdir) to fill a temporary folder, then replaces `dir` with it.
void publish_outdir(const std::string& dir, const std::function<void(const std::string&)>& write);

// Writes `text` to `path` (within a folder being prepared).
void write_file(const std::string& path, const std::string& text);

// Replaces the file `path` atomically: writes "<path>.tmp-<pid>", then renames it over
// `path`. Such temporary files left next to `path` by killed processes are removed first.
void write_file_atomic(const std::string& path, const std::string& text);

// Provenance: what a run was made of, so that its folder can be traced back to its inputs
// and run again.

// The version of Flynn and the source revision it was built from ("unknown" when the build
// did not record one, e.g. outside a git checkout).
const char* flynn_version();
const char* flynn_revision();

// FNV-1a (64 bits) of `bytes`, as 16 lowercase hexadecimal digits.
std::string fnv1a64_hex(const std::string& bytes);

// One file a run reads.
struct run_input {
  std::string role;       // "scenario", "extends", "program" or "kernel"
  std::string file;       // as opened (relative to the working folder when given relative)
  std::string json_path;  // where the scenario names it ("workload.kernel"); empty for the scenario
  std::string copy;       // the copy in the output folder ("inputs/vecadd.s"), or empty
  std::string text;       // its contents as read
};

// A run's record: the configuration it saves, the files it read and its fingerprint.
struct run_record {
  // config.resolved.json: the effective scenario (every default filled in, calibration
  // targets, the effective cycle limit), its workload files named by their copies in
  // inputs/, so that `flynn run DIR/config.resolved.json` runs the same simulation again.
  nlohmann::json config;
  std::vector<run_input> inputs;  // the scenario, the files it extends, workload files
  // Hash of the Flynn version, `config` and the contents of every input: two runs with
  // the same fingerprint simulate the same thing (paths and command-line spelling aside).
  std::string fingerprint;
};

// The record of the platform built from `sd`, run with the cycle limit `max_cycles`.
// Throws input_error when an input file can no longer be read.
run_record make_run_record(const platform& p, const scenario_doc& sd, std::uint64_t max_cycles);

// provenance.json of a run whose output folder is `outdir`: version, revision, the command
// line, the --set overrides, every input file (path relative to `outdir`, size, FNV-1a 64)
// and the fingerprint. Nothing in it depends on the time or the host, so the same command
// gives the same file.
nlohmann::json provenance_json(const run_record& r, const std::vector<std::string>& command_line,
                               const std::vector<std::string>& sets, const std::string& outdir);

// Writes the copies of the workload files (inputs/...) into `dir`, a folder being prepared.
void write_run_inputs(const std::string& dir, const run_record& r);

// The fingerprint recorded in the provenance.json of the finished output folder `dir`
// (empty when there is none).
std::string recorded_fingerprint(const std::string& dir);

}  // namespace flynn

#include "flynn/platform/output.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "flynn/platform/errors.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/scenario.h"
#include "flynn/platform/workload.h"

#ifndef FLYNN_VERSION
#define FLYNN_VERSION "0"
#endif
// Written by the build (cmake/revision.cmake) where it knows the revision.
#if __has_include("flynn_revision.h")
#include "flynn_revision.h"
#endif
#ifndef FLYNN_REVISION
#define FLYNN_REVISION "unknown"
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace flynn {

namespace {
const char* marker = ".flynn-output";           // a complete Flynn output folder
const char* partial_marker = ".flynn-partial";  // one being written
}

std::string output_root(const std::string& option) {
  if (!option.empty()) return option;
  const char* env = std::getenv("FLYNN_OUT");
  return env && *env ? env : "out";
}

namespace {

// The files of an output folder (paths relative to it, folders ending in '/'), its markers
// left out.
std::vector<std::string> folder_entries(const fs::path& dir) {
  std::vector<std::string> r;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::string rel = it->path().lexically_relative(dir).string();
    if (rel == marker || rel == partial_marker) continue;
    if (it->is_directory(ec)) rel += "/";
    r.push_back(rel);
  }
  std::sort(r.begin(), r.end());
  return r;
}

// What a marker lists: the entries Flynn wrote (after its first line). A marker without a
// list (written by an earlier version) lists nothing: nullopt.
std::optional<std::set<std::string>> marker_entries(const fs::path& dir) {
  std::ifstream in(dir / marker);
  std::set<std::string> r;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line))
    if (!line.empty()) r.insert(line);
  if (r.empty()) return std::nullopt;
  return r;
}

// The names a run writes in its folder (for folders whose marker does not list them).
bool flynn_name(const std::string& entry) {
  static const std::set<std::string> names = {"config.resolved.json", "stats.json", "stats.txt", "host.json",
                                              "provenance.json",      "trace.json", "waves.vcd", "waves.gtkw",
                                              "inputs/"};
  if (names.count(entry)) return true;
  if (entry.rfind("inputs/", 0) == 0 && entry.find('/', 7) == std::string::npos) return true;  // inputs/FILE
  return entry.rfind("waves.", 0) == 0 && entry.size() > 11 && entry.find('/') == std::string::npos &&
         entry.compare(entry.size() - 5, 5, ".gtkw") == 0;  // a view: waves.NAME.gtkw
}

std::string names_of(const std::vector<std::string>& entries) {
  std::string names;
  for (std::size_t i = 0; i < entries.size() && i < 5; ++i) names += (i ? ", " : "") + entries[i];
  if (entries.size() > 5) names += " and " + std::to_string(entries.size() - 5) + " more";
  return names;
}

}  // namespace

void check_outdir(const std::string& dir) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(dir, ec);
  if (!fs::exists(st)) return;
  // A link is never followed: what it points at may be another results folder, or anything.
  if (fs::is_symlink(st))
    throw input_error("--outdir " + dir +
                      ": expected a new folder or a previous Flynn output folder, found a symbolic link "
                      "(nothing is deleted or written through it)");
  if (!fs::is_directory(st) || !fs::is_regular_file(fs::symlink_status(fs::path(dir) / marker, ec)))
    throw input_error("--outdir " + dir +
                      ": expected a new folder or a previous Flynn output folder, found an "
                      "existing " + std::string(fs::is_directory(st) ? "folder" : "file") +
                      " that is not one (nothing is deleted)");
  // A rerun replaces the folder: it must hold nothing but what Flynn wrote there. A marker
  // of an earlier version does not list what it wrote: then only the names a run writes
  // are taken for Flynn's.
  const auto ours = marker_entries(dir);
  std::vector<std::string> foreign;
  for (const auto& e : folder_entries(dir))
    if (ours ? !ours->count(e) : !flynn_name(e)) foreign.push_back(e);
  if (!foreign.empty())
    throw input_error("--outdir " + dir + ": expected a previous Flynn output folder holding only what Flynn wrote, "
                      "found " + names_of(foreign) + " not written by Flynn (move them away or choose another --outdir; "
                      "nothing is deleted)");
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

namespace {

bool process_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

// Whether `name` is "<prefix><pid>" for a process that is gone.
bool left_by_dead_process(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0) return false;
  const std::string pid = name.substr(prefix.size());
  if (pid.empty() || pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) return false;
  return !process_alive(std::stol(pid));
}

// Removes an output folder so that a run killed at any moment of it leaves a folder the next
// run still recognises as Flynn's: everything but the markers first, then the markers, then
// the (now empty) folder.
void remove_output_folder(const fs::path& dir, std::error_code& ec) {
  ec.clear();
  const fs::file_status st = fs::symlink_status(dir, ec);
  ec.clear();
  if (!fs::is_directory(st)) return;  // absent, or a link (never followed) or a file: left alone
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir, ec)) entries.push_back(e.path());
  for (const auto& e : entries) {
    const std::string n = e.filename().string();
    if (n != marker && n != partial_marker) fs::remove_all(e, ec);
  }
  fs::remove(dir / marker, ec);
  fs::remove(dir / partial_marker, ec);
  fs::remove_all(dir, ec);
}

// Folders next to `final_dir` left by a run that was killed while publishing:
// "<name>.tmp-<pid>" (being written) and "<name>.old.tmp-<pid>" (the previous results being
// replaced). They are removed when their process is gone and they carry one of Flynn's
// markers, or are empty (a run killed between creating the folder and marking it); anything
// else is left alone.
void remove_stale_partials(const fs::path& final_dir) {
  const fs::path parent = final_dir.has_parent_path() ? final_dir.parent_path() : fs::path(".");
  const std::string base = final_dir.filename().string();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string n = e.path().filename().string();
    if (!left_by_dead_process(n, base + ".old.tmp-") && !left_by_dead_process(n, base + ".tmp-")) continue;
    if (!e.is_directory(ec) || e.is_symlink(ec)) continue;  // a link is left alone, its target untouched
    if (!fs::exists(e.path() / partial_marker, ec) && !fs::exists(e.path() / marker, ec) &&
        !fs::is_empty(e.path(), ec))
      continue;
    remove_output_folder(e.path(), ec);
  }
}

// Files "<name>.tmp-<pid>" next to `path` left by a process killed while writing it.
void remove_stale_temp_files(const fs::path& path) {
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const std::string prefix = path.filename().string() + ".tmp-";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec))
    if (left_by_dead_process(e.path().filename().string(), prefix) && fs::is_regular_file(e.symlink_status(ec)))
      fs::remove(e.path(), ec);
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& text) {
  remove_stale_temp_files(path);
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  try {
    write_file(tmp, text);
    fs::rename(tmp, path);
  } catch (...) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
}

void publish_outdir(const std::string& dir_arg, const std::function<void(const std::string&)>& write) {
  // "out/x/" and "out/./x" name the same folder as "out/x".
  std::string dir = fs::path(dir_arg).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  check_outdir(dir);
  if (dir == "." || dir == ".." || dir == "/" || fs::path(dir).filename() == "..")
    throw input_error("--outdir " + dir_arg + ": expected a folder to create or replace, found '" + dir + "'");
  const fs::path final_dir(dir);
  const std::string tag = ".tmp-" + std::to_string(::getpid());
  const fs::path tmp = final_dir.string() + tag;
  const fs::path old = final_dir.string() + ".old" + tag;
  if (final_dir.has_parent_path()) fs::create_directories(final_dir.parent_path());
  remove_stale_partials(final_dir);
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  try {
    write_file((tmp / partial_marker).string(), "Flynn output being written\n");
    write(tmp.string());
    // The marker lists what was written: a rerun replaces only a folder holding nothing else.
    std::string listing = "Flynn output folder\n";
    for (const auto& e : folder_entries(tmp)) listing += e + "\n";
    write_file((tmp / marker).string(), listing);
    fs::remove(tmp / partial_marker);
  } catch (...) {
    std::error_code ec;
    remove_output_folder(tmp, ec);
    throw;
  }
  // Replace: an atomic exchange where the file system has one, so that a run killed at any
  // moment leaves at `dir` either the previous complete results or the new ones.
  std::error_code exists_ec;
  if (fs::exists(fs::symlink_status(final_dir, exists_ec))) {
    std::error_code ec;
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, final_dir.c_str(), RENAME_EXCHANGE) == 0) {
      remove_output_folder(tmp, ec);  // now the previous results
      if (ec) throw fs::filesystem_error("cannot remove the previous results", tmp, ec);
      return;
    }
    fs::rename(final_dir, old);
  }
  fs::rename(tmp, final_dir);
  std::error_code ec;
  remove_output_folder(old, ec);
  if (ec) throw fs::filesystem_error("cannot remove the previous results", old, ec);
}

const char* flynn_version() { return FLYNN_VERSION; }
const char* flynn_revision() { return FLYNN_REVISION[0] ? FLYNN_REVISION : "unknown"; }

std::string fnv1a64_hex(const std::string& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) s[static_cast<std::size_t>(i)] = digits[h & 0xf];
  return s;
}

namespace {

// `file` relative to the folder `dir` (symbolic links resolved where they exist), so that
// a saved record holds no absolute path.
std::string relative_to(const std::string& file, const std::string& dir) {
  std::error_code ec;
  const fs::path rel = fs::relative(fs::absolute(file, ec), fs::absolute(dir, ec), ec);
  return ec || rel.empty() ? fs::path(file).lexically_normal().string() : rel.string();
}

}  // namespace

run_record make_run_record(const platform& p, const scenario_doc& sd, std::uint64_t max_cycles) {
  run_record r;
  // The scenario and the files it extends, as load_scenario_doc read them: every one.
  for (std::size_t i = 0; i < sd.sources.size(); ++i) {
    run_input in;
    in.role = i == 0 ? "scenario" : "extends";
    in.json_path = i == 0 ? "" : "extends";
    in.file = sd.sources[i].first;
    in.text = sd.sources[i].second;
    r.inputs.push_back(std::move(in));
  }

  r.config = p.resolved();
  // The effective cycle limit (--max-cycles included) and the calibration targets (checked
  // after the run, so they change its result) belong to what runs again.
  r.config["max_cycles"] = max_cycles;
  if (sd.doc.contains("calibration")) r.config["calibration"] = sd.doc["calibration"];
  // Workload files are named relative to the file that names them, which the saved
  // configuration is not: they are copied into the output folder and named there.
  if (r.config.contains("workload") && r.config["workload"].is_object()) {
    json& w = r.config["workload"];
    const bool ptx = w.contains("ptx");  // (then "kernel" names the entry, not a file)
    for (const char* key : {"program", "kernel", "ptx"}) {
      if (!w.contains(key) || !w[key].is_string() || (ptx && std::string(key) == "kernel")) continue;
      run_input in;
      in.role = key;
      in.json_path = std::string("workload.") + key;
      in.file = workload_file(sd, in.json_path, w[key].get<std::string>());
      in.text = read_source(in.file, "a workload file");
      in.copy = "inputs/" + fs::path(in.file).filename().string();
      w[key] = in.copy;
      r.inputs.push_back(std::move(in));
    }
  }

  std::string key = std::string("flynn ") + flynn_version() + "\n" + r.config.dump() + "\n";
  for (const auto& in : r.inputs) key += in.role + " " + fnv1a64_hex(in.text) + "\n";
  r.fingerprint = fnv1a64_hex(key);
  return r;
}

nlohmann::json provenance_json(const run_record& r, const std::vector<std::string>& command_line,
                               const std::vector<std::string>& sets, const std::string& outdir) {
  json inputs = json::array();
  for (const auto& in : r.inputs) {
    json e = {{"role", in.role},
              {"file", relative_to(in.file, outdir)},
              {"bytes", in.text.size()},
              {"fnv1a64", fnv1a64_hex(in.text)}};
    if (!in.json_path.empty()) e["named_at"] = in.json_path;
    if (!in.copy.empty()) e["copy"] = in.copy;
    inputs.push_back(std::move(e));
  }
  return json{{"flynn_version", flynn_version()},
              {"source_revision", flynn_revision()},
              {"command_line", command_line},
              {"sets", sets},
              {"inputs", inputs},
              {"fingerprint", r.fingerprint}};
}

void write_run_inputs(const std::string& dir, const run_record& r) {
  for (const auto& in : r.inputs) {
    if (in.copy.empty()) continue;
    fs::create_directories(fs::path(dir) / fs::path(in.copy).parent_path());
    write_file(dir + "/" + in.copy, in.text);
  }
}

std::string recorded_fingerprint(const std::string& dir) {
  std::ifstream in(dir + "/provenance.json", std::ios::binary);
  if (!in) return {};
  const json j = json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("fingerprint") || !j["fingerprint"].is_string()) return {};
  return j["fingerprint"].get<std::string>();
}

}  // namespace flynn

#include "flynn/platform/output.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>

#include <filesystem>
#include <fstream>

#include "flynn/platform/errors.h"

namespace fs = std::filesystem;

namespace flynn {

namespace {
const char* marker = ".flynn-output";           // a complete Flynn output folder
const char* partial_marker = ".flynn-partial";  // one being written
}

void check_outdir(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  if (!fs::is_directory(dir, ec) || !fs::exists(fs::path(dir) / marker, ec))
    throw input_error("--outdir " + dir +
                      ": expected a new folder or a previous Flynn output folder, found an "
                      "existing " + std::string(fs::is_directory(dir, ec) ? "folder" : "file") +
                      " that is not one (nothing is deleted)");
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

// Folders next to `final_dir` left by a run that was killed while publishing:
// "<name>.tmp-<pid>" (being written) and "<name>.old.tmp-<pid>" (the previous results being
// replaced). They are removed when their process is gone and they carry one of Flynn's
// markers; anything else is left alone.
void remove_stale_partials(const fs::path& final_dir) {
  const fs::path parent = final_dir.has_parent_path() ? final_dir.parent_path() : fs::path(".");
  const std::string base = final_dir.filename().string();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string n = e.path().filename().string();
    if (!left_by_dead_process(n, base + ".old.tmp-") && !left_by_dead_process(n, base + ".tmp-")) continue;
    if (!e.is_directory(ec)) continue;
    if (!fs::exists(e.path() / partial_marker, ec) && !fs::exists(e.path() / marker, ec)) continue;
    fs::remove_all(e.path(), ec);
  }
}

// Files "<name>.tmp-<pid>" next to `path` left by a process killed while writing it.
void remove_stale_temp_files(const fs::path& path) {
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const std::string prefix = path.filename().string() + ".tmp-";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec))
    if (left_by_dead_process(e.path().filename().string(), prefix) && e.is_regular_file(ec)) fs::remove(e.path(), ec);
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
    write_file((tmp / marker).string(), "Flynn output folder\n");
    fs::remove(tmp / partial_marker);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
  // Replace: an atomic exchange where the file system has one, so that a run killed at any
  // moment leaves at `dir` either the previous complete results or the new ones.
  if (fs::exists(final_dir)) {
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, final_dir.c_str(), RENAME_EXCHANGE) == 0) {
      fs::remove_all(tmp);  // now the previous results
      return;
    }
    fs::rename(final_dir, old);
  }
  fs::rename(tmp, final_dir);
  fs::remove_all(old);
}

}  // namespace flynn

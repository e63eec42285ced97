#include "flynn/platform/output.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "flynn/platform/errors.h"

namespace fs = std::filesystem;

namespace flynn {

namespace {
const char* marker = ".flynn-output";
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
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  try {
    write(tmp.string());
    write_file((tmp / marker).string(), "Flynn output folder\n");
  } catch (...) {
    fs::remove_all(tmp);
    throw;
  }
  if (fs::exists(final_dir)) fs::rename(final_dir, old);
  fs::rename(tmp, final_dir);
  fs::remove_all(old);
}

}  // namespace flynn

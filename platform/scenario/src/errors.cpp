#include "flynn/platform/errors.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace flynn {

namespace {
std::string where(const std::string& file, const std::string& path) {
  std::string w = file.empty() ? std::string("<scenario>") : file;
  if (!path.empty()) w += ": " + path;
  return w;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

input_error::input_error(const std::string& file, const std::string& path,
                         const std::string& expected, const std::string& found)
    : std::runtime_error(where(file, path) + ": expected " + expected + ", found " + found) {}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best.empty() ? std::string() : "did you mean '" + best + "'?";
}

std::string read_source(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw input_error(path + ": cannot read file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path + ": cannot read file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw input_error(path + ": cannot read file");
  return text.str();
}

}  // namespace flynn

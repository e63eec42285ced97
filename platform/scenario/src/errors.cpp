#include "flynn/platform/errors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace flynn {

namespace {
// A file name or JSON path taken from input (an extends path, keys) is cut short in a message.
std::string shortened(const std::string& s, std::size_t max) { return s.size() <= max ? s : s.substr(0, max) + "..."; }

std::string where(const std::string& file, const std::string& path) {
  std::string w = file.empty() ? std::string("<scenario>") : shortened(file, 240);
  if (!path.empty()) w += ": " + shortened(path, 160);
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
    : std::runtime_error(printable(where(file, path) + ": expected " + expected + ", found " + found)) {}

std::string input_error::printable(const std::string& message) {
  static const char* hex = "0123456789abcdef";
  std::string r;
  r.reserve(message.size());
  for (char ch : message) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      r += "\\x";
      r += hex[c >> 4];
      r += hex[c & 15];
    } else {
      r += ch;
    }
  }
  return r;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  if (word.size() > 200) return {};  // (no name is that long: nothing is near)
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    if (c.size() > 200) continue;
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best.empty() ? std::string() : "did you mean " + excerpt(best) + "?";
}

namespace {
std::string file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}
}  // namespace

std::string read_source(const std::string& path, const std::string& what) {
  // O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) throw input_error(path + ": expected " + what + ", found nothing (no such file)");
    throw input_error(path + ": cannot read file (" + std::strerror(e) + ")");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw input_error(path + ": cannot read file (" + std::strerror(e) + ")");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw input_error(path + ": expected " + what + ", found " + file_kind(st.st_mode) +
                      " (only regular files are read)");
  }
  auto too_large = [&](std::uint64_t bytes) {
    ::close(fd);
    throw input_error(path + ": expected " + what + " of at most " + std::to_string(max_input_bytes >> 20) +
                      " MiB, found " + std::to_string(bytes) + " bytes");
  };
  if (static_cast<std::uint64_t>(st.st_size) > max_input_bytes) too_large(static_cast<std::uint64_t>(st.st_size));
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      throw input_error(path + ": cannot read file (" + std::strerror(e) + ")");
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_input_bytes) too_large(text.size());  // it grew while read
  }
  ::close(fd);
  return text;
}

std::string unsafe_name_char(const std::string& name) {
  for (std::size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.'))
      return excerpt(std::string(1, static_cast<char>(c))) + " at character " + std::to_string(i + 1);
  }
  return {};
}

std::string excerpt(const std::string& text, std::size_t max) {
  static const char* hex = "0123456789abcdef";
  std::string r = "'";
  const std::size_t n = std::min(text.size(), max);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') r += "\\n";
    else if (c == '\t') r += "\\t";
    else if (c == '\r') r += "\\r";
    else if (c == '\\') r += "\\\\";
    else if (c == '\'') r += "\\'";
    else if (c < 0x20 || c >= 0x7f) {
      r += "\\x";
      r += hex[c >> 4];
      r += hex[c & 15];
    } else {
      r += static_cast<char>(c);
    }
  }
  if (text.size() > max) r += "...";
  return r + "'";
}

}  // namespace flynn

#include "flynn/platform/temp_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace flynn {

std::FILE* anonymous_temp_file() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = (dir && *dir) ? dir : "/tmp";
  if (path.size() > 1 && path.back() == '/') path.pop_back();
  path += "/flynn-XXXXXX";
  const int fd = ::mkstemp(path.data());  // fills in the X's
  if (fd < 0) return nullptr;
  ::unlink(path.c_str());
  std::FILE* f = ::fdopen(fd, "w+b");
  if (!f) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
  }
  return f;
}

}  // namespace flynn

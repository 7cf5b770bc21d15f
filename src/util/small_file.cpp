#include "util/small_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace burst {
namespace {

Error too_large(const std::string& path, unsigned long long size, size_t limit) {
  std::string lim = limit % (size_t{1} << 20) == 0 ? std::to_string(limit >> 20) + " MiB"
                                                   : std::to_string(limit) + " bytes";
  return make_error(ErrorCode::kInvalid, path + ": too large (" + std::to_string(size) +
                                             " bytes; the limit is " + lim + ")");
}

}  // namespace

Result<std::string> read_small_file(const std::string& path, size_t limit) {
  // O_NONBLOCK: opening a fifo with no writer must not hang before fstat can refuse it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return make_error(ErrorCode::kInvalid, path + ": cannot read file: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return make_error(ErrorCode::kInvalid, path + ": cannot read file: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorCode::kInvalid, path + ": not a regular file");
  }
  if (static_cast<unsigned long long>(st.st_size) > limit) {
    ::close(fd);
    return too_large(path, static_cast<unsigned long long>(st.st_size), limit);
  }
  // Sized by fstat (plus one byte to see growth), grown up to limit + 1 if the file grows: a
  // large limit (an offers file's) costs nothing for a small file.
  const size_t cap = limit + 1;
  std::string text(std::min(static_cast<size_t>(st.st_size), limit) + 1, '\0');
  size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (text.size() >= cap) break;
      text.resize(std::min(cap, text.size() * 2));
    }
    ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return make_error(ErrorCode::kInvalid, path + ": cannot read file: " + std::strerror(e));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got > limit) return too_large(path, static_cast<unsigned long long>(got), limit);
  text.resize(got);
  return text;
}

}  // namespace burst

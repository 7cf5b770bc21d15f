// Private files in the state dir (util/private_file.h).
#include "util/private_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace burst {
namespace {

Error cannot(const std::string& path) {
  return make_error(ErrorCode::kUnavailable, "cannot write " + path + ": " + std::strerror(errno));
}

Result<int> open_private(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return cannot(path);
  if (::fchmod(fd, 0600) != 0) {  // an older file created 0644
    Error e = cannot(path);
    ::close(fd);
    return e;
  }
  return fd;
}

}  // namespace

Status touch_private_file(const std::string& path) {
  Result<int> fd = open_private(path, O_APPEND);
  if (!fd) return fd.error();
  ::close(*fd);
  return Status::Ok();
}

Status write_private_file(const std::string& path, std::string_view text) {
  Result<int> fd = open_private(path, O_TRUNC);
  if (!fd) return fd.error();
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(*fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Error e = cannot(path);
      ::close(*fd);
      return e;
    }
    done += static_cast<size_t>(n);
  }
  if (::close(*fd) != 0) return cannot(path);
  return Status::Ok();
}

}  // namespace burst

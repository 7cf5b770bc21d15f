// POSIX (macOS): close-on-exec set after the socket(2), SIGPIPE turned off per socket where the
// system has SO_NOSIGPIPE. Compiled on Linux too (where SO_NOSIGPIPE does not exist) so it builds.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/socket_calls.h"

namespace burst {
namespace posix_socket {

int cloexec_socket(int domain, int type) {
  int fd = ::socket(domain, type, 0);
  if (fd < 0) return -1;
  if (::fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
    ::close(fd);
    return -1;
  }
#ifdef SO_NOSIGPIPE
  int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#endif
  return fd;
}

ssize_t send_no_sigpipe(int fd, const void* data, size_t len) { return ::send(fd, data, len, 0); }

}  // namespace posix_socket

#ifndef __linux__
int cloexec_socket(int domain, int type) { return posix_socket::cloexec_socket(domain, type); }
ssize_t send_no_sigpipe(int fd, const void* data, size_t len) {
  return posix_socket::send_no_sigpipe(fd, data, len);
}
#endif

}  // namespace burst

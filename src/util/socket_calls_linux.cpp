// Linux: the flags do it in the same call.
#ifdef __linux__
#include <sys/socket.h>

#include "util/socket_calls.h"

namespace burst {

int cloexec_socket(int domain, int type) { return ::socket(domain, type | SOCK_CLOEXEC, 0); }

ssize_t send_no_sigpipe(int fd, const void* data, size_t len) {
  return ::send(fd, data, len, MSG_NOSIGNAL);
}

}  // namespace burst
#endif  // __linux__

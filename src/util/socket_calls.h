// Two socket calls whose flags are Linux's own: a socket created close-on-exec (SOCK_CLOEXEC) and a
// send that never raises SIGPIPE (MSG_NOSIGNAL). socket_calls_linux.cpp uses the flags;
// socket_calls_posix.cpp (macOS: fcntl and SO_NOSIGPIPE) is compiled everywhere and tested here.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace burst {

// A socket(2) that is close-on-exec and whose sends never raise SIGPIPE; -1 with errno on failure.
int cloexec_socket(int domain, int type);
// send(2) of up to `len` bytes on a socket from cloexec_socket, without SIGPIPE.
ssize_t send_no_sigpipe(int fd, const void* data, size_t len);

namespace posix_socket {
int cloexec_socket(int domain, int type);
ssize_t send_no_sigpipe(int fd, const void* data, size_t len);
}  // namespace posix_socket

}  // namespace burst

// Both paths of util/socket_calls.h: the socket is close-on-exec, and a send to a closed peer
// fails with EPIPE instead of killing the process with SIGPIPE. The POSIX path (macOS's) runs here
// too; Linux has no SO_NOSIGPIPE, so that path's send is checked with SIGPIPE ignored.
#include "util/socket_calls.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace burst {
namespace {

void expect_cloexec_and_epipe(int fd, ssize_t (*send_fn)(int, const void*, size_t)) {
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(::fcntl(fd, F_GETFD) & FD_CLOEXEC);
  ::close(fd);
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  ::close(pair[1]);
  errno = 0;
  EXPECT_EQ(send_fn(pair[0], "x", 1), -1);
  EXPECT_EQ(errno, EPIPE);
  ::close(pair[0]);
}

TEST(SocketCalls, CloseOnExecAndNoSigpipe) {
  expect_cloexec_and_epipe(cloexec_socket(AF_UNIX, SOCK_STREAM), send_no_sigpipe);
}

TEST(SocketCalls, PosixPathCloseOnExec) {
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);  // Linux has no SO_NOSIGPIPE for this path to set
  expect_cloexec_and_epipe(posix_socket::cloexec_socket(AF_UNIX, SOCK_STREAM),
                           posix_socket::send_no_sigpipe);
  ::sigaction(SIGPIPE, &old, nullptr);
}

}  // namespace
}  // namespace burst

#include "remote/ssh_link.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>

namespace burst::libssh {

std::string where(const SshTarget& t) {
  return "ssh " + t.user + "@" + t.host + ":" + std::to_string(t.port);
}

Error ssh_error(ErrorCode code, const std::string& context, ssh_session s) {
  return make_error(code, context + ": " + ssh_get_error(s));
}

bool LinkWatch::alive() {
  if (Steady::now() - last_ < idle_) return true;
  ssh_channel probe = ssh_channel_new(s_);
  bool ok = probe && ssh_channel_open_session(probe) == SSH_OK;
  if (probe) {
    if (ok) ssh_channel_close(probe);
    ssh_channel_free(probe);
  }
  if (ok) heard();
  return ok;
}

void tune_socket(ssh_session s, int idle_s, int io_timeout_s) {
  int fd = ssh_get_fd(s);
  if (fd < 0) return;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
#ifdef TCP_KEEPIDLE
  int idle = idle_s, intvl = std::max(1, io_timeout_s / 3), cnt = 3;
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
#endif
#ifdef TCP_USER_TIMEOUT
  unsigned int user_timeout_ms = static_cast<unsigned int>(idle_s + io_timeout_s) * 1000u;
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
#endif
}

// Right after authentication OpenSSH's sshd sends an unsolicited packet (its host keys,
// "hostkeys-00@openssh.com"); with Nagle on, it then holds its answer to our channel open until
// that packet is acknowledged, and Linux delays that ACK by 40 ms: measured, 45-55 ms for the first
// command start against 1-2 ms for later ones. Asking for a quick ACK while we wait releases the
// answer at once. The request does not stick (each send can turn delayed ACKs back on), so it is
// made after the send, on every wait.
int open_session_channel(ssh_session s, ssh_channel ch, int timeout_ms) {
  const int fd = ssh_get_fd(s);
  ssh_set_blocking(s, 0);
  int rc = ssh_channel_open_session(ch);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (rc == SSH_AGAIN && std::chrono::steady_clock::now() < deadline) {
#ifdef TCP_QUICKACK
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
#endif
    pollfd p{fd, POLLIN, 0};
    (void)::poll(&p, 1, kPollMs);
    rc = ssh_channel_open_session(ch);
  }
  ssh_set_blocking(s, 1);
  return rc;
}

}  // namespace burst::libssh

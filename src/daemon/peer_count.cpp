#include "daemon/peer_count.h"

#include <netdb.h>
#include <sys/socket.h>

namespace burst::daemon {

bool PeerCount::enter(const std::string& peer, int cap) {
  std::lock_guard<std::mutex> lock(mu_);
  int& n = count_[peer];
  if (n >= cap) return false;
  ++n;
  return true;
}

void PeerCount::leave(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = count_.find(peer);
  if (it != count_.end() && --it->second <= 0) count_.erase(it);
}

std::string peer_address(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return "";
  if (a.ss_family != AF_INET && a.ss_family != AF_INET6) return "";
  char host[NI_MAXHOST];
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&a), len, host, sizeof host, nullptr, 0,
                    NI_NUMERICHOST) != 0)
    return "";
  return host;
}

}  // namespace burst::daemon

#include "remote/ssh_breaker.h"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>

namespace burst::libssh {
namespace {

// The socket's two addresses: libssh closes the descriptor itself when the link fails, and the
// number may then belong to another connection, which must not be shut down.
std::string socket_identity(int fd) {
  sockaddr_storage local{}, peer{};
  socklen_t ll = sizeof local, pl = sizeof peer;
  if (fd < 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &ll) != 0 ||
      ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &pl) != 0)
    return "";
  return std::string(reinterpret_cast<const char*>(&local), ll) + "/" +
         std::string(reinterpret_cast<const char*>(&peer), pl);
}

}  // namespace

Breaker::Breaker(int fd, std::string where, int no_progress_s)
    : fd_(fd), where_(std::move(where)), no_progress_s_(std::max(1, no_progress_s)) {
  identity_ = socket_identity(fd_);
  monitor_ = std::thread([this] { watch(); });
}

void Breaker::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closing_) return;
    closing_ = true;
  }
  cv_.notify_all();
  monitor_.join();
  std::lock_guard<std::mutex> lock(trip_mu_);
  fd_ = -1;
}

Error Breaker::classify(Error otherwise) const {
  switch (state_.load()) {
    case kAborted:
      return make_error(ErrorCode::kInterrupted, where_ + ": aborted");
    case kNoProgress:
      return make_error(
          ErrorCode::kTimeout,
          "no bytes from the pod for " + std::to_string(no_progress_s_) + " s (" + where_ + ")");
    default:
      return otherwise;
  }
}

Error Breaker::refused() const {
  return classify(make_error(ErrorCode::kInterrupted, where_ + ": aborted"));
}

int64_t Breaker::now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Breaker::trip(State why) {
  std::lock_guard<std::mutex> lock(trip_mu_);
  int expected = kNone;
  if (fd_ < 0 || !state_.compare_exchange_strong(expected, why)) return;
  if (!identity_.empty() && socket_identity(fd_) == identity_) ::shutdown(fd_, SHUT_RDWR);
}

void Breaker::watch() {
  // Checks a few times per timeout, at most every 500 ms.
  const auto period = std::chrono::milliseconds(std::min(500, no_progress_s_ * 250));
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, period, [this] { return closing_; })) {
    if (busy_.load() > 0 && now_ms() - last_ms_.load() > int64_t{no_progress_s_} * 1000)
      trip(kNoProgress);
  }
}

}  // namespace burst::libssh

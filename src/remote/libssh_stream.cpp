#include "remote/libssh_stream.h"

#include <poll.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace burst::libssh {
LibsshStream::~LibsshStream() {
  ssh_channel_close(ch_);
  ssh_channel_free(ch_);
}

Status LibsshStream::write(const char* data, size_t len) {
  if (breaker_.broken()) return breaker_.refused();
  Breaker::Busy busy(breaker_);
  while (len > 0) {
    // Write no more than the peer's window: a blocked write could not notice a dead link.
    uint32_t window = ssh_channel_window_size(ch_);
    if (window == 0) {
      // Wait for the peer's window adjust: wake on any bytes from the socket, then let libssh take
      // in what arrived. (ssh_channel_poll_timeout sleeps the whole slice unless stdout data comes:
      // 100 ms per full window; with Nagle off, an initial sync of 0.8 GB took 22 s instead of 4.)
      if (ssh_channel_poll(ch_, 0) == SSH_ERROR) return lost();
      if (ssh_channel_window_size(ch_) == 0) {
        pollfd p{ssh_get_fd(s_), POLLIN, 0};
        (void)::poll(&p, 1, kPollMs);
        if (ssh_channel_poll(ch_, 0) == SSH_ERROR) return lost();
      }
      drain_stderr();
      if (ssh_channel_window_size(ch_) > 0) {
        watch_.heard();
        breaker_.progress();
      } else if (!watch_.alive()) {
        return silent();
      }
      continue;
    }
    int n = ssh_channel_write(
        ch_, data, static_cast<uint32_t>(std::min<size_t>({len, kChunk, size_t{window}})));
    if (n == SSH_ERROR) return lost();
    data += n;
    len -= static_cast<size_t>(n);
    drain_stderr();
  }
  return Status::Ok();
}

Status LibsshStream::close_stdin() {
  if (breaker_.broken()) return breaker_.refused();
  if (ssh_channel_send_eof(ch_) != SSH_OK) return lost();
  return Status::Ok();
}

Result<size_t> LibsshStream::read(char* data, size_t len) {
  if (breaker_.broken()) return breaker_.refused();
  if (staged_ < stage_len_) return take_staged(data, len);
  Breaker::Busy busy(breaker_);
  while (true) {
    // A top-up read asks for the whole window; libssh grows the window before it waits.
    const bool top_up = since_top_up_ >= kWindowRegrow;
    if (top_up && !stage_) stage_.reset(new char[kStreamWindow]);
    int n = top_up ? ssh_channel_read_timeout(ch_, stage_.get(), kStreamWindow, 0, kPollMs)
                   : ssh_channel_read_timeout(
                         ch_, data, static_cast<uint32_t>(std::min<size_t>(len, kStreamWindow)), 0,
                         kPollMs);
    if (n == SSH_ERROR) return lost();
    if (top_up) since_top_up_ = 0;
    drain_stderr();
    if (n > 0) {
      watch_.heard();
      breaker_.progress();
      since_top_up_ += static_cast<size_t>(n);
      if (!top_up) return static_cast<size_t>(n);
      staged_ = 0;
      stage_len_ = static_cast<size_t>(n);
      return take_staged(data, len);
    }
    if (breaker_.broken()) return lost();
    if (ssh_channel_is_eof(ch_)) return size_t{0};
    if (!watch_.alive()) return silent();
  }
}

Result<int> LibsshStream::finish(std::string* err) {
  std::vector<char> buf(kChunk);
  while (true) {
    auto n = read(buf.data(), buf.size());
    if (!n.ok()) return n.error();
    if (*n == 0) break;
  }
  drain_stderr();
  if (err) *err = err_;
  int status = ssh_channel_get_exit_status(ch_);
  if (status >= 0) return status;
  if (!ssh_is_connected(s_)) return lost();
  return 128 + 9;
}

void LibsshStream::drain_stderr() {
  char buf[4096];
  while (true) {
    int m = ssh_channel_read_nonblocking(ch_, buf, sizeof buf, 1);
    if (m <= 0) return;
    if (err_.size() < 64 * 1024) err_.append(buf, static_cast<size_t>(m));
  }
}

size_t LibsshStream::take_staged(char* data, size_t len) {
  const size_t k = std::min(len, stage_len_ - staged_);
  std::memcpy(data, stage_.get() + staged_, k);
  staged_ += k;
  return k;
}

Error LibsshStream::lost() {
  return breaker_.classify(
      make_error(ErrorCode::kConnection, where_ + ": connection lost: " + ssh_get_error(s_)));
}

Error LibsshStream::silent() {
  return breaker_.classify(make_error(
      ErrorCode::kConnection, where_ + ": connection lost: no answer to a keepalive probe"));
}

}  // namespace burst::libssh

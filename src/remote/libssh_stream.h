// A command's standard streams over one libssh channel (RemoteSession::open_stream): writes keep to
// the pod's window so a dead link is noticed, reads top up a large receive window (the .cpp says
// why), and every wait goes through the session's LinkWatch and Breaker (remote/ssh_link.h,
// remote/ssh_breaker.h), which must outlive the stream.
#pragma once

#include <memory>
#include <string>

#include "burst/remote.h"
#include "remote/libssh_calls.h"
#include "remote/ssh_breaker.h"
#include "remote/ssh_link.h"

namespace burst::libssh {

class LibsshStream : public RemoteStream {
 public:
  // Takes `ch`, an open channel running the command; closes and frees it when destroyed.
  LibsshStream(ssh_session s, ssh_channel ch, std::string where, LinkWatch& watch, Breaker& breaker)
      : s_(s), ch_(ch), where_(std::move(where)), watch_(watch), breaker_(breaker) {}
  ~LibsshStream() override;

  Status write(const char* data, size_t len) override;
  Status close_stdin() override;
  Result<size_t> read(char* data, size_t len) override;
  Result<int> finish(std::string* err) override;

 private:
  // A stream's receive window (docs/sync.md, "The receive window"). libssh 0.10 opens a channel's
  // window only as far as the count one read asks for, and otherwise to 1.28 MB (its WINDOWBASE),
  // topped up only once it falls under half of that: at most 1.28 MB in flight, which over a 40 ms
  // round trip caps a pull at about 24 MB/s on any link (bench/README.md measured 23 MB/s where
  // `ssh cat`, with OpenSSH's 2 MiB window, gave 48). So once kWindowRegrow bytes have come in
  // since the last top-up, one read asks for kStreamWindow bytes (into the stream's stage buffer):
  // libssh then grants the pod kStreamWindow less what it holds unread. Every other read goes
  // straight into the caller's buffer. From a pod that keeps to its window, burst holds at most
  // kStreamWindow in libssh and kStreamWindow in the stage; the stage's pages are touched only as
  // far as a top-up read fills them.
  static constexpr uint32_t kStreamWindow = 8u << 20;
  static constexpr uint32_t kWindowRegrow = kStreamWindow / 4;

  void drain_stderr();
  size_t take_staged(char* data, size_t len);
  Error lost();
  Error silent();

  ssh_session s_;
  ssh_channel ch_;
  std::string where_;
  LinkWatch& watch_;
  Breaker& breaker_;
  std::string err_;
  // What a top-up read took in and the caller has not yet: stage_[staged_, stage_len_).
  std::unique_ptr<char[]> stage_;
  size_t staged_ = 0, stage_len_ = 0;
  size_t since_top_up_ = kWindowRegrow;  // bytes read since the window was last topped up
};

}  // namespace burst::libssh

// The libssh adapter's session (burst/remote.h): commands (exec, run_capture, open_stream) and file
// transfer (remote/libssh_sftp.h) on one authenticated connection, every blocking call guarded by
// the session's Breaker (remote/ssh_breaker.h) and LinkWatch (remote/ssh_link.h). libssh itself is
// loaded on first connect (remote/libssh_api.h; connect in libssh_connect.cpp).
#include "remote/libssh_session.h"

#include <optional>
#include <vector>

#include "remote/libssh_sftp.h"
#include "remote/libssh_stream.h"
#include "remote/ssh_breaker.h"
#include "remote/ssh_link.h"

namespace burst::libssh {
namespace {

class LibsshSession : public RemoteSession {
 public:
  LibsshSession(ssh_session s, std::string where, int keepalive_idle_s, int io_timeout_s,
                int no_progress_timeout_s)
      : s_(s),
        where_(std::move(where)),
        watch_(s, keepalive_idle_s),
        open_timeout_ms_(io_timeout_s * 1000),
        breaker_(ssh_get_fd(s), where_, no_progress_timeout_s),
        sftp_(s, where_, breaker_) {}
  ~LibsshSession() override {
    breaker_.close();
    sftp_.close();
    ssh_disconnect(s_);
    ssh_free(s_);
  }

  void abort() override { breaker_.abort(); }

  Result<int> exec(const std::string& command, const OutputSink& sink,
                   const std::function<bool()>& should_stop) override {
    if (breaker_.broken()) return breaker_.refused();
    // A command run with should_stop (a step's follower) may be quiet for as long as its program
    // is: its caller watches it. Every other command must keep sending.
    std::optional<Breaker::Busy> busy;
    if (!should_stop) busy.emplace(breaker_);
    ssh_channel ch = ssh_channel_new(s_);
    if (!ch) return ssh_error(ErrorCode::kConnection, where_ + ": open channel", s_);
    struct Closer {
      ssh_channel ch;
      ~Closer() {
        ssh_channel_close(ch);
        ssh_channel_free(ch);
      }
    } closer{ch};
    if (open_session_channel(s_, ch, open_timeout_ms_) != SSH_OK)
      return breaker_.classify(ssh_error(ErrorCode::kConnection, where_ + ": open session", s_));
    if (ssh_channel_request_exec(ch, command.c_str()) != SSH_OK)
      return breaker_.classify(ssh_error(ErrorCode::kConnection, where_ + ": exec", s_));
    watch_.heard();
    std::vector<char> buf(kChunk);
    while (true) {
      if (should_stop && should_stop()) return make_error(ErrorCode::kInterrupted, "interrupted");
      int n = ssh_channel_read_timeout(ch, buf.data(), buf.size(), 0, kPollMs);
      if (n == SSH_ERROR) return lost();
      if (n > 0 && sink.out) sink.out(buf.data(), n);
      int m = ssh_channel_read_nonblocking(ch, buf.data(), buf.size(), 1);
      if (m == SSH_ERROR) return lost();
      if (m > 0 && sink.err) sink.err(buf.data(), m);
      if (n > 0 || m > 0) {
        watch_.heard();
        breaker_.progress();
        continue;
      }
      if (ssh_channel_is_eof(ch)) break;
      if (breaker_.broken()) return lost();
      if (!watch_.alive())
        return breaker_.classify(make_error(
            ErrorCode::kConnection, where_ + ": connection lost: no answer to a keepalive probe"));
    }
    int status = ssh_channel_get_exit_status(ch);
    if (status >= 0) return status;
    if (!ssh_is_connected(s_)) return lost();
    // Closed with an exit-signal instead of a status: the command was killed.
    return 128 + 9;
  }

  Result<std::string> run_capture(const std::string& command) override {
    std::string out, err;
    OutputSink sink{[&](const char* d, size_t n) { out.append(d, n); },
                    [&](const char* d, size_t n) { err.append(d, n); }};
    auto status = exec(command, sink, {});
    if (!status.ok()) return status.error();
    if (*status != 0) {
      while (!err.empty() && err.back() == '\n') err.pop_back();
      return make_error(ErrorCode::kRemoteFailed,
                        where_ + ": command exited " + std::to_string(*status) + ": " + err);
    }
    return out;
  }

  Result<std::unique_ptr<RemoteStream>> open_stream(const std::string& command) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    ssh_channel ch = ssh_channel_new(s_);
    if (!ch) return ssh_error(ErrorCode::kConnection, where_ + ": open channel", s_);
    if (open_session_channel(s_, ch, open_timeout_ms_) != SSH_OK ||
        ssh_channel_request_exec(ch, command.c_str()) != SSH_OK) {
      Error e = breaker_.classify(ssh_error(ErrorCode::kConnection, where_ + ": exec", s_));
      ssh_channel_free(ch);
      return e;
    }
    watch_.heard();
    return std::unique_ptr<RemoteStream>(
        std::make_unique<LibsshStream>(s_, ch, where_, watch_, breaker_));
  }

  Status upload(const std::string& local_path, const std::string& remote_path, uint32_t mode,
                int64_t mtime) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    return sftp_.upload(local_path, remote_path, mode, mtime);
  }
  Status write_file(const std::string& remote_path, const std::string& content,
                    uint32_t mode) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    return sftp_.write_file(remote_path, content, mode);
  }
  Status mkdirs(const std::string& remote_path, uint32_t mode) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    return sftp_.mkdirs(remote_path, mode);
  }
  Result<RemoteFileInfo> stat(const std::string& remote_path) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    return sftp_.stat(remote_path);
  }
  Status download(const std::string& remote_path, const std::string& local_path) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    return sftp_.download(remote_path, local_path);
  }
  Status read_file(const std::string& remote_path, uint64_t offset,
                   const std::function<bool(const char*, size_t)>& sink) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    return sftp_.read_file(remote_path, offset, sink);
  }

 private:
  Error lost() {
    return breaker_.classify(
        make_error(ErrorCode::kConnection, where_ + ": connection lost: " + ssh_get_error(s_)));
  }

  ssh_session s_;
  std::string where_;
  LinkWatch watch_;
  int open_timeout_ms_;
  Breaker breaker_;  // after where_: it keeps a copy
  Sftp sftp_;        // after breaker_: it uses it
};

}  // namespace

std::unique_ptr<RemoteSession> make_libssh_session(ssh_session s, std::string where,
                                                   int keepalive_idle_s, int io_timeout_s,
                                                   int no_progress_timeout_s) {
  return std::make_unique<LibsshSession>(s, std::move(where), keepalive_idle_s, io_timeout_s,
                                         no_progress_timeout_s);
}

}  // namespace burst::libssh

// The libssh adapter. libssh itself is loaded on first connect (remote/libssh_api.h).
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "burst/remote.h"
#include "remote/libssh_calls.h"

namespace burst {
namespace {

constexpr size_t kChunk = 64 * 1024;
constexpr int kPollMs = 100;

std::string where(const SshTarget& t) {
  return "ssh " + t.user + "@" + t.host + ":" + std::to_string(t.port);
}

Error ssh_error(ErrorCode code, const std::string& context, ssh_session s) {
  return make_error(code, context + ": " + ssh_get_error(s));
}

std::string host_key_fingerprint(ssh_session s) {
  ssh_key key = nullptr;
  if (ssh_get_server_publickey(s, &key) != SSH_OK) return "";
  unsigned char* hash = nullptr;
  size_t len = 0;
  std::string out;
  if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &len) == SSH_OK) {
    char* fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, len);
    if (fp) out = fp;
    ssh_string_free_char(fp);
    ssh_clean_pubkey_hash(&hash);
  }
  ssh_key_free(key);
  return out;
}

// Breaks a session's blocked calls without the pod's help, for abort() and for the no-progress
// timeout: shutdown(2) on the socket makes every libssh wait (channel reads, SFTP replies, window
// waits) return an error at once, and the flag turns that error into the reason. A monitor
// thread watches the calls marked busy: one that has heard zero bytes from the pod for
// `no_progress` is broken the same way (kTimeout). Calls that may legitimately sit quiet (a step
// follower with a should_stop callback) are not marked busy.
class Breaker {
 public:
  Breaker(int fd, std::string where, int no_progress_s)
      : fd_(fd), where_(std::move(where)), no_progress_s_(std::max(1, no_progress_s)) {
    identity_ = socket_identity(fd_);
    monitor_ = std::thread([this] { watch(); });
  }
  ~Breaker() { close(); }
  // Before the socket is closed: no shutdown(2) may reach a descriptor number reused later.
  void close() {
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

  void abort() { trip(kAborted); }
  bool broken() const { return state_.load() != kNone; }
  // The error a call reports once the session is broken; `otherwise` while it is not.
  Error classify(Error otherwise) const {
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
  Error refused() const {
    return classify(make_error(ErrorCode::kInterrupted, where_ + ": aborted"));
  }

  // Bytes arrived from the pod.
  void progress() { last_ms_.store(now_ms()); }
  // A call that waits on the pod: while one runs, silence counts against no_progress.
  class Busy {
   public:
    explicit Busy(Breaker& b) : b_(b) {
      if (b_.busy_.fetch_add(1) == 0) b_.progress();
    }
    ~Busy() { b_.busy_.fetch_sub(1); }
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;

   private:
    Breaker& b_;
  };

 private:
  enum State { kNone, kAborted, kNoProgress };
  static int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  // The socket's two addresses: libssh closes the descriptor itself when the link fails, and the
  // number may then belong to another connection, which must not be shut down.
  static std::string socket_identity(int fd) {
    sockaddr_storage local{}, peer{};
    socklen_t ll = sizeof local, pl = sizeof peer;
    if (fd < 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &ll) != 0 ||
        ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &pl) != 0)
      return "";
    return std::string(reinterpret_cast<const char*>(&local), ll) + "/" +
           std::string(reinterpret_cast<const char*>(&peer), pl);
  }
  void trip(State why) {
    std::lock_guard<std::mutex> lock(trip_mu_);
    int expected = kNone;
    if (fd_ < 0 || !state_.compare_exchange_strong(expected, why)) return;
    if (!identity_.empty() && socket_identity(fd_) == identity_) ::shutdown(fd_, SHUT_RDWR);
  }
  void watch() {
    // Checks a few times per timeout, at most every 500 ms.
    const auto period = std::chrono::milliseconds(std::min(500, no_progress_s_ * 250));
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, period, [this] { return closing_; })) {
      if (busy_.load() > 0 && now_ms() - last_ms_.load() > int64_t{no_progress_s_} * 1000)
        trip(kNoProgress);
    }
  }

  int fd_;  // guarded by trip_mu_
  std::string identity_;
  std::mutex trip_mu_;
  const std::string where_;
  const int no_progress_s_;
  std::atomic<int> state_{kNone};
  std::atomic<int> busy_{0};
  std::atomic<int64_t> last_ms_{now_ms()};
  std::mutex mu_;
  std::condition_variable cv_;
  bool closing_ = false;
  std::thread monitor_;
};

// Notices a dead link. Reads wait in 100 ms slices; after keepalive_idle_s with nothing heard,
// the link is probed by opening a channel, which the server must answer within the session's
// timeout (io_timeout_s). A silent partition never closes the socket, so without this a read
// would wait for ever.
class LinkWatch {
 public:
  LinkWatch(ssh_session s, int idle_s) : s_(s), idle_(std::chrono::seconds(idle_s)) {}
  void heard() { last_ = Steady::now(); }
  // Call when a wait returned nothing; false once the link is known dead.
  bool alive() {
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

 private:
  using Steady = std::chrono::steady_clock;
  ssh_session s_;
  Steady::duration idle_;
  Steady::time_point last_ = Steady::now();
};

// The kernel's share: TCP keepalives and a cap on unacknowledged data (Linux), so a link that
// drops packets fails the socket even while libssh is blocked in a write.
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

// Opens a session channel without waiting on a delayed ACK. Right after authentication OpenSSH's
// sshd sends an unsolicited packet (its host keys, "hostkeys-00@openssh.com"); with Nagle on, it
// then holds its answer to our channel open until that packet is acknowledged, and Linux delays
// that ACK by 40 ms: measured, 45-55 ms for the first command start against 1-2 ms for later ones.
// Asking for a quick ACK while we wait releases the answer at once. The request does not stick
// (each send can turn delayed ACKs back on), so it is made after the send, on every wait.
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

// Requests in flight for a pipelined SFTP read, and their size: 64 x 64 KiB = 4 MiB buffered at
// most, enough to fill the pipe on any link we have measured (see bench/README.md).
constexpr int kReadsInFlight = 64;
constexpr uint32_t kReadChunk = 64 * 1024;

// A stream's receive window (docs/sync.md, "The receive window"). libssh 0.10 opens a channel's
// window only as far as the count one read asks for, and otherwise to 1.28 MB (its WINDOWBASE),
// topped up only once it falls under half of that: at most 1.28 MB in flight, which over a 40 ms
// round trip caps a pull at about 24 MB/s on any link (bench/README.md measured 23 MB/s where
// `ssh cat`, with OpenSSH's 2 MiB window, gave 48). So once kWindowRegrow bytes have come in since
// the last top-up, one read asks for kStreamWindow bytes (into the stream's stage buffer): libssh
// then grants the pod kStreamWindow less what it holds unread. Every other read goes straight
// into the caller's buffer. From a pod that keeps to its window, burst holds at most
// kStreamWindow in libssh and kStreamWindow in the stage; the stage's pages are touched only as
// far as a top-up read fills them.
constexpr uint32_t kStreamWindow = 8u << 20;
constexpr uint32_t kWindowRegrow = kStreamWindow / 4;

class LibsshStream : public RemoteStream {
 public:
  LibsshStream(ssh_session s, ssh_channel ch, std::string where, LinkWatch& watch, Breaker& breaker)
      : s_(s), ch_(ch), where_(std::move(where)), watch_(watch), breaker_(breaker) {}
  ~LibsshStream() override {
    ssh_channel_close(ch_);
    ssh_channel_free(ch_);
  }

  Status write(const char* data, size_t len) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    while (len > 0) {
      // Write no more than the peer's window: a blocked write could not notice a dead link.
      uint32_t window = ssh_channel_window_size(ch_);
      if (window == 0) {
        // Wait for the peer's window adjust: wake on any bytes from the socket, then let libssh
        // take in what arrived. (ssh_channel_poll_timeout sleeps the whole slice unless stdout
        // data comes: 100 ms per full window; with Nagle off, an initial sync of 0.8 GB took
        // 22 s instead of 4.)
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

  Status close_stdin() override {
    if (breaker_.broken()) return breaker_.refused();
    if (ssh_channel_send_eof(ch_) != SSH_OK) return lost();
    return Status::Ok();
  }

  Result<size_t> read(char* data, size_t len) override {
    if (breaker_.broken()) return breaker_.refused();
    if (staged_ < stage_len_) return take_staged(data, len);
    Breaker::Busy busy(breaker_);
    while (true) {
      // A top-up read asks for the whole window; libssh grows the window before it waits.
      const bool top_up = since_top_up_ >= kWindowRegrow;
      if (top_up && !stage_) stage_.reset(new char[kStreamWindow]);
      int n = top_up ? ssh_channel_read_timeout(ch_, stage_.get(), kStreamWindow, 0, kPollMs)
                     : ssh_channel_read_timeout(
                           ch_, data, static_cast<uint32_t>(std::min<size_t>(len, kStreamWindow)),
                           0, kPollMs);
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

  Result<int> finish(std::string* err) override {
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

 private:
  void drain_stderr() {
    char buf[4096];
    while (true) {
      int m = ssh_channel_read_nonblocking(ch_, buf, sizeof buf, 1);
      if (m <= 0) return;
      if (err_.size() < 64 * 1024) err_.append(buf, static_cast<size_t>(m));
    }
  }
  size_t take_staged(char* data, size_t len) {
    const size_t k = std::min(len, stage_len_ - staged_);
    std::memcpy(data, stage_.get() + staged_, k);
    staged_ += k;
    return k;
  }
  Error lost() {
    return breaker_.classify(
        make_error(ErrorCode::kConnection, where_ + ": connection lost: " + ssh_get_error(s_)));
  }
  Error silent() {
    return breaker_.classify(make_error(
        ErrorCode::kConnection, where_ + ": connection lost: no answer to a keepalive probe"));
  }

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

class LibsshSession : public RemoteSession {
 public:
  LibsshSession(ssh_session s, std::string where, int keepalive_idle_s, int io_timeout_s,
                int no_progress_timeout_s)
      : s_(s),
        where_(std::move(where)),
        watch_(s, keepalive_idle_s),
        open_timeout_ms_(io_timeout_s * 1000),
        breaker_(ssh_get_fd(s), where_, no_progress_timeout_s) {}
  ~LibsshSession() override {
    breaker_.close();
    if (sftp_) sftp_free(sftp_);
    ssh_disconnect(s_);
    ssh_free(s_);
  }

  void abort() override { breaker_.abort(); }

  Result<int> exec(const std::string& command, const OutputSink& sink,
                   const std::function<bool()>& should_stop) override {
    if (breaker_.broken()) return breaker_.refused();
    // A command run with should_stop (a step's follower) may be quiet for as long as its
    // program is: its caller watches it. Every other command must keep sending.
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

  Status upload(const std::string& local_path, const std::string& remote_path, uint32_t mode,
                int64_t mtime) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    int fd = ::open(local_path.c_str(), O_RDONLY);
    if (fd < 0) return make_error(ErrorCode::kNotFound, local_path + ": " + std::strerror(errno));
    std::string tmp = remote_path + ".burst-part";
    Status st = copy_fd_to_remote(fd, tmp, mode);
    ::close(fd);
    if (!st.ok()) return st;
    if (mtime > 0) {
      struct timeval times[2] = {{static_cast<time_t>(mtime), 0}, {static_cast<time_t>(mtime), 0}};
      if (sftp_utimes(sftp_, tmp.c_str(), times) != SSH_OK) return sftp_failure("utimes " + tmp);
    }
    return rename_into_place(tmp, remote_path);
  }

  Status write_file(const std::string& remote_path, const std::string& content,
                    uint32_t mode) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    Status ready = ensure_sftp();
    if (!ready.ok()) return ready;
    std::string tmp = remote_path + ".burst-part";
    sftp_file f = sftp_open(sftp_, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (!f) return sftp_failure("open " + tmp);
    ssize_t written = sftp_write(f, content.data(), content.size());
    sftp_close(f);
    if (written != static_cast<ssize_t>(content.size())) return sftp_failure("write " + tmp);
    // The server applies umask to open(); make the mode exact (secrets files must be 0600).
    if (sftp_chmod(sftp_, tmp.c_str(), mode) != SSH_OK) return sftp_failure("chmod " + tmp);
    return rename_into_place(tmp, remote_path);
  }

  Status mkdirs(const std::string& remote_path, uint32_t mode) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    Status ready = ensure_sftp();
    if (!ready.ok()) return ready;
    std::string partial;
    size_t pos = 0;
    while (pos <= remote_path.size()) {
      size_t next = remote_path.find('/', pos);
      if (next == std::string::npos) next = remote_path.size();
      partial = remote_path.substr(0, next);
      pos = next + 1;
      if (partial.empty()) continue;
      sftp_attributes a = sftp_stat(sftp_, partial.c_str());
      breaker_.progress();
      if (a) {
        bool dir = a->type == SSH_FILEXFER_TYPE_DIRECTORY;
        sftp_attributes_free(a);
        if (!dir)
          return make_error(ErrorCode::kInvalid, where_ + ": " + partial + " is not a directory");
        continue;
      }
      if (sftp_mkdir(sftp_, partial.c_str(), mode) != SSH_OK)
        return sftp_failure("mkdir " + partial);
    }
    return Status::Ok();
  }

  Result<RemoteFileInfo> stat(const std::string& remote_path) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    Status ready = ensure_sftp();
    if (!ready.ok()) return ready.error();
    sftp_attributes a = sftp_stat(sftp_, remote_path.c_str());
    if (!a) return sftp_failure("stat " + remote_path).error();
    RemoteFileInfo info{remote_path, a->size, a->permissions & 07777,
                        static_cast<int64_t>(a->mtime), a->type == SSH_FILEXFER_TYPE_DIRECTORY};
    sftp_attributes_free(a);
    return info;
  }

  Status download(const std::string& remote_path, const std::string& local_path) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    auto info = stat(remote_path);
    if (!info.ok()) return info.error();
    sftp_file f = sftp_open(sftp_, remote_path.c_str(), O_RDONLY, 0);
    if (!f) return sftp_failure("open " + remote_path);
    int fd = ::open(local_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
      sftp_close(f);
      return make_error(ErrorCode::kInternal, local_path + ": " + std::strerror(errno));
    }
    std::vector<char> buf(kChunk);
    Status st;
    while (true) {
      ssize_t n = sftp_read(f, buf.data(), buf.size());
      if (n < 0) {
        st = sftp_failure("read " + remote_path);
        break;
      }
      if (n == 0) break;
      breaker_.progress();
      if (::write(fd, buf.data(), n) != n) {
        st = make_error(ErrorCode::kInternal, local_path + ": " + std::strerror(errno));
        break;
      }
    }
    sftp_close(f);
    if (st.ok()) {
      ::fchmod(fd, info->mode & 07777);
      struct timeval times[2] = {{static_cast<time_t>(info->mtime), 0},
                                 {static_cast<time_t>(info->mtime), 0}};
      ::futimes(fd, times);
    }
    ::close(fd);
    return st;
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

  Status read_file(const std::string& remote_path, uint64_t offset,
                   const std::function<bool(const char*, size_t)>& sink) override {
    if (breaker_.broken()) return breaker_.refused();
    Breaker::Busy busy(breaker_);
    Status ready = ensure_sftp();
    if (!ready.ok()) return ready;
    sftp_file f = sftp_open(sftp_, remote_path.c_str(), O_RDONLY, 0);
    if (!f) return sftp_failure("open " + remote_path);
    struct Closer {
      sftp_file f;
      ~Closer() { sftp_close(f); }
    } closer{f};
    sftp_attributes a = sftp_fstat(f);
    if (!a) return sftp_failure("stat " + remote_path);
    const uint64_t size = a->size;
    sftp_attributes_free(a);
    if (offset >= size) return Status::Ok();
    if (sftp_seek64(f, offset) != 0) return sftp_failure("seek " + remote_path);
    // Request ids in the order sent; each asks for kReadChunk bytes (the last may be short).
    std::vector<uint32_t> ids(kReadsInFlight);
    size_t head = 0, count = 0;
    uint64_t requested = offset, received = offset;
    std::vector<char> buf(kReadChunk);
    Status st;
    while (true) {
      while (count < ids.size() && requested < size) {
        int id = sftp_async_read_begin(f, kReadChunk);
        if (id < 0) return sftp_failure("read " + remote_path);
        ids[(head + count) % ids.size()] = static_cast<uint32_t>(id);
        ++count;
        requested += kReadChunk;
      }
      if (count == 0) break;
      int n = sftp_async_read(f, buf.data(), kReadChunk, ids[head]);
      head = (head + 1) % ids.size();
      --count;
      if (n < 0) return sftp_failure("read " + remote_path);
      breaker_.progress();
      const uint64_t expect = std::min<uint64_t>(kReadChunk, size - received);
      if (static_cast<uint64_t>(n) != expect) {
        // A short read (the file shrank, or a server that splits reads): what follows would be
        // misaligned. Stop; the caller's size and hash checks report it.
        if (n > 0 && !sink(buf.data(), static_cast<size_t>(n)))
          st = make_error(ErrorCode::kInterrupted, "interrupted");
        else if (n > 0)
          st = make_error(ErrorCode::kUnavailable, where_ + ": sftp read " + remote_path +
                                                       ": short read at offset " +
                                                       std::to_string(received));
        break;
      }
      received += static_cast<uint64_t>(n);
      if (!sink(buf.data(), static_cast<size_t>(n))) {
        st = make_error(ErrorCode::kInterrupted, "interrupted");
        break;
      }
    }
    // Collect the replies still in flight so the SFTP channel stays in step.
    while (count > 0 && ssh_is_connected(s_) && !breaker_.broken()) {
      (void)sftp_async_read(f, buf.data(), kReadChunk, ids[head]);
      head = (head + 1) % ids.size();
      --count;
    }
    return st;
  }

 private:
  Error lost() {
    return breaker_.classify(
        make_error(ErrorCode::kConnection, where_ + ": connection lost: " + ssh_get_error(s_)));
  }

  Status ensure_sftp() {
    if (sftp_) return Status::Ok();
    sftp_ = sftp_new(s_);
    if (!sftp_) return ssh_error(ErrorCode::kConnection, where_ + ": sftp", s_);
    if (sftp_init(sftp_) != SSH_OK) {
      sftp_free(sftp_);
      sftp_ = nullptr;
      return ssh_error(ErrorCode::kConnection, where_ + ": sftp init", s_);
    }
    return Status::Ok();
  }

  Status sftp_failure(const std::string& what) {
    int code = sftp_ ? sftp_get_error(sftp_) : SSH_FX_FAILURE;
    ErrorCode ec = ErrorCode::kInternal;
    if (code == SSH_FX_NO_SUCH_FILE || code == SSH_FX_NO_SUCH_PATH) ec = ErrorCode::kNotFound;
    if (code == SSH_FX_PERMISSION_DENIED) ec = ErrorCode::kAuth;
    if (!ssh_is_connected(s_)) ec = ErrorCode::kConnection;
    return breaker_.classify(make_error(ec, where_ + ": sftp " + what + ": " + ssh_get_error(s_)));
  }

  Status copy_fd_to_remote(int fd, const std::string& remote, uint32_t mode) {
    Status ready = ensure_sftp();
    if (!ready.ok()) return ready;
    sftp_file f = sftp_open(sftp_, remote.c_str(), O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (!f) return sftp_failure("open " + remote);
    std::vector<char> buf(kChunk);
    Status st;
    while (true) {
      ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n < 0) {
        st = make_error(ErrorCode::kInternal, std::string("read: ") + std::strerror(errno));
        break;
      }
      if (n == 0) break;
      if (sftp_write(f, buf.data(), n) != n) {
        st = sftp_failure("write " + remote);
        break;
      }
      breaker_.progress();
    }
    sftp_close(f);
    if (st.ok() && sftp_chmod(sftp_, remote.c_str(), mode) != SSH_OK)
      st = sftp_failure("chmod " + remote);
    return st;
  }

  Status rename_into_place(const std::string& tmp, const std::string& final_path) {
    // SFTP v3 rename refuses to replace; remove the old file first (the temp copy is complete).
    sftp_unlink(sftp_, final_path.c_str());
    if (sftp_rename(sftp_, tmp.c_str(), final_path.c_str()) != SSH_OK)
      return sftp_failure("rename " + tmp);
    return Status::Ok();
  }

  ssh_session s_;
  std::string where_;
  LinkWatch watch_;
  int open_timeout_ms_;
  Breaker breaker_;  // after where_: it keeps a copy
  sftp_session sftp_ = nullptr;
};

class LibsshConnector : public RemoteConnector {
 public:
  Result<std::unique_ptr<RemoteSession>> connect(SshTarget& t) override {
    if (Status loaded = libssh_dl::load(); !loaded.ok()) return loaded.error();
    ssh_session s = ssh_new();
    if (!s) return make_error(ErrorCode::kInternal, "ssh: out of memory");
    long timeout_s = std::max(1, t.io_timeout_s);
    int port = t.port;
    int no = 0;
    ssh_options_set(s, SSH_OPTIONS_HOST, t.host.c_str());
    ssh_options_set(s, SSH_OPTIONS_PORT, &port);
    ssh_options_set(s, SSH_OPTIONS_USER, t.user.c_str());
    ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout_s);
    // burst pins host keys itself; keep the user's ~/.ssh config and known_hosts out of it.
    ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);
    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, "/dev/null");
    ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");
    // No Nagle: a command start is a few small packets each way (channel open, exec request),
    // and Nagle held each one back for the peer's delayed ACK, about 40 ms per command start.
    int yes = 1;
    ssh_options_set(s, SSH_OPTIONS_NODELAY, &yes);
    // Benchmarks pin one cipher on both burst and OpenSSH's tools (bench/sync_bench.py).
    if (const char* ciphers = std::getenv("BURST_SSH_CIPHERS"); ciphers && *ciphers) {
      ssh_options_set(s, SSH_OPTIONS_CIPHERS_C_S, ciphers);
      ssh_options_set(s, SSH_OPTIONS_CIPHERS_S_C, ciphers);
    }
    std::string w = where(t);
    auto fail = [&](ErrorCode code, const std::string& what) {
      Error e = ssh_error(code, w + ": " + what, s);
      ssh_free(s);
      return e;
    };
    if (ssh_connect(s) != SSH_OK) return fail(ErrorCode::kConnection, "connect");
    std::string fp = host_key_fingerprint(s);
    if (fp.empty()) {
      ssh_disconnect(s);
      return fail(ErrorCode::kConnection, "no host key");
    }
    if (!t.pinned_host_key.empty() && t.pinned_host_key != fp) {
      ssh_disconnect(s);
      ssh_free(s);
      return make_error(ErrorCode::kInvalid, w + ": host key changed (pinned " + t.pinned_host_key +
                                                 ", offered " + fp + "): refusing to connect");
    }
    ssh_key key = nullptr;
    if (ssh_pki_import_privkey_file(t.private_key_path.c_str(), nullptr, nullptr, nullptr, &key) !=
        SSH_OK) {
      ssh_disconnect(s);
      ssh_free(s);
      return make_error(ErrorCode::kInvalid, w + ": cannot read private key " + t.private_key_path);
    }
    int rc = ssh_userauth_publickey(s, nullptr, key);
    ssh_key_free(key);
    if (rc != SSH_AUTH_SUCCESS) {
      ssh_disconnect(s);
      return fail(ErrorCode::kAuth, "public key refused");
    }
    t.pinned_host_key = fp;
    tune_socket(s, std::max(1, t.keepalive_idle_s), std::max(1, t.io_timeout_s));
    return std::unique_ptr<RemoteSession>(std::make_unique<LibsshSession>(
        s, w, std::max(1, t.keepalive_idle_s), std::max(1, t.io_timeout_s),
        std::max(1, t.no_progress_timeout_s)));
  }
};

}  // namespace

std::unique_ptr<RemoteConnector> make_libssh_connector() {
  return std::make_unique<LibsshConnector>();
}

}  // namespace burst

// Talking to a pod: run commands with their output streamed, move files. The libssh adapter
// (src/remote/) implements it; tests may substitute their own.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/result.h"

namespace burst {

struct SshTarget {
  std::string host;
  int port = 22;
  std::string user;
  std::string private_key_path;
  // SHA-256 fingerprint of the host key seen on first contact ("SHA256:..."), empty before. The
  // connector fills it on first contact and refuses a different key afterwards.
  std::string pinned_host_key;
  // A link that has carried nothing for keepalive_idle_s is probed (a channel open, which the
  // server answers itself); no answer within io_timeout_s means the link is lost (kConnection).
  // So a dead link (a partition, a NAT that forgot us) is noticed within about their sum.
  int keepalive_idle_s = 15;
  int io_timeout_s = 10;
  // A transfer or remote command (not one run with a should_stop callback: a quiet step is
  // watched by its caller) that receives zero bytes from the pod for this long fails with
  // kTimeout "no bytes from the pod for N s", even while the link itself answers keepalives.
  int no_progress_timeout_s = 60;  // burst run: config.yaml no_progress_seconds
};

// Receives remote output as it arrives. Called from the thread that called exec.
struct OutputSink {
  std::function<void(const char* data, size_t len)> out;
  std::function<void(const char* data, size_t len)> err;
};

struct RemoteFileInfo {
  std::string path;
  uint64_t size = 0;
  uint32_t mode = 0;
  int64_t mtime = 0;  // seconds since epoch
  bool is_dir = false;
};

// A remote command whose stdin and stdout are byte streams (sync's tar upload, pull's tar
// download, a hash running beside a transfer). Several may be open on one session at once; they
// share its thread, so a stream's output is buffered while another call runs.
class RemoteStream {
 public:
  virtual ~RemoteStream() = default;
  virtual Status write(const char* data, size_t len) = 0;  // to the command's stdin
  virtual Status close_stdin() = 0;
  // Up to `len` bytes of stdout; 0 once stdout is finished. kConnection if the link dies.
  virtual Result<size_t> read(char* data, size_t len) = 0;
  // Reads and discards what is left of stdout, waits for the exit status; stderr in *err.
  virtual Result<int> finish(std::string* err) = 0;
};

class RemoteSession {
 public:
  virtual ~RemoteSession() = default;

  // Runs `command` through the remote user's shell. Returns its exit status (a signal death is
  // 128+signal). Calls `should_stop` about every 100 ms while waiting: when it returns true,
  // returns kInterrupted (the caller decides how to stop the remote process). A connection lost
  // mid-command is kConnection.
  virtual Result<int> exec(const std::string& command, const OutputSink& sink,
                           const std::function<bool()>& should_stop) = 0;

  // Runs `command` and returns its stdout; non-zero exit is kRemoteFailed with stderr kept.
  virtual Result<std::string> run_capture(const std::string& command) = 0;

  // SFTP. upload creates the file with `mode` and sets its mtime; write goes to a temp name
  // first and is renamed into place so a reader never sees half a file.
  virtual Status upload(const std::string& local_path, const std::string& remote_path,
                        uint32_t mode, int64_t mtime) = 0;
  virtual Status write_file(const std::string& remote_path, const std::string& content,
                            uint32_t mode) = 0;
  virtual Status mkdirs(const std::string& remote_path, uint32_t mode) = 0;
  virtual Result<RemoteFileInfo> stat(const std::string& remote_path) = 0;  // kNotFound if absent
  // Downloads to local_path exactly (the caller chooses a temp name and renames); sets mode/mtime.
  virtual Status download(const std::string& remote_path, const std::string& local_path) = 0;

  // Starts `command` with streamed stdin/stdout. Sessions that cannot say kInternal.
  virtual Result<std::unique_ptr<RemoteStream>> open_stream(const std::string& command) {
    (void)command;
    return make_error(ErrorCode::kInternal, "this session cannot stream commands");
  }
  // SFTP read from `offset` to the end of the file with many requests in flight; hands the bytes
  // to `sink` in order. When sink returns false, stops with kInterrupted.
  virtual Status read_file(const std::string& remote_path, uint64_t offset,
                           const std::function<bool(const char*, size_t)>& sink) {
    (void)remote_path;
    (void)offset;
    (void)sink;
    return make_error(ErrorCode::kInternal, "this session cannot read files in a pipeline");
  }

  // Thread-safe; may be called from any thread while another is blocked in this session. Breaks
  // the link without waiting on the pod: every call blocked now, and every later call, returns
  // promptly with kInterrupted ("aborted"). The session is unusable afterwards. Sessions that
  // never block (test fakes) may leave it a no-op.
  virtual void abort() {}
};

class RemoteConnector {
 public:
  virtual ~RemoteConnector() = default;
  // One attempt to connect and authenticate. May update target.pinned_host_key on first contact.
  virtual Result<std::unique_ptr<RemoteSession>> connect(SshTarget& target) = 0;
};

// Retries connect() while the pod boots, until `deadline` (monotonic: a wall clock step changes
// nothing, burst/clock.h); returns the last error on timeout.
// A refused key (kAuth) is retried, since a booting image installs authorized_keys late, unless
// `auth_is_final`: a pod that is already up (a reattach) will not start accepting the key.
Result<std::unique_ptr<RemoteSession>> connect_with_retry(RemoteConnector& connector,
                                                          SshTarget& target, Clock& clock,
                                                          MonoTime deadline,
                                                          const std::function<bool()>& should_stop,
                                                          bool auth_is_final = false);

// The libssh implementation.
std::unique_ptr<RemoteConnector> make_libssh_connector();

}  // namespace burst

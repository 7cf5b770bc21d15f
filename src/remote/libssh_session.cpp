// The libssh adapter: the only file that includes libssh headers.
#include <fcntl.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "burst/remote.h"

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

class LibsshSession : public RemoteSession {
 public:
  LibsshSession(ssh_session s, std::string where) : s_(s), where_(std::move(where)) {}
  ~LibsshSession() override {
    if (sftp_) sftp_free(sftp_);
    ssh_disconnect(s_);
    ssh_free(s_);
  }

  Result<int> exec(const std::string& command, const OutputSink& sink,
                   const std::function<bool()>& should_stop) override {
    ssh_channel ch = ssh_channel_new(s_);
    if (!ch) return ssh_error(ErrorCode::kConnection, where_ + ": open channel", s_);
    struct Closer {
      ssh_channel ch;
      ~Closer() {
        ssh_channel_close(ch);
        ssh_channel_free(ch);
      }
    } closer{ch};
    if (ssh_channel_open_session(ch) != SSH_OK)
      return ssh_error(ErrorCode::kConnection, where_ + ": open session", s_);
    if (ssh_channel_request_exec(ch, command.c_str()) != SSH_OK)
      return ssh_error(ErrorCode::kConnection, where_ + ": exec", s_);
    std::vector<char> buf(kChunk);
    while (true) {
      if (should_stop && should_stop()) return make_error(ErrorCode::kInterrupted, "interrupted");
      int n = ssh_channel_read_timeout(ch, buf.data(), buf.size(), 0, kPollMs);
      if (n == SSH_ERROR) return lost();
      if (n > 0 && sink.out) sink.out(buf.data(), n);
      int m = ssh_channel_read_nonblocking(ch, buf.data(), buf.size(), 1);
      if (m == SSH_ERROR) return lost();
      if (m > 0 && sink.err) sink.err(buf.data(), m);
      if (n <= 0 && m <= 0 && ssh_channel_is_eof(ch)) break;
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

 private:
  Error lost() {
    return make_error(ErrorCode::kConnection, where_ + ": connection lost: " + ssh_get_error(s_));
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
    return make_error(ec, where_ + ": sftp " + what + ": " + ssh_get_error(s_));
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
  sftp_session sftp_ = nullptr;
};

class LibsshConnector : public RemoteConnector {
 public:
  Result<std::unique_ptr<RemoteSession>> connect(SshTarget& t) override {
    ssh_session s = ssh_new();
    if (!s) return make_error(ErrorCode::kInternal, "ssh: out of memory");
    long timeout_s = 10;
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
    return std::unique_ptr<RemoteSession>(std::make_unique<LibsshSession>(s, w));
  }
};

}  // namespace

std::unique_ptr<RemoteConnector> make_libssh_connector() {
  return std::make_unique<LibsshConnector>();
}

}  // namespace burst

#include "remote/libssh_sftp.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

namespace burst::libssh {
namespace {

// Requests in flight for a pipelined SFTP read, and their size: 64 x 64 KiB = 4 MiB buffered at
// most, enough to fill the pipe on any link we have measured (see bench/README.md).
constexpr int kReadsInFlight = 64;
constexpr uint32_t kReadChunk = 64 * 1024;

// What is at `path`: nothing the server would stat (nullopt), a directory (true), or else (false).
std::optional<bool> stat_is_directory(sftp_session sftp, const std::string& path) {
  sftp_attributes a = sftp_stat(sftp, path.c_str());
  if (!a) return std::nullopt;
  const bool dir = a->type == SSH_FILEXFER_TYPE_DIRECTORY;
  sftp_attributes_free(a);
  return dir;
}

}  // namespace

Sftp::~Sftp() { close(); }

void Sftp::close() {
  if (sftp_) sftp_free(sftp_);
  sftp_ = nullptr;
}

Status Sftp::upload(const std::string& local_path, const std::string& remote_path, uint32_t mode,
                    int64_t mtime) {
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

Status Sftp::write_file(const std::string& remote_path, const std::string& content, uint32_t mode) {
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

Status Sftp::mkdirs(const std::string& remote_path, uint32_t mode) {
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
    const std::optional<bool> dir = stat_is_directory(sftp_, partial);
    breaker_.progress();
    if (dir) {
      if (!*dir)
        return make_error(ErrorCode::kInvalid, where_ + ": " + partial + " is not a directory");
      continue;
    }
    if (sftp_mkdir(sftp_, partial.c_str(), mode) != SSH_OK) {
      // Another session may have made it since the stat: the workers of a wide job make the same
      // directories on one shared volume (a lost race fails with SFTP's bare "Failure", found
      // under load, 2026-11-30). A directory there now is what was asked for. The mkdir's own
      // error is taken first: the stat would replace the session's last error.
      Status failed = sftp_failure("mkdir " + partial);
      if (stat_is_directory(sftp_, partial) != std::optional<bool>(true)) return failed;
    }
  }
  return Status::Ok();
}

Result<RemoteFileInfo> Sftp::stat(const std::string& remote_path) {
  Status ready = ensure_sftp();
  if (!ready.ok()) return ready.error();
  sftp_attributes a = sftp_stat(sftp_, remote_path.c_str());
  if (!a) return sftp_failure("stat " + remote_path).error();
  RemoteFileInfo info{remote_path, a->size, a->permissions & 07777, static_cast<int64_t>(a->mtime),
                      a->type == SSH_FILEXFER_TYPE_DIRECTORY};
  sftp_attributes_free(a);
  return info;
}

Status Sftp::download(const std::string& remote_path, const std::string& local_path) {
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

Status Sftp::read_file(const std::string& remote_path, uint64_t offset,
                       const std::function<bool(const char*, size_t)>& sink) {
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

Status Sftp::ensure_sftp() {
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

Status Sftp::sftp_failure(const std::string& what) {
  int code = sftp_ ? sftp_get_error(sftp_) : SSH_FX_FAILURE;
  ErrorCode ec = ErrorCode::kInternal;
  if (code == SSH_FX_NO_SUCH_FILE || code == SSH_FX_NO_SUCH_PATH) ec = ErrorCode::kNotFound;
  if (code == SSH_FX_PERMISSION_DENIED) ec = ErrorCode::kAuth;
  if (!ssh_is_connected(s_)) ec = ErrorCode::kConnection;
  return breaker_.classify(make_error(ec, where_ + ": sftp " + what + ": " + ssh_get_error(s_)));
}

Status Sftp::copy_fd_to_remote(int fd, const std::string& remote, uint32_t mode) {
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

Status Sftp::rename_into_place(const std::string& tmp, const std::string& final_path) {
  // SFTP v3 rename refuses to replace; remove the old file first (the temp copy is complete).
  sftp_unlink(sftp_, final_path.c_str());
  if (sftp_rename(sftp_, tmp.c_str(), final_path.c_str()) != SSH_OK)
    return sftp_failure("rename " + tmp);
  return Status::Ok();
}

}  // namespace burst::libssh

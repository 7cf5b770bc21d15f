// File transfer over SFTP on one libssh session (RemoteSession's upload, write_file, mkdirs, stat,
// download, read_file): files land under a temporary name and are renamed into place with their
// exact mode; reads are pipelined (64 requests of 64 KiB in flight). The SFTP channel is opened on
// first use. The caller checks the session's Breaker and marks the call busy
// (remote/ssh_breaker.h); every byte heard here counts as progress and every error is classified
// through it. Used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "burst/remote.h"
#include "remote/libssh_calls.h"
#include "remote/ssh_breaker.h"
#include "remote/ssh_link.h"

namespace burst::libssh {

class Sftp {
 public:
  Sftp(ssh_session s, std::string where, Breaker& breaker)
      : s_(s), where_(std::move(where)), breaker_(breaker) {}
  ~Sftp();
  Sftp(const Sftp&) = delete;
  Sftp& operator=(const Sftp&) = delete;
  void close();  // frees the SFTP channel; before the session is disconnected

  Status upload(const std::string& local_path, const std::string& remote_path, uint32_t mode,
                int64_t mtime);
  Status write_file(const std::string& remote_path, const std::string& content, uint32_t mode);
  Status mkdirs(const std::string& remote_path, uint32_t mode);
  Result<RemoteFileInfo> stat(const std::string& remote_path);
  Status download(const std::string& remote_path, const std::string& local_path);
  Status read_file(const std::string& remote_path, uint64_t offset,
                   const std::function<bool(const char*, size_t)>& sink);

 private:
  Status ensure_sftp();
  Status sftp_failure(const std::string& what);
  Status copy_fd_to_remote(int fd, const std::string& remote, uint32_t mode);
  Status rename_into_place(const std::string& tmp, const std::string& final_path);

  ssh_session s_;
  const std::string where_;
  Breaker& breaker_;
  sftp_session sftp_ = nullptr;
};

}  // namespace burst::libssh

#include "burst/ssh_keys.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "remote/libssh_calls.h"

namespace burst {
namespace fs = std::filesystem;

namespace {

// Holds an exclusive flock on `<key>.lock` (beside the key, in the config dir by default) for its
// lifetime, so that of several first jobs started at once in a fresh config dir exactly one makes
// the key and the others wait, then read it. Released when the descriptor closes.
class KeyLock {
 public:
  explicit KeyLock(const std::string& key_path) {
    const std::string lock = key_path + ".lock";
    fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      error_ = "ssh key: cannot open lock file " + lock + ": " + std::strerror(errno);
      return;
    }
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) {
        error_ = "ssh key: cannot lock " + lock + ": " + std::strerror(errno);
        return;
      }
  }
  ~KeyLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  KeyLock(const KeyLock&) = delete;
  KeyLock& operator=(const KeyLock&) = delete;
  const std::string& error() const { return error_; }

 private:
  int fd_ = -1;
  std::string error_;
};

// Writes a new ed25519 pair: the private key to a temporary file renamed onto `path`, so no
// reader ever sees a partly written key.
Status generate_key(const std::string& path) {
  ssh_key key = nullptr;
  if (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &key) != SSH_OK)
    return make_error(ErrorCode::kInternal, "ssh key: cannot generate an ed25519 key");
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  // Created 0600 from the first byte: no moment where the umask leaves it readable.
  const mode_t old_mask = ::umask(077);
  int rc = ssh_pki_export_privkey_file(key, nullptr, nullptr, nullptr, tmp.c_str());
  ::umask(old_mask);
  ssh_key_free(key);
  if (rc != SSH_OK || ::chmod(tmp.c_str(), 0600) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return make_error(ErrorCode::kInternal, "ssh key: cannot write " + path);
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> ensure_keypair(const std::string& path) {
  if (Status loaded = libssh_dl::load(); !loaded.ok()) return loaded.error();
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  KeyLock lock(path);
  if (!lock.error().empty()) return make_error(ErrorCode::kInternal, lock.error());
  if (!fs::exists(path, ec))
    if (Status made = generate_key(path); !made.ok()) return made.error();
  // As OpenSSH does: a private key others can read is compromised; refuse it, say how to fix.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return make_error(ErrorCode::kInvalid, "ssh key: " + path + " has mode " + mode +
                                               ", so other users can read it; run `chmod 600 " +
                                               path + "`");
  }
  ssh_key priv = nullptr;
  if (ssh_pki_import_privkey_file(path.c_str(), nullptr, nullptr, nullptr, &priv) != SSH_OK)
    return make_error(ErrorCode::kInvalid,
                      "ssh key: cannot read " + path + " (burst needs an unencrypted key)");
  ssh_key pub = nullptr;
  char* b64 = nullptr;
  std::string line;
  if (ssh_pki_export_privkey_to_pubkey(priv, &pub) == SSH_OK &&
      ssh_pki_export_pubkey_base64(pub, &b64) == SSH_OK) {
    line = std::string(ssh_key_type_to_char(ssh_key_type(pub))) + " " + b64 + " burst";
  }
  ssh_string_free_char(b64);
  ssh_key_free(pub);
  ssh_key_free(priv);
  if (line.empty()) return make_error(ErrorCode::kInternal, "ssh key: cannot derive public key");
  std::string pub_path = path + ".pub";  // still under the lock: written once, whole
  if (!fs::exists(pub_path, ec)) std::ofstream(pub_path) << line << "\n";
  return line;
}

}  // namespace burst

#include "burst/ssh_keys.h"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "remote/libssh_calls.h"

namespace burst {
namespace fs = std::filesystem;

Result<std::string> ensure_keypair(const std::string& path) {
  if (Status loaded = libssh_dl::load(); !loaded.ok()) return loaded.error();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    fs::create_directories(fs::path(path).parent_path(), ec);
    ssh_key key = nullptr;
    if (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &key) != SSH_OK)
      return make_error(ErrorCode::kInternal, "ssh key: cannot generate an ed25519 key");
    // Created 0600 from the first byte: no moment where the umask leaves it readable.
    const mode_t old_mask = ::umask(077);
    int rc = ssh_pki_export_privkey_file(key, nullptr, nullptr, nullptr, path.c_str());
    ::umask(old_mask);
    ssh_key_free(key);
    if (rc != SSH_OK) return make_error(ErrorCode::kInternal, "ssh key: cannot write " + path);
    ::chmod(path.c_str(), 0600);
  }
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
  std::string pub_path = path + ".pub";
  if (!fs::exists(pub_path, ec)) std::ofstream(pub_path) << line << "\n";
  return line;
}

}  // namespace burst

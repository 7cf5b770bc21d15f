// The libssh adapter's connect (burst/remote.h, make_libssh_connector): loads libssh on first use,
// opens the TCP connection with the user's ssh config and known_hosts kept out, pins the host key
// (a changed key refuses to connect), authenticates with the job's private key, tunes the socket
// (remote/ssh_link.h) and hands the session to remote/libssh_session.h.
#include <algorithm>
#include <cstdlib>

#include "burst/remote.h"
#include "remote/libssh_calls.h"
#include "remote/libssh_session.h"
#include "remote/ssh_link.h"

namespace burst {
namespace {

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
    // No Nagle: a command start is a few small packets each way (channel open, exec request), and
    // Nagle held each one back for the peer's delayed ACK, about 40 ms per command start.
    int yes = 1;
    ssh_options_set(s, SSH_OPTIONS_NODELAY, &yes);
    // Benchmarks pin one cipher on both burst and OpenSSH's tools (bench/sync_bench.py).
    if (const char* ciphers = std::getenv("BURST_SSH_CIPHERS"); ciphers && *ciphers) {
      ssh_options_set(s, SSH_OPTIONS_CIPHERS_C_S, ciphers);
      ssh_options_set(s, SSH_OPTIONS_CIPHERS_S_C, ciphers);
    }
    std::string w = libssh::where(t);
    auto fail = [&](ErrorCode code, const std::string& what) {
      Error e = libssh::ssh_error(code, w + ": " + what, s);
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
    libssh::tune_socket(s, std::max(1, t.keepalive_idle_s), std::max(1, t.io_timeout_s));
    return libssh::make_libssh_session(s, w, std::max(1, t.keepalive_idle_s),
                                       std::max(1, t.io_timeout_s),
                                       std::max(1, t.no_progress_timeout_s));
  }
};

}  // namespace

std::unique_ptr<RemoteConnector> make_libssh_connector() {
  return std::make_unique<LibsshConnector>();
}

}  // namespace burst

#include "runpod/runpod_ssh.h"

#include <cctype>
#include <cstring>

#include "util/base64.h"

namespace burst {
namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  return s;
}

// "<type> <base64>": the part of a key line that identifies it (SkyPilot compares the same).
std::string key_identity(const std::string& line) {
  const std::string s = trimmed(line);
  const size_t a = s.find(' ');
  if (a == std::string::npos) return s;
  const size_t b = s.find(' ', a + 1);
  return b == std::string::npos ? s : s.substr(0, b);
}

}  // namespace

bool runpod_image_runs_sshd(const std::string& image) {
  // RunPod's official images start sshd from PUBLIC_KEY ("all RunPod official images do",
  // CreatePodRequest.startSsh in the v2 spec). Anything else is assumed to have no SSH server.
  static const char* const kSshdImages[] = {"runpod/", "docker.io/runpod/"};
  for (const char* prefix : kSshdImages)
    if (image.rfind(prefix, 0) == 0) return true;
  return false;
}

Result<std::string> runpod_ssh_bootstrap_script(const std::string& public_key) {
  // "<type> <base64> [comment]": type and key are checked strictly; a comment with anything the
  // shell could expand inside double quotes (or any odd character) is dropped, not quoted.
  const std::string line = trimmed(public_key);
  auto only = [](const std::string& s, const char* extra) {
    for (char c : s)
      if (!std::isalnum(static_cast<unsigned char>(c)) && (c == 0 || !std::strchr(extra, c)))
        return false;
    return !s.empty();
  };
  const size_t a = line.find(' ');
  const size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
  const std::string type = line.substr(0, a);
  const std::string blob = a == std::string::npos ? "" : line.substr(a + 1, b - a - 1);
  const std::string comment = b == std::string::npos ? "" : trimmed(line.substr(b + 1));
  const bool typed =
      type.rfind("ssh-", 0) == 0 || type.rfind("ecdsa-", 0) == 0 || type.rfind("sk-", 0) == 0;
  if (!typed || !only(type, "@.-") || !only(blob, "+/=") ||
      line.find_first_of("\r\n") != std::string::npos)
    return make_error(ErrorCode::kInvalid,
                      "runpod: the SSH public key is not one plain authorized_keys line "
                      "(\"ssh-ed25519 AAAA... comment\"); cannot start sshd with it");
  std::string key = type + " " + blob;
  if (only(comment, " @._+/=:,-")) key += " " + comment;
  // The script itself can use any quoting: it travels base64-encoded (below). It installs OpenSSH
  // when the image has none, authorises the key, keeps the image's environment for SSH sessions
  // (sshd gives every session a fresh one: PATH and LD_LIBRARY_PATH of a conda or CUDA image
  // would be lost), then runs sshd and keeps the container alive.
  const std::string script =
      "k=\"" + key +
      "\"\n"
      "if ! command -v sshd >/dev/null 2>&1 && [ ! -x /usr/sbin/sshd ]; then\n"
      "  if command -v apt-get >/dev/null 2>&1; then apt-get update -qq && "
      "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server openssh-sftp-server\n"
      "  elif command -v apk >/dev/null 2>&1; then apk add --no-cache openssh\n"
      "  elif command -v dnf >/dev/null 2>&1; then dnf install -y openssh-server\n"
      "  elif command -v yum >/dev/null 2>&1; then yum install -y openssh-server\n"
      "  fi\n"
      "fi\n"
      "mkdir -p /root/.ssh /run/sshd && chmod 700 /root/.ssh\n"
      "echo \"$k\" >> /root/.ssh/authorized_keys && chmod 600 /root/.ssh/authorized_keys\n"
      // Login shells (`burst ssh`) read /etc/profile.d (SkyPilot's way); commands (every step)
      // get ~/.ssh/environment through PermitUserEnvironment (dstack's way).
      "mkdir -p /etc/profile.d && export -p | grep -v ' PUBLIC_KEY=' > "
      "/etc/profile.d/burst-container-env.sh\n"
      "env | grep -E '^[A-Za-z_][A-Za-z0-9_]*=' | "
      "grep -v -E '^(PUBLIC_KEY|HOME|PWD|SHLVL|OLDPWD|_)=' > /root/.ssh/environment\n"
      "chmod 600 /root/.ssh/environment\n"
      "ssh-keygen -A\n"
      "$(command -v sshd || echo /usr/sbin/sshd) -D -e -o PermitRootLogin=prohibit-password "
      "-o PasswordAuthentication=no -o PermitUserEnvironment=yes &\n"
      "while sleep 3600; do :; done\n";
  return script;
}

Result<std::string> runpod_ssh_bootstrap_args(const std::string& public_key) {
  auto script = runpod_ssh_bootstrap_script(public_key);
  if (!script.ok()) return script.error();
  // RunPod documents `args` only as "Arguments passed to the container entrypoint", not how the
  // string is split into words. SkyPilot base64-wraps its bootstrap "to deal with the tricky
  // quoting issues caused by runpod API" (sky/provision/runpod/utils.py): the same here, so the
  // string holds only words, one single-quoted span, and the characters | > ; of the wrapper.
  return "sh -c 'echo " + base64_encode(*script) +
         " | base64 -d > /tmp/burst-bootstrap.sh; sh /tmp/burst-bootstrap.sh'";
}

std::vector<std::string> runpod_merged_ssh_keys(const std::vector<std::string>& existing,
                                                const std::string& public_key) {
  const std::string key = trimmed(public_key);
  if (key.empty()) return {};
  for (const auto& k : existing)
    if (key_identity(k) == key_identity(key)) return {};
  std::vector<std::string> out = existing;
  out.push_back(key);
  return out;
}

}  // namespace burst

// The OpenSSH config file burst owns (<config dir>/ssh_config): one Host entry per live pod, so
// `ssh burst-<job>` (and `burst-<job>-w<i>`, `burst-<job>-cpu`) reaches it once the user's
// ~/.ssh/config has `Include <that file>` (burst never edits ~/.ssh/config; docs/cli.md says how).
// An entry is written when a pod becomes reachable over SSH and removed when the pod is deleted
// (and, as a sweep, when its job ends). Every change holds an exclusive flock(2) on
// "<file>.lock" and replaces the file by rename(2) from a temp file, so concurrent jobs neither
// lose each other's entries nor let ssh read half a file. Each entry opens with a marker line
// "# burst job <job> pod <pod>" that the edits key on; other lines in the file are kept.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "burst/result.h"

namespace burst {

struct SshHostEntry {
  std::vector<std::string> aliases;  // Host patterns, e.g. {"burst-j1-w0", "burst-j1"}
  std::string job_id;
  std::string pod_id;
  std::string host;
  int port = 22;
  std::string user;
  std::string identity_file;     // burst's private key
  std::string known_hosts_file;  // this pod's own known_hosts (the host key ssh accepts)
};

// <config_dir>/ssh_config.
std::string ssh_hosts_path(const std::string& config_dir);

// The Host alias of a job's pod: "burst-<job>", "burst-<job>-w<i>" or "burst-<job>-cpu"; bytes
// outside [A-Za-z0-9._-] become '-'. worker < 0: the job itself.
std::string ssh_host_alias(const std::string& job_id, int worker = -1, bool cpu = false);

// The entry's text: its marker line, then Host and its options, each value quoted when needed.
std::string render_ssh_host(const SshHostEntry& entry);

// Adds `entry`, replacing any entry for the same pod or with one of its aliases.
Status add_ssh_host(const std::string& path, const SshHostEntry& entry);

// Removes the entry of `pod_id` (when not empty) and every entry of `job_id` (when not empty).
// No file, or nothing to remove: Ok, and the file is left as it was.
Status remove_ssh_hosts(const std::string& path, std::string_view job_id, std::string_view pod_id);

// Whether ~/.ssh/config (at `user_config`) already has an Include naming `path`.
bool ssh_config_includes(const std::string& user_config, const std::string& path);

}  // namespace burst

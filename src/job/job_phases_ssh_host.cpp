// JobPhases::publish_ssh_host: the `ssh burst-<job>` entry of a pod that answers (moved out of
// job_phases.cpp to keep that file from growing).
#include <cstdlib>
#include <filesystem>

#include "job/job_phases.h"
#include "util/ssh_hosts_file.h"

namespace burst {

void JobPhases::publish_ssh_host(const PodHandle& pod, bool cpu) {
  // A Host entry for `ssh burst-<job>` in the file burst owns (util/ssh_hosts_file.h); failing
  // to write it never fails the job.
  std::error_code ec;
  if (d_.config.config_dir.empty() || !std::filesystem::is_directory(d_.config.config_dir, ec))
    return;
  const std::string path = ssh_hosts_path(d_.config.config_dir);
  SshHostEntry e;
  const std::string job = in_.job_id;
  if (cpu) {
    e.aliases = {ssh_host_alias(job, -1, true)};
  } else if (wide()) {
    e.aliases = {ssh_host_alias(job, in_.worker.index)};
    if (in_.worker.index == 0) e.aliases.push_back(ssh_host_alias(job));
  } else {
    e.aliases = {ssh_host_alias(job)};
  }
  e.job_id = job;
  e.pod_id = pod.record.pod_id;
  e.host = pod.target.host;
  e.port = pod.target.port;
  e.user = pod.target.user;
  e.identity_file = d_.config.ssh_key;
  e.known_hosts_file = d_.config.state_dir + "/ssh/" + pod.record.pod_id + ".known_hosts";
  std::filesystem::create_directories(d_.config.state_dir + "/ssh", ec);
  if (Status st = add_ssh_host(path, e); !st.ok()) {
    say("ssh config entry not written: " + st.error().message);
    return;
  }
  const char* home = std::getenv("HOME");
  const bool included = home && ssh_config_includes(std::string(home) + "/.ssh/config", path);
  say("`ssh " + e.aliases.front() + "` reaches this pod" +
      (included ? "" : " once ~/.ssh/config starts with: Include " + path));
}

}  // namespace burst

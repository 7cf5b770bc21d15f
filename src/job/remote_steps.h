// Running the spec's shell steps on a pod. Secrets never appear on a command line (where `ps`
// would show them): they travel over SFTP into a 0600 env file in the pod's own directory, which
// each step sources. Each step records its PID so it can be stopped as a process group.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "burst/remote.h"

namespace burst {

struct PodPaths {
  std::string volume;   // the persistent volume's root as the pod sees it ($BURST_VOLUME)
  std::string pod_dir;  // the pod's private scratch dir ($BURST_POD_DIR)
};

// Asks the pod where its volume and private dir are. Providers that do not set BURST_VOLUME get
// `mount_path`; BURST_POD_DIR defaults to $HOME/.burst-pod.
Result<PodPaths> probe_pod(RemoteSession& session, const std::string& mount_path);

// Writes <pod_dir>/env.sh (mode 0600) exporting every variable.
Status install_env(RemoteSession& session, const PodPaths& paths,
                   const std::map<std::string, std::string>& env);

// Uploads `script` as <pod_dir>/<step>.sh and runs it with bash -e (sh -e without bash) in
// `workdir` after sourcing env.sh. Output arrives line by line on `on_line(is_stderr, line)`.
Result<int> run_step(RemoteSession& session, const PodPaths& paths, const std::string& step,
                     const std::string& script, const std::string& workdir,
                     const std::function<void(bool, const std::string&)>& on_line,
                     const std::function<bool()>& should_stop);

// Sends SIGTERM, then SIGKILL, to the step's process group. Best effort: the pod's deletion is
// what guarantees nothing keeps running.
void stop_step(RemoteSession& session, const PodPaths& paths, const std::string& step);

// Splits a byte stream into lines.
class LineSplitter {
 public:
  explicit LineSplitter(std::function<void(const std::string&)> emit) : emit_(std::move(emit)) {}
  void feed(const char* data, size_t len);
  void flush();

 private:
  std::function<void(const std::string&)> emit_;
  std::string partial_;
};

}  // namespace burst

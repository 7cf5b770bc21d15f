// Running the spec's shell steps on a pod. Secrets never appear on a command line (where `ps`
// would show them): they travel over SFTP into a 0600 env file in the pod's own directory, which
// each step sources. Each step runs under a supervisor on the pod that survives the SSH session
// (setsid; nohup where setsid is missing) and writes, in the pod's own directory:
//   <step>.pid     the supervisor's pid, which (with setsid) is the step's process group
//   <step>.out/err the step's stdout and stderr
//   <step>.status  its exit status, written last (temp name, then rename)
// burst follows the two output files from byte offsets, so a restarted burstd can reattach to a
// run step and continue its log where the previous follower stopped (docs/daemon.md, Recovery).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "burst/remote.h"
#include "job/line_splitter.h"

namespace burst {

struct StepContainer;  // job/step_container.h

struct PodPaths {
  std::string volume;   // the persistent volume's root as the pod sees it ($BURST_VOLUME)
  std::string pod_dir;  // the pod's private scratch dir ($BURST_POD_DIR)
};

// Asks the pod where its volume and private dir are. Providers that do not set BURST_VOLUME get
// `mount_path`; BURST_POD_DIR defaults to `pod_dir` (the provider's Pod::work_dir: your own
// hosts' per-job dir), else $HOME/.burst-pod. The answer is read up to kMaxAnswer bytes
// (job/step_answers.h) and must be two absolute paths.
Result<PodPaths> probe_pod(RemoteSession& session, const std::string& mount_path,
                           const std::string& pod_dir = "");
// The command probe_pod runs (tests render it with hostile mount paths).
std::string probe_pod_command(const std::string& mount_path, const std::string& pod_dir = "");

// Writes <pod_dir>/env.sh (mode 0600) exporting every variable.
Status install_env(RemoteSession& session, const PodPaths& paths,
                   const std::map<std::string, std::string>& env);

// Byte offsets into <step>.out and <step>.err.
struct StepOffsets {
  uint64_t out = 0;
  uint64_t err = 0;
};

// A quiet step is healthy; a silent pod is not. The follower on the pod ends itself after
// `quiet_s` without output (burst follows again from its offsets), so a live follower sends
// something at least that often; `silence_s` without a byte means the pod stopped answering
// (frozen, or a shell that never replies while its sshd still answers keepalives): kTimeout
// "no bytes from the pod for N s ...", and the runner deletes the pod.
struct StepTimeouts {
  int quiet_s = 30;
  int silence_s = 120;
};

// Uploads `script` as <pod_dir>/<step>.sh, starts it under the supervisor with bash -e (sh -e
// without bash) in `workdir` after sourcing env.sh (the environment, never argv, carries the
// secrets), and follows it as follow_step does from the start, all in one SSH command. Returns
// the step's exit status. With `container` the step runs inside the spec's image instead
// (job/step_container.h: its env file replaces env.sh).
Result<int> run_step(RemoteSession& session, const PodPaths& paths, const std::string& step,
                     const std::string& script, const std::string& workdir,
                     const std::function<void(bool, const std::string&)>& on_line,
                     const std::function<void(const StepOffsets&)>& on_offsets,
                     const std::function<bool()>& should_stop, const StepTimeouts& limits = {},
                     const StepContainer* container = nullptr);

// Streams the output of a step already started by run_step from `from` until the supervisor
// writes the exit status, and returns it (reattach). Output arrives line by line on
// `on_line(is_stderr, line)`; after each batch of complete lines `on_offsets` gets the offsets
// just past them, so a follower that restarts from there neither loses nor repeats a line.
// Lines are bounded and "\r" ends one (job/line_splitter.h). `should_stop` -> kInterrupted (the
// step keeps running; see stop_step). A supervisor that died without a status (killed), or a
// status file that is not a number 0..255, is kRemoteFailed.
Result<int> follow_step(RemoteSession& session, const PodPaths& paths, const std::string& step,
                        StepOffsets from,
                        const std::function<void(bool, const std::string&)>& on_line,
                        const std::function<void(const StepOffsets&)>& on_offsets,
                        const std::function<bool()>& should_stop, const StepTimeouts& limits = {});

// kNotFound unless the step's supervisor files (pid, out, err) are on the pod: nothing to
// reattach to.
Status check_step_files(RemoteSession& session, const PodPaths& paths, const std::string& step);

// Sends SIGTERM, then SIGKILL, to the step's process group. Best effort: the pod's deletion is
// what guarantees nothing keeps running.
// With `container`, its container is killed too.
void stop_step(RemoteSession& session, const PodPaths& paths, const std::string& step,
               const StepContainer* container = nullptr);

}  // namespace burst

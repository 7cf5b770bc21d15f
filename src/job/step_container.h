// Steps inside the spec's image on a provider whose pods are VMs (ProviderTraits::
// steps_in_container: Lambda). Once per pod the runner writes the job's environment as a docker
// --env-file (<pod_dir>/env.docker, mode 0600, over SFTP: no value ever reaches a command line,
// where `ps` on the VM would show it) and pulls the image. Each step's supervisor
// (job/remote_steps.h) then runs, instead of the step's shell on the VM:
//   docker run --rm --init --name NAME [--gpus all] --env-file <pod_dir>/env.docker
//     -v P:P ... -w <workdir> IMAGE sh -c '<bash -e, or sh -e without bash> <pod_dir>/<step>.sh'
// with the workdir, the volume and the pod's dir bind-mounted at the paths they have on the VM,
// so a step sees the same paths ($BURST_VOLUME, its workdir) as on the other clouds. Stopping a
// step also kills its container by NAME: the docker client forwards SIGTERM to the container
// (--init's PID 1 passes it on) but a SIGKILL to the client leaves the container running. Where
// the login user cannot reach the docker daemon, `sudo -n docker` is used.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "burst/remote.h"
#include "burst/result.h"

namespace burst {

struct StepContainer {
  std::string image;   // the spec's image, as docker names it
  std::string prefix;  // container names: <prefix>-<step>; [a-zA-Z0-9_.-] only (container_prefix)
  bool gpus = true;    // --gpus all (the NVIDIA runtime); false on a CPU pod
  std::vector<std::string> mounts;  // absolute paths on the VM, bound at the same path
  std::string workdir;              // -w
  std::string env_file;             // <pod_dir>/env.docker
};

// "burst-<job id>" with every byte docker refuses in a container name replaced by '-'.
std::string container_prefix(const std::string& job_id);

// The --env-file text: one VAR=value line each, values verbatim (docker reads them so, with no
// quoting). kInvalid, naming the variable and never its value, for a value with a line break,
// which that format cannot carry.
Result<std::string> docker_env_file(const std::map<std::string, std::string>& env);

// Shell that sets $D to the docker command the login user may run ("docker", else
// "sudo -n docker"), or exits 127 with a message when the VM has no docker.
std::string docker_command_prelude();

// The command line the supervisor runs for `step` (script at <pod_dir>/<step>.sh): every
// argument quoted; it names the env file, never a value.
std::string container_run_command(const StepContainer& c, const std::string& pod_dir,
                                  const std::string& step);

// Kills the step's container (best effort, always exits 0).
std::string container_kill_command(const StepContainer& c, const std::string& step);

// `docker pull IMAGE` on the pod, its output passed line by line to on_line(is_stderr, line).
// A failed pull keeps docker's own message: kInvalid when the image does not exist or access is
// denied (the spec names an image docker cannot get), kRemoteFailed otherwise.
Status pull_image(RemoteSession& session, const std::string& image,
                  const std::function<void(bool, const std::string&)>& on_line,
                  const std::function<bool()>& should_stop);

// The error a failed pull becomes (pull_image; tests render it from docker's stderr).
Error pull_error(const std::string& image, int exit_status, const std::string& docker_stderr);

}  // namespace burst

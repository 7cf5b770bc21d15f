// The pod connection: from a created pod to one burst can run steps on. It waits for the
// provider to report the pod running (within config.yaml's ssh_wait_seconds, else the provider's
// own wait, and the job's money caps), checks it is listed, connects over SSH (pinning the host
// key at first contact; on reattach the pinned key must match), publishes the pod's
// `ssh burst-<job>` entry in burst's ssh_config (util/ssh_hosts_file.h), asks the pod where its
// volume and private dir are, and installs the steps' environment (secrets over SFTP, never on
// a command line), the worker's items, and where steps run in the spec's image, that image
// (pulled and checked: job/container_checks.h). Internal to src/job.
#pragma once

#include <functional>
#include <string>

#include "job/job_context.h"
#include "job/job_types.h"

namespace burst {

class PodConnection {
 public:
  PodConnection(JobContext& ctx, JobPods& pods);

  // Connects `pod` (created at `provider`); sets JobPods::workdir. With `reattach`, the pod was
  // set up by an earlier burst: its host key must be the pinned one and nothing is installed.
  // With `start_error` set, a pod the provider reports unable to start (Pod::start_failed) is
  // returned there (kFailed, the job's error untouched) for the caller to replace.
  Outcome connect(PodHandle& pod, Provider& provider, std::string* detail, bool reattach = false,
                  Error* start_error = nullptr);

 private:
  // Pulls pod.container's image on the pod, its output logged.
  Outcome pull_step_image(PodHandle& pod, const std::function<bool()>& stop, std::string* detail);
  // Writes the pod's Host entry into burst's ssh_config; failing to never fails the job.
  void publish_ssh_host(const PodHandle& pod);

  JobContext& ctx_;
  JobDeps& d_;
  JobInput& in_;
  JobPods& pods_;
};

}  // namespace burst

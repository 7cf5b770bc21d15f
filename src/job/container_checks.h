// What a VM must give the steps' containers before the first one runs (ProviderTraits::
// steps_in_container: Lambda), checked once per pod after the image is pulled (issue 32):
//  1. The NVIDIA runtime. `docker run --gpus all` needs docker to know the "nvidia" runtime; a VM
//     whose docker lists none gets it configured as the NVIDIA Container Toolkit's install guide
//     ("Configuring Docker") and dstack on Lambda VMs do: `nvidia-ctk runtime configure
//     --runtime=docker`, then `systemctl restart docker` (through `sudo -n` unless the login user
//     is root). A VM without nvidia-ctk, or whose docker still lists no nvidia runtime after
//     that, fails the job with kRemoteFailed and the reason, before any step runs.
//  2. The volume's writability as the step's user: a container of the step's image, run as every
//     step is (its default user, --gpus all on a GPU pod, the volume bound at its own path),
//     creates and removes a file on the volume. A file system that maps root to nobody (NFS
//     root_squash) or a directory the image's user does not own fails the job with kInvalid,
//     naming the path and the uid, instead of a step's confusing "Permission denied".
#pragma once

#include <functional>
#include <string>

#include "burst/remote.h"
#include "burst/result.h"
#include "job/step_container.h"

namespace burst {

// Shell for check 1: prints "nvidia-runtime: present" or "nvidia-runtime: configured" and exits
// 0, else exits non-zero with the reason on stderr.
std::string nvidia_runtime_command();

// Shell for check 2 on `volume`: a container named <prefix>-volume-check; prints "writable" or
// exits 3 with "not writable by uid U gid G" on stderr.
std::string volume_write_check_command(const StepContainer& c, const std::string& volume);

// Runs check 1 (when c.gpus) and check 2. `said` gets one line per check for the job's output;
// each line of the commands' output goes to on_line(is_stderr, line).
Status check_step_container(RemoteSession& session, const StepContainer& c,
                            const std::string& volume,
                            const std::function<void(bool, const std::string&)>& on_line,
                            const std::function<bool()>& should_stop, std::string* said);

}  // namespace burst

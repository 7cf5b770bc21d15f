// The emulated Lambda VM's `docker`. No Docker engine runs on our machines, so each emulated VM
// (a loopback sshd, cloud_state.h) gets on its PATH a strict shell shim that accepts only the
// forms burst uses (job/step_container.h) and rejects anything else loudly, exit 125 as the
// docker CLI does for a usage error:
//   docker info                          exit 0
//   docker info --format '{{json .Runtimes}}'   the runtimes: nvidia among them unless the VM
//                                        came without it (Faults::no_nvidia_runtime) and was not
//                                        configured since; then `run --gpus all` fails as docker
//                                        does ("could not select device driver ...")
//   nvidia-ctk runtime configure --runtime=docker, systemctl restart docker   (as root) load it
//   docker pull IMAGE                    an image of the catalogue below "downloads"; any other
//                                        fails with docker's own message, exit 1
//   docker run --rm --init --name N [--gpus all] --env-file F -v P:P ... -w DIR IMAGE CMD...
//   docker kill N                        SIGKILL to the container's processes
// `run` starts CMD in its own session (a container is not in the client's process group) with a
// clean environment: the image's ENV, then F's VAR=value lines, HOME and the loopback pod's
// marker (so the pod's deletion still finds it), and PATH with the image's directory first. The
// client forwards SIGTERM/SIGINT to it, as docker's --sig-proxy does; a SIGKILL to the client
// leaves it running, as with docker. A bind mount must keep its path (P:P): no mount namespace.
//
// The image's identity is what the catalogue says: its ENV (PYTHON_VERSION in the python
// images, as the official images set it), `python3 --version` / `python --version` answered
// with the image's version (other uses run this machine's python3), and its /etc/os-release
// text kept in the image's directory. Limits: the step still sees this machine's files, its
// /etc/os-release and its other tools; only what the shim puts first on PATH and in the env is
// the image's. With Faults::volume_root_squash a container's processes run as uid 65534.
// docs/providers.md, "Lambda".
//
// Every call is appended to <root>/calls.log (argv, and the env file's mode), for tests.
#pragma once

#include <string>
#include <vector>

#include "burst/result.h"

namespace burst::fakecloud {

struct ImageIdentity {
  std::string name;              // as docker names it, with its tag ("python:3.11-slim")
  std::string pretty_name;       // /etc/os-release PRETTY_NAME
  std::string os_release;        // the whole /etc/os-release text
  std::string python_version;    // "" when the image has no python
  std::vector<std::string> env;  // the image's ENV, VAR=value
};

// The emulator's container image catalogue (illustrative versions).
const std::vector<ImageIdentity>& image_catalogue();

// Writes the shim and the catalogue's image directories under `root` (idempotent); returns the
// directory holding `docker`, for the VM's PATH.
Result<std::string> install_docker_shim(const std::string& root);

}  // namespace burst::fakecloud

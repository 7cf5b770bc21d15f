// How a RunPod pod becomes reachable over SSH for any image (REFERENCE.md §2.4.2, §2.6).
// RunPod's official images start sshd from the PUBLIC_KEY env var; other images (python:3.11-slim)
// run no SSH server, so the pod is started with `args` running a small sh script, base64-wrapped,
// that installs OpenSSH with the image's package manager, authorises burst's key, keeps the
// image's environment for SSH sessions and runs sshd, then keeps the container alive (what
// SkyPilot and dstack do through the start command). The account's key list
// (GET/PUT /v2/account/ssh-keys, a full replacement) is merged, never overwritten.
#pragma once

#include <string>
#include <vector>

#include "burst/result.h"

namespace burst {

// Whether the image is one known to start sshd with PUBLIC_KEY by itself (RunPod official
// images: "runpod/..."), so no bootstrap is needed.
bool runpod_image_runs_sshd(const std::string& image);

// The sh script a pod of an image without sshd runs first: installs OpenSSH with the image's
// package manager, authorises `public_key` for root, writes the container's environment where SSH
// sessions find it (/etc/profile.d/burst-container-env.sh for login shells, ~/.ssh/environment
// with PermitUserEnvironment for commands), starts sshd and keeps the container alive. kInvalid
// unless the key is one authorized_keys line with a plain type and base64 key; a comment with
// characters the shell could expand (it is double-quoted inside the script) is dropped.
Result<std::string> runpod_ssh_bootstrap_script(const std::string& public_key);

// The CreatePodRequest `args` that runs that script: `sh -c 'echo <base64> | base64 -d > FILE;
// sh FILE'`, so the string has no quote, $, backslash, & or parenthesis whatever a splitter makes
// of them (RunPod does not document one; SkyPilot wraps its bootstrap the same way).
Result<std::string> runpod_ssh_bootstrap_args(const std::string& public_key);

// The keys to PUT so that `public_key` is registered: `existing` unchanged plus the key when no
// entry has the same type and base64 (the comment does not matter). Empty when nothing to add.
std::vector<std::string> runpod_merged_ssh_keys(const std::vector<std::string>& existing,
                                                const std::string& public_key);

}  // namespace burst

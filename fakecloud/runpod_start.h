// What a RunPod pod's start command (CreatePodRequest `args`) does in the emulator.
//
// The v2 spec says only "Arguments passed to the container entrypoint" (CreatePodRequest.args,
// runpod/docs api-reference-v2/openapi.json): not how the string becomes words. SkyPilot
// base64-wraps its bootstrap "to deal with the tricky quoting issues caused by runpod API"
// (sky/provision/runpod/utils.py). So the emulator assumes the least a splitter does: words at
// whitespace, a '...' span kept as one word, nothing else special. A string holding a character
// whose meaning depends on the splitter (" \ $ ` & ( ) { } newline, an unclosed quote) does not
// start as written: the container's command fails and the pod runs without SSH (a real pod
// would bill through burst's whole SSH wait).
//
// A start command that survives is [sh|bash|/bin/sh|/bin/bash] -c '<script>'; a script of the
// form `echo <base64> | base64 -d|--decode > FILE; sh|bash FILE` runs the decoded text.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace burst::fakecloud {

// The words of `args` under the strict split above; nullopt when it does not survive.
std::optional<std::vector<std::string>> runpod_strict_split(const std::string& args);

struct RunpodStart {
  bool started = false;  // the start command ran (survived the split and is a shell script)
  std::string script;    // what ran (base64 decoded)
  std::string why;       // when !started: what went wrong, for the pod's record
  bool runs_sshd = false;
  std::string keys;  // authorized_keys lines the script writes, newline-separated
  // The script writes the container's environment where SSH sessions read it (`export -p` into
  // /etc/profile.d, or ~/.ssh/environment with sshd's PermitUserEnvironment): otherwise sshd
  // gives its sessions a fresh environment, without the image's PATH or LD_LIBRARY_PATH.
  bool keeps_env = false;
};

RunpodStart runpod_start_command(const std::string& args);

}  // namespace burst::fakecloud

// The upload step on the user's machine (hand-off "local", plan/handoff.h), for providers with no
// CPU pod on the GPU pod's volume. It runs after the pull, in a local view of the remote working
// directory, so the same script works unchanged: the code dir's entries plus, for each artefact,
// its remote directory linked to where it was pulled (remote `out/render.wav` pulled into
// ./tts-output makes `out` -> ./tts-output). Secrets travel in the environment, never in argv.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "burst/result.h"
#include "burst/spec.h"

namespace burst {

// Creates `view_dir` (mode 0700) holding symlinks: every top-level entry of `code.dir` (may be
// empty), each code.add at its `to` (its parents made as directories in the view), then each
// artefact's literal remote directory (relative patterns only) pointing to its local directory,
// unless the view already has that name.
Status make_local_view(const std::string& view_dir, const CodeSpec& code,
                       const std::vector<Artefact>& artefacts);

// Runs `script` with bash -e (sh -e without bash) in `workdir`, the script in `script_path`
// (written 0700), with this process's environment plus `env`. Lines of output arrive on
// on_line(is_stderr, line). should_stop() (polled) kills the step's process group.
Result<int> run_local_step(const std::string& script, const std::string& script_path,
                           const std::string& workdir,
                           const std::map<std::string, std::string>& env,
                           const std::function<void(bool, const std::string&)>& on_line,
                           const std::function<bool()>& should_stop);

}  // namespace burst

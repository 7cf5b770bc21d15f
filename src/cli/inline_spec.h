// `burst run [--gpus TYPE[:N]] [--provider P] [--workdir DIR] -- CMD...`: a launch without a
// spec file, as SkyPilot's `sky launch --gpus L4 'python train.py'`. The flags become a burst
// spec in memory (YAML text that the ordinary parser reads, so it is checked as any file is);
// --gpus and --provider are then applied as for a file, and the job plans, asks, runs and
// reports like any other.
#pragma once

#include <string>
#include <vector>

namespace burst {

// The spec text: `name` from the command's first word (lower-case letters, digits, '-';
// "cmd" when none), `run` the command (one argument: a shell line as given; several: each
// shell-quoted), `code.dir` the absolute workdir when one is given.
std::string inline_spec_yaml(const std::vector<std::string>& command, const std::string& workdir);

// The path that names such a spec in messages; its directory (the current one) resolves
// relative paths.
inline constexpr const char* kInlineSpecPath = "(burst run -- CMD)";

}  // namespace burst

// Bringing artefacts home. Each file is written under a temporary name beside its destination,
// its size checked against the remote, and only then renamed into place: a failed or interrupted
// pull never leaves a partial file under the final name.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "burst/remote.h"
#include "burst/spec.h"

namespace burst {

struct PullResult {
  int64_t files = 0;
  int64_t bytes = 0;
  std::vector<std::string> local_paths;
  std::vector<std::string> unmatched;  // artefact patterns that matched nothing
};

// `workdir` is the remote code dir (relative patterns start there); `volume` replaces a leading
// "$BURST_VOLUME/". A file lands at <artefact.local>/<path relative to the pattern's directory>.
Result<PullResult> pull_artefacts(RemoteSession& session, const std::vector<Artefact>& artefacts,
                                  const std::string& workdir, const std::string& volume,
                                  const std::function<void(const PullResult&)>& progress = {});

}  // namespace burst

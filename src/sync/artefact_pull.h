// Bringing artefacts home (docs/sync.md).
//
// One remote command resolves every pattern on the pod (sizes, mtimes, modes), then sends what the
// client asks for on the same channel: files of kBatchMax bytes or more streamed from an offset,
// resuming from a partial `<dest>.burst-part` left by an earlier attempt; smaller ones together
// in one `tar -c` stream; then the SHA-256 of each, computed on the pod beside the transfer. Each
// file is written under
// `<dest>.burst-part`, hashed as it arrives, and renamed into place only when its size and SHA-256
// match the pod's. A mismatch is reported and the partial file removed: never installed.
//
// The pod is not trusted (issue 15). Its listing and hash records are parsed with limits
// (pull_listing.h); each name must match its pattern and stay inside the artefact directory, or
// the pull fails naming it before any byte is transferred; files are written through the
// directory's descriptor only (pull_dest.h); modes are masked (install_mode); no file receives
// more bytes than its listed size, and a tar entry that was not asked for, or whose size differs
// from the listing, fails the pull. A failed pull leaves no partial file behind, except a streamed
// one when the connection died (the next attempt resumes from it).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "burst/remote.h"
#include "burst/spec.h"
#include "sync/pull_listing.h"

namespace burst {

struct PullResult {
  int64_t files = 0;          // installed by this pull (or already home)
  int64_t bytes = 0;          // bytes that crossed the link in this pull
  int64_t files_total = 0;    // matched on the pod
  int64_t bytes_total = 0;    // their sizes
  int64_t files_current = 0;  // already home with the pod's size and mtime: not transferred
  int64_t bytes_resumed = 0;  // kept from an earlier attempt's partial file
  int64_t round_trips = 0;    // remote commands: 1, or 2 when a stale partial file is refetched
  std::vector<std::string> local_paths;
  std::vector<std::string> unmatched;  // artefact patterns that matched nothing (of this job's)
  int64_t files_older = 0;  // matched, but modified before `modified_since`: left on the pod
  std::vector<std::string> failed;  // verification failures, one message each; not installed
};

// Files at least this large are streamed by offset (resumable); smaller ones in a tar stream.
constexpr uint64_t kBatchMax = 8ull << 20;

// `workdir` is the remote code dir (relative patterns start there); `volume` replaces a leading
// "$BURST_VOLUME/". A file lands at <artefact.local>/<path relative to the pattern's directory>.
// A transport failure, a refused entry and a limit passed are errors (kInvalid: "pod sent ...");
// files that fail verification are listed in `failed`.
// Fresh artefacts only (issue 21): with `modified_since` > 0 (the pod's clock, seconds since the
// epoch, taken when this job's first step started), a matched file last modified before it was
// not written by this job (a persistent volume keeps an earlier run's outputs) and is neither
// pulled nor counted as a match; such files are counted in `files_older`.
Result<PullResult> pull_artefacts(RemoteSession& session, const std::vector<Artefact>& artefacts,
                                  const std::string& workdir, const std::string& volume,
                                  const std::function<void(const PullResult&)>& progress = {},
                                  const PullLimits& limits = {}, int64_t modified_since = 0);

}  // namespace burst

// Uploading the spec's code directory to the pod. v1 is plain and correct: walk, filter, skip
// files whose remote size and mtime already match, send the rest over SFTP. (Batching, manifests
// and pipelining are the fast-sync issue's.)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "burst/remote.h"
#include "burst/spec.h"

namespace burst {

struct LocalFile {
  std::string rel;  // '/'-separated, relative to the code dir
  std::string abs;
  uint64_t size = 0;
  uint32_t mode = 0;
  int64_t mtime = 0;
};

struct ScanResult {
  std::vector<LocalFile> files;
  std::vector<std::string> dirs;      // relative, parents before children
  std::vector<std::string> warnings;  // e.g. a symlink pointing outside the code dir, skipped
  uint64_t bytes = 0;
};

// Honours code.exclude, .gitignore files (when code.gitignore), .burstignore files, and always
// skips .git/. Symlinks are followed only when they stay inside the code dir.
Result<ScanResult> scan_code_dir(const CodeSpec& code);

struct SyncStats {
  int64_t files_total = 0;
  int64_t files_sent = 0;
  int64_t bytes_sent = 0;
};

Result<SyncStats> sync_code(RemoteSession& session, const ScanResult& scan,
                            const std::string& remote_dir,
                            const std::function<void(const SyncStats&)>& progress);

}  // namespace burst

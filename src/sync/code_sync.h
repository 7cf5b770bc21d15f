// Uploading the spec's code directory to the pod, incrementally (docs/sync.md).
//
// One remote command does the whole sync. Its first part prints the manifest burst left on the
// volume last time and stats the manifest's paths on the pod; an unchanged tree ends there with
// zero file bytes sent. Otherwise the same command then reads from stdin what the local tree no
// longer has (removed), a touch script, and a tar archive of what changed (new and changed
// files, new directories, the new manifest) for `tar -x`. A pod without tar is an error.
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
  uint64_t size = 0;  // a symlink's: the length of its target
  uint32_t mode = 0;
  int64_t mtime = 0;
  std::string link_target;  // non-empty for a symlink, copied as a link
  std::string link_hash;    // SHA-256 of link_target
  // A regular file's identity when scanned: at send time the file opened (O_NOFOLLOW) must be
  // this same regular file, so one swapped for a symlink or another file is refused, not sent.
  uint64_t dev = 0, ino = 0;
};

struct ScanResult {
  std::vector<LocalFile> files;       // regular files and in-root symlinks
  std::vector<std::string> dirs;      // relative, parents before children
  std::vector<uint32_t> dir_modes;    // parallel to dirs
  std::vector<std::string> warnings;  // e.g. a symlink pointing outside the code dir, skipped
  uint64_t bytes = 0;
};

// Honours code.exclude, .gitignore files (when code.gitignore), .burstignore files, and always
// skips .git/. Never follows a symlink: one that resolves inside the code dir is kept as a link
// (an absolute target is rewritten relative), one that leads outside is skipped with a warning.
// A name holding a newline is refused (kInvalid, naming the file).
Result<ScanResult> scan_code_dir(const CodeSpec& code);

struct SyncStats {
  int64_t files_total = 0;  // files and links in the scan
  int64_t files_sent = 0;
  int64_t bytes_sent = 0;     // file content bytes
  int64_t files_touched = 0;  // same content: only mode or mtime set
  int64_t files_deleted = 0;
  int64_t bytes_to_send = 0;  // known once the plan is made
  int64_t files_to_send = 0;
  int64_t round_trips = 0;  // waits for the pod (all in one command): 1 unchanged, else 2
  std::string method;       // "none", "tar"
};

struct SyncTarget {
  std::string remote_dir;     // the sync root on the pod
  std::string manifest_path;  // on the persistent volume; see manifest_path_for()
};

// <volume>/.burst/sync/<first 16 hex digits of sha256(remote_dir)>.manifest
std::string manifest_path_for(const std::string& volume, const std::string& remote_dir);

Result<SyncStats> sync_code(RemoteSession& session, const ScanResult& scan,
                            const SyncTarget& target,
                            const std::function<void(const SyncStats&)>& progress);

// The same, with the local scan asked for only once the pod has answered the command's first
// part, so a caller can still be scanning while it connects and while the pod lists its side
// (bench/sync_bench_main.cpp does). `local` is called once; its error ends the sync.
using LocalScan = std::function<Result<const ScanResult*>()>;
Result<SyncStats> sync_code(RemoteSession& session, const LocalScan& local,
                            const SyncTarget& target,
                            const std::function<void(const SyncStats&)>& progress);

}  // namespace burst

// The sync manifest: what burst last wrote into a pod's code dir, one line per entry, kept on the
// persistent volume (docs/sync.md). Plus the decision of what a sync must do, as a pure function
// of the local scan, the manifest and what the pod says about the manifest's paths now.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "burst/result.h"
#include "sync/code_sync.h"

namespace burst {

struct ManifestEntry {
  char type = 'f';  // 'f' file, 'l' symlink, 'd' directory
  uint32_t mode = 0;
  uint64_t size = 0;   // a link's: the length of its target
  int64_t mtime = 0;   // 0 for links and directories
  std::string sha256;  // of the content, or of a link's target; "-" for directories
  std::string path;    // relative to the sync root
};

using Manifest = std::map<std::string, ManifestEntry>;

// "burst-manifest 1\n" then "<type>\t<mode octal>\t<size>\t<mtime>\t<sha256>\t<path>\n" per
// entry, sorted by path. Paths never hold a newline (the scan rejects them).
std::string format_manifest(const std::vector<ManifestEntry>& entries);
// A missing, empty or unreadable manifest parses as empty: everything is sent again.
Manifest parse_manifest(const std::string& text);

// What `stat --printf='%f\t%s\t%Y\t%n\0'` says about a path on the pod.
struct RemoteStat {
  char type = '?';  // 'f', 'l', 'd' or '?'
  uint32_t mode = 0;
  uint64_t size = 0;
  int64_t mtime = 0;
};
std::map<std::string, RemoteStat> parse_remote_stats(const std::string& records);

struct SyncPlan {
  std::vector<size_t> send;         // indexes into scan.files (files and links)
  std::vector<size_t> touch;        // same content, only mode or mtime to set
  std::vector<size_t> send_dirs;    // indexes into scan.dirs: new directories
  std::vector<std::string> remove;  // files and links first, then directories deepest first
  // Parallel to scan.files: the SHA-256 burst knows the pod has, for files not sent; else "".
  std::vector<std::string> known_hash;
  uint64_t send_bytes = 0;
  // The old manifest already lists exactly the local tree (same entries, modes, sizes, mtimes,
  // hashes): with nothing to send, remove or touch, it need not be written again.
  bool manifest_current = false;
};

// `hash` computes a local file's SHA-256; it is called only for a file whose size matches the
// manifest but whose mtime or mode does not (a touched file need not be sent again).
Result<SyncPlan> plan_sync(const ScanResult& scan, const Manifest& manifest,
                           const std::map<std::string, RemoteStat>& remote,
                           const std::function<Result<std::string>(const LocalFile&)>& hash);

}  // namespace burst

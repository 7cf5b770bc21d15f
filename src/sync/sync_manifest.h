// The sync manifest: what burst last wrote into a pod's code dir, one line per entry, kept on the
// persistent volume (docs/sync.md). Plus the decision of what a sync must do, as a pure function
// of the local scan, the manifest and what the pod says about the manifest's paths now.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
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
Manifest parse_manifest(std::string_view text);

// What `stat --printf='%f\t%s\t%Y\t%n\0'` says about a path on the pod.
struct RemoteStat {
  char type = '?';  // 'f', 'l', 'd' or '?'
  uint32_t mode = 0;
  uint64_t size = 0;
  int64_t mtime = 0;
};
// Records that do not parse are skipped (the path is then treated as missing: sent again).
std::map<std::string, RemoteStat> parse_remote_stats(std::string_view records);

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

// The first part of the sync command's answer (code_sync.cpp): "T1\n" (the pod has tar) or
// "T0\n", the old manifest's text, a NUL, one NUL-ended stat record per path it names, and the
// record "END". A pod is a stranger's machine, so the reader is bounded (the whole answer and
// each stat record) and linear: every byte is looked at once, however the answer is split.
struct ProbeReply {
  bool has_tar = false;
  Manifest manifest;
  std::map<std::string, RemoteStat> remote;
};

class ProbeReplyReader {
 public:
  static constexpr size_t kMaxReply = 64u << 20;   // about 300,000 files
  static constexpr size_t kMaxRecord = 64u << 10;  // a stat record: a path and three numbers

  explicit ProbeReplyReader(size_t max_reply = kMaxReply) : max_reply_(max_reply) {}
  // Takes the next bytes. true once "END" has arrived (anything after it is ignored); an answer
  // over a limit is kRemoteFailed, saying which.
  Result<bool> feed(const char* data, size_t len);
  // Parses what arrived before "END"; call once feed has returned true.
  ProbeReply reply() const;

 private:
  size_t max_reply_;
  std::string text_;
  size_t searched_ = 0;  // text_ before this holds no NUL that is still to be handled
  size_t record_ =
      std::string::npos;  // where the current stat record starts, once the manifest ended
  bool done_ = false;
};

// The same for an answer that is all there: ProbeReplyReader fed `text` in one piece. kRemoteFailed
// if "END" is missing.
Result<ProbeReply> parse_probe_reply(std::string_view text);

// `hash` computes a local file's SHA-256; it is called only for a file whose size matches the
// manifest but whose mtime or mode does not (a touched file need not be sent again).
Result<SyncPlan> plan_sync(const ScanResult& scan, const Manifest& manifest,
                           const std::map<std::string, RemoteStat>& remote,
                           const std::function<Result<std::string>(const LocalFile&)>& hash);

}  // namespace burst

// What a pod sends back in an artefact pull, parsed as hostile input (docs/sync.md, issue 15).
//
// Pure functions and incremental parsers, no I/O, so they can be fuzzed:
//  - ListingParser: "<pattern idx>\t<size>\t<mtime>\t<mode>\t<name>\0" records, then "END\0".
//    Fed chunk by chunk; each byte is looked at once (linear), and every limit is an O(1) check.
//  - HashParser: "<64 hex>  <name>\0" records (NUL bytes between records, such as the zero blocks
//    that end a tar archive, are skipped).
//  - local_relative: the pod's name for a matched file -> the path under its artefact directory,
//    or a refusal. Nothing is renamed to make it fit: a name that is not plainly inside the
//    pattern's directory is an error naming it.
// Every error is kInvalid, worded "pod sent ...", and quotes the offending entry escaped for a
// terminal (escape_entry) and cut to about 200 characters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "burst/result.h"

namespace burst {

// Bounds on what one pull accepts from a pod. The defaults are generous; a job may lower
// max_total_bytes (config.yaml `pull_max_gib`).
struct PullLimits {
  uint64_t max_total_bytes = 1ull << 40;  // the sum of the listed sizes: 1 TiB
  size_t max_listing_bytes = 64u << 20;   // the listing, up to and including "END\0"
  size_t max_record_bytes = 8u << 10;     // one listing or hash record
  size_t max_entries = 200000;            // files in the listing
  // The hash records after the transfer; also at most 4x the listing's bytes plus 1 MiB (a hash
  // record is at most 66 bytes longer than its listing record, plus a tar archive's zero padding).
  size_t max_hash_bytes = 256u << 20;
};

struct ListedFile {
  size_t pattern = 0;  // index into the artefact list
  uint64_t size = 0;
  int64_t mtime = 0;
  uint32_t mode = 0;  // 0 .. 07777, as the pod said; masked before use (install_mode)
  std::string name;   // as the pod's shell printed it
};

// `s` quoted for an error message: printable ASCII kept, everything else as \n, \t, \xNN;
// longer than `max` characters: cut, with "..." appended.
std::string escape_entry(std::string_view s, size_t max = 200);

class ListingParser {
 public:
  ListingParser(const PullLimits& limits, size_t patterns) : limits_(limits), patterns_(patterns) {}

  // Consumes bytes up to and including "END\0"; returns how many it took (fewer than n once the
  // listing is complete: the rest belongs to the transfer).
  Result<size_t> feed(const char* data, size_t n);
  bool done() const { return done_; }
  size_t bytes() const { return total_; }  // consumed so far
  const std::vector<ListedFile>& files() const { return files_; }
  std::vector<ListedFile>& files() { return files_; }

 private:
  Status record(std::string_view rec);

  PullLimits limits_;
  size_t patterns_;
  std::string rec_;
  size_t total_ = 0;
  bool done_ = false;
  std::vector<ListedFile> files_;
};

class HashParser {
 public:
  explicit HashParser(const PullLimits& limits) : limits_(limits) {}
  Status feed(const char* data, size_t n);
  // After the last feed: an unterminated record is an error.
  Status finish() const;
  // name -> lower-case hex SHA-256. A name hashed twice keeps its first hash.
  const std::map<std::string, std::string>& hashes() const { return hashes_; }

 private:
  Status record(std::string_view rec);

  PullLimits limits_;
  std::string rec_;
  size_t total_ = 0;
  std::map<std::string, std::string> hashes_;
};

// The path, relative to its artefact directory, where the pod's file `name`, listed for the
// pattern `pattern` (the artefact's `remote` as resolved: $BURST_VOLUME replaced), is written:
// `name` with the pattern's literal leading directory removed ("out/clips/*.wav" and
// "out/clips/a.wav" -> "a.wav"). Refused: a name the pattern does not match (fnmatch(3) with
// FNM_PATHNAME, so a '*' never crosses a '/'), an absolute name for a relative pattern or the
// reverse, an empty, "." or ".." component, control characters, and a name ending in
// ".burst-part" (the pull's own temp names).
Result<std::string> local_relative(const std::string& pattern, const std::string& name);

// The mode a pulled file is installed with: at most 0755 when the pod's mode has an execute bit,
// else at most 0644; always readable and writable by its owner; never setuid, setgid, sticky or
// group/world-writable.
uint32_t install_mode(uint32_t pod_mode);

}  // namespace burst

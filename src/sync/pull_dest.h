// One artefact directory, written through descriptors only (docs/sync.md, issue 15).
//
// The directory itself (the spec's `local`, the user's own path) is created if missing and opened
// once. Everything below it is reached with *at() calls from that descriptor, never through a
// path string built from pod data: subdirectories are made with mkdirat and entered with
// openat(O_DIRECTORY | O_NOFOLLOW), so a local directory that is a symlink (to outside, or
// anywhere) is refused with an error, not followed. Files are written as `<leaf>.burst-part`
// (O_NOFOLLOW, mode 0600) and installed by renameat in the same directory. `rel` arguments come
// from local_relative() (pull_listing.h): relative, no empty, "." or ".." component.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "burst/result.h"

namespace burst {

class PullDest {
 public:
  static Result<std::unique_ptr<PullDest>> open(const std::string& dir);
  ~PullDest();
  PullDest(const PullDest&) = delete;
  PullDest& operator=(const PullDest&) = delete;

  // For messages: the directory joined with `rel` (never used for a syscall).
  std::string shown(const std::string& rel) const { return dir_ + "/" + rel; }

  // lstat of the final name; nullopt-like: ok(false) when it does not exist.
  Result<bool> stat_final(const std::string& rel, struct stat* sb);
  // The temp file's size, or -1 when there is none.
  Result<int64_t> part_size(const std::string& rel);
  // Opens the temp file: for writing (created 0600, truncated unless `keep`), or for reading.
  Result<int> open_part(const std::string& rel, bool write, bool keep);
  void remove_part(const std::string& rel);
  // Sets the temp file's mode and mtime and renames it to its final name.
  Status install(const std::string& rel, uint32_t mode, int64_t mtime);

 private:
  PullDest(std::string dir, int fd) : dir_(std::move(dir)), root_(fd) {}
  // The descriptor of rel's parent directory (created as needed; cached); *leaf its last part.
  Result<int> parent(const std::string& rel, std::string* leaf);
  void close_cache();

  std::string dir_;
  int root_;
  std::map<std::string, int> cache_;  // parent dir (relative) -> open descriptor
};

}  // namespace burst

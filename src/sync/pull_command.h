// The one remote command of an artefact pull (sync/artefact_pull.h) and the reader of its stdout.
// Internal to src/sync.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "burst/remote.h"
#include "burst/result.h"

namespace burst {

// The whole pull is one remote command, so it costs one command start on the pod (each start runs
// the login shell there). Part 1 resolves the patterns: a NUL-terminated record
// "<pattern index>\t<size>\t<mtime>\t<mode>\t<name>" per match, then "END\0". Part 2 reads one
// plan line per match from stdin ("s" skip, "t" in the tar batch, "b OFFSET COUNT" streamed from
// OFFSET) and answers with: each "b" file's COUNT bytes in order (dd; zero-padded or cut if the
// file changed size, so the framing holds), one `tar -c` stream of the "t" files, then
// "<sha256>  <name>\0" for every file sent. The pod hashes each file while it sends it (a second
// read, from its page cache), with openssl when it has it (about 3x faster than coreutils'
// sha256sum). A file that changes on the pod during the pull then fails verification.
// `patterns` are the artefacts' remote globs, relative to `workdir`.
std::string pull_command(const std::vector<std::string>& patterns, const std::string& workdir);

// The command's stdout, with bytes handed back (what a reader took past its part) read first.
class PullSource {
 public:
  explicit PullSource(RemoteStream& in) : in_(in) {}
  void unread(std::string bytes) {
    pending_ = std::move(bytes) + pending_.substr(pos_);
    pos_ = 0;
  }
  Result<size_t> read(char* d, size_t n) {
    if (pos_ < pending_.size()) {
      size_t k = std::min(n, pending_.size() - pos_);
      std::memcpy(d, pending_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return in_.read(d, n);
  }

 private:
  RemoteStream& in_;
  std::string pending_;
  size_t pos_ = 0;
};

}  // namespace burst

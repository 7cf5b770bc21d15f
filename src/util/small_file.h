// Reads a file that a person wrote and burst must parse whole (a spec, config.yaml, burstd.yaml):
// only a regular file (after following symlinks: a spec may be a link) of at most 1 MiB, so
// `burst validate /dev/zero`, a fifo or a huge file is refused at once instead of read for ever.
// The check is made on the open descriptor (fstat), and at most the limit + 1 bytes are read, so
// a file that grows between the check and the read is still refused.
#pragma once

#include <cstddef>
#include <string>

#include "burst/result.h"

namespace burst {

inline constexpr size_t kSmallFileLimit = size_t{1} << 20;  // 1 MiB: far more than any spec

// The file's bytes. kInvalid with "<path>: not a regular file", "<path>: too large (N bytes; the
// limit is 1 MiB)" or "<path>: cannot read file: <strerror>".
Result<std::string> read_small_file(const std::string& path, size_t limit = kSmallFileLimit);

}  // namespace burst

// Files burst writes in its state dir (job logs, reports, a step's offsets) are the user's alone:
// created mode 0600, never 0644 for a moment inside the 0700 directory (make_private_dirs fixes
// older files at the next start; these are right from their first byte).
#pragma once

#include <string>
#include <string_view>

#include "burst/result.h"

namespace burst {

// Creates `path` with mode 0600 when absent; an existing file keeps its bytes and gets 0600.
// Then a stream may open it to append. kUnavailable naming the path on failure.
Status touch_private_file(const std::string& path);

// Replaces `path` with `text`, the file created (or truncated and set to) mode 0600.
Status write_private_file(const std::string& path, std::string_view text);

}  // namespace burst

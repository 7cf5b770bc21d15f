// workload.items_file: the items a job's workers split (job/worker_shards.h), read from the code
// dir when the job starts. One item per line; "\r\n" endings are taken as "\n" and blank lines
// are skipped. At most kMaxItemsFileBytes.
#pragma once

#include <string>
#include <vector>

#include "burst/result.h"
#include "burst/spec.h"

namespace burst {

inline constexpr size_t kMaxItemsFileBytes = 64u << 20;

// The file's items; an empty list when the spec names no items file. kInvalid (naming the spec's
// file:line:col) when it cannot be read, is too big, or holds no item.
Result<std::vector<std::string>> read_items_file(const PipelineSpec& spec);

}  // namespace burst

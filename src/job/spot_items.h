// A worker's done records (spot recovery, job/worker_fleet.h): the step appends each item it has
// finished, one line as it read it from $BURST_ITEMS_FILE, to $BURST_DONE_FILE. That file lives on
// the spec's volume (<volume>/.burst/done/<job id>-w<i>.txt), so it outlives a pod the provider
// takes back; a worker's next pod reads it and is given only the items not recorded there. A pod
// without a volume keeps it in its own directory: lost with the pod, and its items run again.
// The file is the pod's words, so it is read bounded (kDoneRecordsMaxBytes) and only as lines
// compared with the shard: a line that names no item of the shard is ignored. Internal to src/job.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace burst {

inline constexpr size_t kDoneRecordsMaxBytes = 64u << 20;  // the items file's own limit

// Where worker `worker`'s done records live: on the volume when the pod has one, else in its
// own directory.
std::string done_file_path(const std::string& volume, const std::string& pod_dir,
                           const std::string& job_id, int worker);

// The items of `shard` not recorded in `done_text`, in order; *kept = how many were. Each line of
// the records accounts for one occurrence of an item (a shard may hold one item twice).
std::vector<std::string> items_not_done(const std::vector<std::string>& shard,
                                        std::string_view done_text, long* kept);

}  // namespace burst

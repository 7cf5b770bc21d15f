// The run step as N replicas on one pod (issue 33; plan/pod_layout.h). When the plan gives a pod
// N GPU groups for an item workload, the run step's supervisor (job/remote_steps.h) runs a small
// POSIX sh wrapper in place of the spec's script. The wrapper starts one copy of the script per
// replica, in the background, each with
//   CUDA_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES  its cards (plan/pod_layout.h, replica_devices)
//   BURST_REPLICA_INDEX, BURST_REPLICA_COUNT      which copy it is, of how many
//   BURST_ITEMS_FILE                              <pod_dir>/items.r<i>.txt: its contiguous share
//                                                 of the worker's items (plan/worker_shards.h,
//                                                 the same split as the workers'), when the spec
//                                                 has an items file
// and every line of its stdout and stderr prefixed "[r<i>] " on the same stream. It waits for
// all of them and exits with the first non-zero status (a replica's own exit status; 1 for one
// that left none), after a stderr line per failed replica; 0 only when every copy exited 0.
// Every copy is in the supervisor's process group, so stopping the step stops them all; a
// reattached follower follows the one step as before.
#pragma once

#include <string>
#include <vector>

#include "burst/remote.h"
#include "burst/store.h"
#include "job/remote_steps.h"
#include "plan/pod_layout.h"

namespace burst {

// When its copy exits, each replica writes its facts to <pod_dir>/run.r<i>.stats (start and end
// times, exit status, and, where nvidia-smi answers, its cards' utilisation sampled every 5 s):
// job/replica_stats.h, read back by read_replica_records after the step.
//
// Where the spec's own script goes, and replica i's items file.
std::string replica_script_path(const std::string& pod_dir);
std::string replica_items_path(const std::string& pod_dir, int index);

// The wrapper's text for `l` (l.replicas >= 2), `pod_dir` as the pod sees it. `items_files`: set
// BURST_ITEMS_FILE per replica.
std::string replica_wrapper(const PodLayout& l, const std::string& pod_dir, bool items_files);

// Writes each replica's items file (when `items` is set) and the spec's `script`, over SFTP, and
// returns the wrapper to run as the step in its place.
Result<std::string> prepare_replicas(RemoteSession& session, const PodPaths& paths,
                                     const PodLayout& l, const std::string& script,
                                     const std::vector<std::string>* items);

// After the step: each replica's record (job/replica_stats.h) from `base` (job, worker, pod),
// its facts read from the pod bounded (kReplicaStatsMaxBytes) and parsed strictly, its GPUs and
// items as burst gave them (`items`: the pod's items, null without an items file). A replica whose
// file is missing or malformed has no record; *skipped names it and why ("" when none was).
std::vector<ReplicaRecord> read_replica_records(RemoteSession& session, const PodPaths& paths,
                                                const PodLayout& l, const ReplicaRecord& base,
                                                const std::vector<std::string>* items,
                                                std::string* skipped);

}  // namespace burst

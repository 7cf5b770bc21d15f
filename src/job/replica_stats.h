// What each replica of a run step left on the pod about itself (job/replica_step.h; issue 33,
// "per replica utilisation"): the wrapper writes <pod_dir>/run.r<i>.stats when its copy exits,
//   burst-replica 1
//   start <unix seconds>          when its copy started
//   end <unix seconds>            when it exited
//   exit <status>                 its exit status, 0..255
//   util <sum> <samples>          only when nvidia-smi answered: the sum of the per-card
//                                 utilization.gpu samples (percent) and how many there were
// A pod is a stranger's machine: the runner reads at most kReplicaStatsMaxBytes, and the parser
// takes exactly these lines in this order, decimal numbers of at most 12 digits, end >= start,
// a sum of at most 100 per sample; anything else is an error and the replica has no record.
// Never prose: the step's console lines are not read. Internal to src/job.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "burst/result.h"
#include "burst/store.h"

namespace burst {

inline constexpr size_t kReplicaStatsMaxBytes = 1024;

struct ReplicaStats {
  int64_t start_s = 0;
  int64_t end_s = 0;
  int exit_status = 0;
  int64_t util_sum = 0;  // percent x samples
  int64_t util_samples = 0;
};

std::string replica_stats_path(const std::string& pod_dir, int index);

Result<ReplicaStats> parse_replica_stats(std::string_view text);

// One record per parsed replica (`stats[i]` is replica `indexes[i]`'s), from `base` (job, worker,
// pod, count): its GPUs from `gpus[index]`, its items from `items[index]`, its run time, the
// step's (the first start to the last end over these replicas) and its mean utilisation.
std::vector<ReplicaRecord> replica_records(const ReplicaRecord& base,
                                           const std::vector<int>& indexes,
                                           const std::vector<ReplicaStats>& stats,
                                           const std::vector<std::string>& gpus,
                                           const std::vector<int64_t>& items);

}  // namespace burst

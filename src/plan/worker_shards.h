// How a wide job's items are split across its workers, and what each worker's pods are called.
// Pure functions: the fleet (job/worker_fleet.h) and the report (report/job_report.h) use them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace burst {

// Contiguous shards: worker i of k gets items [i*n/k, (i+1)*n/k), so the shards are in file
// order, differ in size by at most one item, and together hold every item exactly once.
std::vector<std::string> shard_of(const std::vector<std::string>& items, int index, int count);

// The role part of a GPU pod's name (burst/provider.h pod_name): "gpu" for a job's only worker,
// "gpu<i>" for worker i of several, "gpu<i>r<a>" for its a-th retry on a new pod.
std::string worker_pod_role(int index, int count, int attempt);

// The worker index a GPU pod's name role carries ("gpu2r1" -> 2), or nullopt for "gpu", "cpu"
// and anything else.
std::optional<int> worker_of_role(const std::string& role);

}  // namespace burst

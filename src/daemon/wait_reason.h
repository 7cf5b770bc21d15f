// Why a queued job waits, in one sentence: the one function behind the dashboard's "why it
// waits" column, the API's `why` key and `burst status`'s WHY column, so they never disagree.
#pragma once

#include <string>
#include <vector>

#include "daemon/scheduler.h"

namespace burst::daemon {

// For a queued `job` among `all` (the scheduler's jobs()): "waiting for <cap>" when a budget cap
// holds it; "its pipeline is running already (no overlap)" when a job of its pipeline runs;
// else "waiting for a free slot (N running)". "" for a job that is not queued.
std::string wait_reason(const JobView& job, const std::vector<JobView>& all);

}  // namespace burst::daemon

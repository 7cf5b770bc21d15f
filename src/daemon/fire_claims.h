// The store's side of cron fires (docs/schedules.md, docs/daemon.md "Missed runs"): what a start
// owes each pipeline from the last fire recorded in the store, and which of several burstd on one
// store takes a fire. Store calls only; the caller holds no lock (daemon/scheduler.h).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "burst/store.h"
#include "daemon/cron_fires.h"

namespace burst::daemon {

using LogFn = std::function<void(const std::string&)>;

struct StartPlan {
  std::vector<CronEntry> entries;                              // with their next fire times
  std::vector<std::pair<PipelineSpec, std::string>> catch_up;  // runs to queue now, and why
};

// Each pipeline's next fire after `now`. With `apply_missed` (daemon start), its missed fire times
// are handled from the last fire recorded in the store: run-once queues one run now (if this
// daemon's claim of the latest one wins), skip drops them; a pipeline never seen before is
// recorded as fired now, so a later restart knows what it missed.
StartPlan plan_start(QueueStore& store, std::vector<ScheduledPipeline> pipelines, bool apply_missed,
                     TimePoint now, const LogFn& log);

// True when this daemon takes the fire: its claim moved the pipeline's recorded fire time, or the
// store failed (a lone daemon fires anyway). False, logged, when another burstd took it.
bool claim_fire(QueueStore& store, const std::string& pipeline, TimePoint fire, const LogFn& log);

}  // namespace burst::daemon

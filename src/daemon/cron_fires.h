// Which scheduled pipelines fire (docs/daemon.md, "Scheduling"): pure functions of the pipelines,
// their next fire times and now. No store, no lock, no clock: the scheduler (daemon/scheduler.h)
// asks the store which daemon takes a fire (daemon/fire_claims.h) and queues the job.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/spec.h"
#include "schedule/cron.h"
#include "schedule/missed_runs.h"
#include "schedule/tz.h"

namespace burst::daemon {

struct ScheduledPipeline {
  PipelineSpec spec;  // spec.schedule is set
  schedule::CronExpr cron;
  schedule::TimeZone zone;
  schedule::MissedPolicy missed = schedule::MissedPolicy::kRunOnce;
};

// A scheduled pipeline and its next fire time (none: its cron never fires again).
struct CronEntry {
  ScheduledPipeline p;
  std::optional<TimePoint> next;
};

// One fire that is due: the pipeline's spec (a copy: the entries may be replaced meanwhile) and
// the fire time.
struct DueFire {
  PipelineSpec spec;
  TimePoint fire;
};

// The fires due at `now`, in the entries' order; each due entry's `next` moves past `now`.
// Several fire times that passed since (a late loop) are one fire, the latest of them.
std::vector<DueFire> take_due_fires(std::vector<CronEntry>& entries, TimePoint now);

// The earliest `next` of the entries, if any.
std::optional<TimePoint> earliest_fire(const std::vector<CronEntry>& entries);

}  // namespace burst::daemon

// The pipelines burstd schedules: the spec files listed in burstd.yaml plus every *.yaml/*.yml in
// its pipelines_dir. Each is loaded with the spec loader, so a bad cron expression or time zone
// is rejected with the same "file:line:col: schedule.cron: hour: ..." message `burst validate`
// prints. A spec without a `schedule` section is skipped (it can still be submitted).
#pragma once

#include <string>
#include <vector>

#include "client/daemon_config.h"
#include "daemon/scheduler.h"

namespace burst::daemon {

struct PipelineLoad {
  std::vector<ScheduledPipeline> scheduled;
  std::vector<std::string> errors;       // one line each; the file is skipped
  std::vector<std::string> unscheduled;  // files with no schedule section
};

PipelineLoad load_pipelines(const DaemonConfig& config);

// One spec already parsed: its schedule compiled, or an error line.
Result<ScheduledPipeline> compile_schedule(const PipelineSpec& spec);

}  // namespace burst::daemon

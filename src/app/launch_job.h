// Starts a prepared job (app/prepare_job.h), the same way for `burst run` and burstd: makes or
// reads the SSH key, picks the connector for the plan's provider (the registry's row), and runs
// the job to its end (app/run_job.h: phases, reports, webhook). What differs between the two front
// ends is passed in. The store is the caller's, already open: one store per run.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/run_job.h"

namespace burst {

struct LaunchDeps {
  Store& store;
  Clock& clock;
  Console& console;
  const Config& config;
  std::function<int()> interrupts;         // as JobDeps::interrupts
  std::string stop_source;                 // as RunJobDeps::stop_source
  std::vector<BudgetCap> extra_caps = {};  // as JobDeps::extra_caps
  FaultObserver* faults = nullptr;         // as JobDeps::faults
};

// `request.ssh_public_key` is filled here from config.ssh_key. Fails (kInvalid, or the key
// reader's own code, prefixed "ssh key: ") only when the key can be neither read nor made: then
// nothing was created and no job was recorded, so the caller says so its own way.
Result<RunJobOutcome> launch_job(const LaunchDeps& deps, const PipelineSpec& spec, PreparedJob job,
                                 RunJobRequest request);

}  // namespace burst

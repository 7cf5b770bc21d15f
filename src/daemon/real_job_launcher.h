// The JobLauncher burstd uses: plans the job as `burst run` does (app/prepare_job.h), then runs
// and finishes it the same way (app/run_job.h: the runner, the one report writer, the webhook).
// Secrets come from burstd's own environment. Nothing asks for confirmation: a daemon job's cost
// is bounded by its spec's budget and the daemon's caps.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/fault_observer.h"
#include "burst/store.h"
#include "daemon/job_launcher.h"

namespace burst::daemon {

class RealJobLauncher : public JobLauncher {
 public:
  RealJobLauncher(Store& store, Clock& clock, const Config& config,
                  std::map<std::string, std::string> env,
                  std::function<void(const std::string&)> log);
  JobResult run(const std::string& job_id, const PipelineSpec& spec,
                const std::function<int()>& interrupts) override;
  JobResult resume(const std::string& job_id, const PipelineSpec& spec, const std::string& why,
                   const std::function<int()>& interrupts) override;
  JobResult restart(const std::string& job_id, const PipelineSpec& spec, const std::string& why,
                    const std::function<int()>& interrupts) override;
  // burstd's global caps as they apply to one job (Daemon::caps_for).
  void set_caps(std::function<std::vector<BudgetCap>(const std::string& job_id)> caps) {
    caps_ = std::move(caps);
  }
  // Reserves a planned job's estimate (Ledger::reserve_estimate): "" once reserved, else what
  // holds it; *never_fits when the estimate alone is over a cap.
  using ReserveEstimate = std::function<std::string(
      const std::string& job_id, const PipelineSpec& spec, double usd, bool* never_fits)>;
  void set_reserve_estimate(ReserveEstimate f) { reserve_estimate_ = std::move(f); }
  // The chaos matrix's BURST_FAULT hook, installed by main(); every job is told its fault points.
  void set_faults(FaultObserver* faults) { faults_ = faults; }

 private:
  JobResult refuse(const std::string& job_id, const PipelineSpec& spec, const std::string& why,
                   JobState state = JobState::kFailed);
  enum class Mode { kNew, kReattach, kRestart };
  JobResult launch(const std::string& job_id, const PipelineSpec& spec, Mode mode,
                   const std::string& why, const std::function<int()>& interrupts);

  Store& store_;
  Clock& clock_;
  const Config& config_;
  std::map<std::string, std::string> env_;
  std::function<void(const std::string&)> log_;
  std::function<std::vector<BudgetCap>(const std::string& job_id)> caps_;
  FaultObserver* faults_ = nullptr;
  ReserveEstimate reserve_estimate_;
};

}  // namespace burst::daemon

#include "daemon/real_job_launcher.h"

#include <unistd.h>

#include "app/launch_job.h"
#include "app/local_choice.h"
#include "app/prepare_job.h"
#include "app/unstarted_job.h"

namespace burst::daemon {
namespace {

// Status lines go to burstd's log with the job id; remote output is in the job's own log file
// (<state>/logs/<job>.log, written by the runner), which `burst logs` follows.
class DaemonConsole : public Console {
 public:
  DaemonConsole(std::string job_id, std::function<void(const std::string&)> log)
      : prefix_("job " + std::move(job_id) + ": "), log_(std::move(log)) {}
  void line(const std::string& text) override { log_(prefix_ + text); }
  void remote_out(const std::string&) override {}
  void remote_err(const std::string&) override {}
  void progress(const std::string&) override {}
  bool confirm(const std::string&) override { return false; }

 private:
  std::string prefix_;
  std::function<void(const std::string&)> log_;
};

}  // namespace

RealJobLauncher::RealJobLauncher(Store& store, Clock& clock, const Config& config,
                                 std::map<std::string, std::string> env,
                                 std::function<void(const std::string&)> log)
    : store_(store), clock_(clock), config_(config), env_(std::move(env)), log_(std::move(log)) {}

JobResult RealJobLauncher::refuse(const std::string& job_id, const PipelineSpec& spec,
                                  const std::string& why, JobState state) {
  UnstartedJob rec{job_id, spec.name, spec.path, state, Phase::kPlan};
  rec.error = why;
  rec.finished_ms = to_unix_ms(clock_.now());
  rec.owner_pid = getpid();
  (void)record_unstarted(store_, rec);
  JobResult result;
  result.state = state;
  result.error = why;
  return result;
}

JobResult RealJobLauncher::run(const std::string& job_id, const PipelineSpec& spec,
                               const std::function<int()>& interrupts) {
  return launch(job_id, spec, Mode::kNew, "", interrupts);
}

JobResult RealJobLauncher::resume(const std::string& job_id, const PipelineSpec& spec,
                                  const std::string& why, const std::function<int()>& interrupts) {
  return launch(job_id, spec, Mode::kReattach, why, interrupts);
}

JobResult RealJobLauncher::restart(const std::string& job_id, const PipelineSpec& spec,
                                   const std::string& why, const std::function<int()>& interrupts) {
  log_("job " + job_id + ": running it again from the plan: " + why);
  return launch(job_id, spec, Mode::kRestart, why, interrupts);
}

JobResult RealJobLauncher::launch(const std::string& job_id, const PipelineSpec& spec, Mode mode,
                                  const std::string& why, const std::function<int()>& interrupts) {
  // A reattached job is planned again only for what comes after the run step (the upload's CPU
  // offer, the hand-off); its GPU pod is the one in the store. A restarted one is planned afresh.
  // Both have their record and their reservation already: a failure here leaves the record
  // `running` for the scheduler to fail (Scheduler::adopt).
  const bool resumed = mode != Mode::kNew;
  auto prepared = prepare_job(spec, "", config_, clock_, env_, false, &store_);
  if (!prepared && resumed) {
    JobResult r{JobState::kFailed, std::string(mode == Mode::kRestart ? "restart" : "reattach") +
                                       ": plan: " + prepared.error().message};
    return r;
  }
  if (!prepared) return refuse(job_id, spec, "plan: " + prepared.error().message);
  // This machine only when the spec names its provider (app/local_choice.h): burstd has no one
  // to ask, so a plan that lands here by default is refused before anything is created.
  if (const std::string here = unchosen_here_provider(prepared->plan, named_providers(spec, {}));
      !here.empty() && !resumed)
    return refuse(job_id, spec,
                  "plan: not run: the plan puts this job on burstd's machine (the " + here +
                      " provider: it " + runs_here_line() +
                      ") and the spec does not name it; put `providers: [" + here +
                      "]` under resources to run it there, or name a cloud");
  for (const auto& w : prepared->warnings) log_("job " + job_id + ": warning: " + w);
  if (reserve_estimate_ &&
      !resumed) {  // before anything is created; a resumed job reserved already
    bool never = false;
    std::string held = reserve_estimate_(job_id, spec, prepared->plan.estimate.usd, &never);
    if (!held.empty() && never)
      return refuse(job_id, spec, held + "; set budget.max_usd, or raise the cap");
    if (!held.empty()) log_("job " + job_id + ": waiting for budget: " + held);
    while (!held.empty()) {  // other jobs' spend and reservations hold it: wait for them to end
      if (interrupts && interrupts() > 0)
        return refuse(job_id, spec, "stopped while " + held, JobState::kInterrupted);
      clock_.sleep_for(std::chrono::seconds(5));
      held = reserve_estimate_(job_id, spec, prepared->plan.estimate.usd, &never);
    }
  }
  DaemonConsole console(job_id, log_);
  // Both count as the job's interrupts.
  LaunchDeps deps{store_, clock_, console, config_, interrupts, "burst cancel or burstd drain"};
  if (caps_) deps.extra_caps = caps_(job_id);
  deps.faults = faults_;
  RunJobRequest request{job_id, ""};
  request.reattach = mode == Mode::kReattach;
  request.restart = mode == Mode::kRestart;
  if (resumed) request.reattach_why = why;
  // The same launch, run and finish as `burst run` (app/launch_job.h): one report writer, one
  // webhook.
  auto launched = launch_job(deps, spec, std::move(*prepared), std::move(request));
  if (!launched.ok()) return refuse(job_id, spec, launched.error().message);
  for (const auto& w : launched->finished.warnings) log_("job " + job_id + ": warning: " + w);
  return launched->result;
}

}  // namespace burst::daemon

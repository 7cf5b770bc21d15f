// Runs a prepared job (app/prepare_job.h) to its end, the same way for `burst run` and burstd:
// the runner drives it through its phases (job/job_runner.h), then finish_job (app/finish.h)
// writes its reports, records its calibration sample and sends the webhook, and the report's
// summary goes to the console. What differs between the two front ends is passed in: the
// console, how interrupts are counted and named, and burstd's global caps. Nothing here prints
// anywhere but `console`; the caller prints the warnings its own way.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/finish.h"
#include "app/prepare_job.h"
#include "burst/clock.h"
#include "burst/config.h"
#include "burst/console.h"
#include "burst/http.h"
#include "burst/remote.h"
#include "burst/store.h"
#include "job/job_runner.h"

namespace burst {

struct RunJobDeps {
  Store& store;
  Clock& clock;
  RemoteConnector& connector;
  Console& console;
  const Config& config;
  std::function<int()> interrupts;         // as JobDeps::interrupts
  std::vector<BudgetCap> extra_caps = {};  // as JobDeps::extra_caps
  std::string stop_source = "Ctrl-C or SIGTERM";
  HttpClient* webhook_http = nullptr;  // as FinishDeps::http
  FaultObserver* faults = nullptr;     // as JobDeps::faults (the chaos matrix's hook)
};

struct RunJobRequest {
  std::string job_id;
  std::string ssh_public_key;
  // Reattach after a burstd restart (JobInput::reattach): the job is in the store already.
  bool reattach = false;
  std::string reattach_why = {};
  // Run again from the plan a job whose daemon died before its step (JobInput::restart).
  bool restart = false;
};

struct RunJobOutcome {
  JobResult result;   // the job's state and redacted error
  Finished finished;  // its report files and the warnings of what came after
};

// `job` is consumed: its code scan, secrets and providers go to the runner.
RunJobOutcome run_job(const RunJobDeps& deps, const PipelineSpec& spec, PreparedJob job,
                      const RunJobRequest& request);

}  // namespace burst

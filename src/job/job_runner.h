// Runs one job through its phases (job/phase_machine.h), recording each transition in the store.
// The GPU pod is deleted on every path out: a failing step, a lost connection, an interrupt or an
// exception all lead through the delete phase. If even that fails, the pod row stays open and
// the job's error tells the user to run `burst reap`.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/console.h"
#include "burst/provider.h"
#include "burst/remote.h"
#include "burst/spec.h"
#include "burst/store.h"
#include "plan/planner.h"
#include "sync/code_sync.h"
#include "util/redactor.h"

namespace burst {

struct JobDeps {
  Store& store;
  Clock& clock;
  RemoteConnector& connector;
  Provider& provider;
  Console& console;
  const Config& config;
  // How many interrupts (SIGINT/SIGTERM) have arrived. One stops the job gracefully (stop the
  // remote command, pull if asked, delete); two skip the pull too. Deletion is never skipped.
  std::function<int()> interrupts;
};

struct JobInput {
  std::string job_id;
  PipelineSpec spec;
  Plan plan;
  ScanResult code;                             // what sync will send
  std::map<std::string, std::string> secrets;  // name -> value, from the local environment
  std::string ssh_public_key;
};

struct JobResult {
  std::string state;  // succeeded | failed | interrupted
  std::string error;  // redacted
  std::string report_json_path;
  std::string report_md_path;
};

class JobRunner {
 public:
  JobRunner(JobDeps deps, JobInput input);
  ~JobRunner();
  JobResult run();

 private:
  struct LivePod;
  class Phases;
  JobDeps d_;
  JobInput in_;
  Redactor redact_;
};

// A fresh id: "20261122-071500-3fa9".
std::string new_job_id(TimePoint now);

}  // namespace burst

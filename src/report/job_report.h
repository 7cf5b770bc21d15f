// The cost report of one job, built from the store alone (no provider calls), so it can be
// produced offline and never changes after the fact.
#pragma once

#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/store.h"

namespace burst {

struct PodCost {
  PodRecord pod;
  double billed_s = 0;  // create requested -> delete confirmed (or `as_of` if not confirmed)
  double usd = 0;
  bool confirmed_deleted = false;
};

struct JobReport {
  JobRecord job;
  std::vector<PhaseRecord> phases;
  std::vector<PodCost> pods;
  std::vector<TransferRecord> transfers;
  double total_usd = 0;
  double wall_s = 0;
  std::string estimate_json;  // as recorded at plan time
  // Where the upload ran when the provider has no CPU pods (plan/handoff.h): "gpu-pod" or
  // "local" (empty otherwise), the plan's reason with both estimated costs, and how it went.
  std::string handoff, handoff_why, handoff_outcome;
  int64_t as_of_ms = 0;
};

Result<JobReport> build_job_report(Store& store, const std::string& job_id, TimePoint as_of);

std::string report_json(const JobReport& r);
std::string report_markdown(const JobReport& r);
std::string report_summary(const JobReport& r);  // a few lines for the terminal

}  // namespace burst

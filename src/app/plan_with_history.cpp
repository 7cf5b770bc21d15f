#include "app/plan_with_history.h"

#include <unistd.h>

#include <memory>

#include "burst/store.h"
#include "plan/boot_history.h"
#include "plan/calibration.h"
#include "plan/load_history.h"
#include "report/job_facts.h"

namespace burst {
namespace {

// Whether an earlier job of this pipeline succeeded, leaving its weights on the volume.
bool volume_used_before(Store& store, const PipelineSpec& spec) {
  auto jobs = store.recent_jobs(200);
  if (!jobs.ok()) return false;
  for (const auto& j : *jobs)
    if (j.pipeline == spec.name && j.state == JobState::kSucceeded) return true;
  return false;
}

// Every recent job's measured provisioning + image pull (plan/boot_history.h), any pipeline:
// how fast a provider hands over a pod does not depend on what runs on it. Samples are keyed by
// provider, so the local cloud's own boots only ever price local pods.
std::vector<BootSample> boot_samples(Store& store) {
  std::vector<BootSample> out;
  auto jobs = store.recent_jobs(kBootHistoryJobs);
  if (!jobs.ok()) return out;
  for (const JobRecord& j : *jobs) {
    if (j.finished_ms == 0) continue;
    auto phases = store.phases(j.id);
    if (!phases.ok()) continue;
    auto pods = store.pods_of_job(j.id);
    if (!pods.ok()) continue;
    BootSample s;
    if (boot_sample_of(j, *phases, *pods, &s)) out.push_back(std::move(s));
  }
  return out;
}

// Every recent job's measured weight download (plan/load_history.h), any pipeline: its prepare
// step's time over the bytes its plan said it fetches (the job's facts). Keyed by provider.
std::vector<LoadSample> load_samples(Store& store) {
  std::vector<LoadSample> out;
  auto jobs = store.recent_jobs(kLoadHistoryJobs);
  if (!jobs.ok()) return out;
  for (const JobRecord& j : *jobs) {
    if (j.finished_ms == 0 || j.facts_json.empty()) continue;
    const ReportFacts facts = report_facts_from_json(j.facts_json);
    if (facts.prepare_download_bytes <= 0) continue;
    auto phases = store.phases(j.id);
    if (!phases.ok()) continue;
    LoadSample s;
    if (load_sample_of(j.provider, facts.prepare_download_bytes, *phases, &s))
      out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::vector<LoadSample> warm_read_samples(Store& store) {
  std::vector<LoadSample> out;
  auto jobs = store.recent_jobs(kLoadHistoryJobs);
  if (!jobs.ok()) return out;
  for (const JobRecord& j : *jobs) {
    auto transfers = store.transfers(j.id);
    if (!transfers.ok()) continue;
    LoadSample s;
    if (warm_read_sample_of(j.provider, *transfers, &s)) out.push_back(std::move(s));
  }
  return out;
}

Result<Plan> plan_with_history(const PipelineSpec& spec, PlanInput* input, const Config& config) {
  // Planning creates no SQLite file; a team's PostgreSQL store is always there.
  if (!config.store_url.empty() || access(config.db_path.c_str(), F_OK) == 0) {
    if (auto store = open_store(config.store_url, config.db_path); store.ok()) {
      if (volume_used_before(**store, spec)) input->warm_volume = true;
      input->boot_history = boot_samples(**store);
      input->load_history = load_samples(**store);
      for (LoadSample& s : warm_read_samples(**store)) input->load_history.push_back(std::move(s));
      // The planner fits each GPU type from these runs (plan/calibration.h).
      if (auto runs =
              (*store)->calibration_samples(spec.name, spec.workload.kind, kCalibrationHistory);
          runs.ok())
        input->calibration_history = std::move(*runs);
    }
  }
  return make_plan(spec, *input);
}

}  // namespace burst

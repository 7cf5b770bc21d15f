#include "daemon/wait_reason.h"

namespace burst::daemon {

std::string wait_reason(const JobView& job, const std::vector<JobView>& all) {
  if (job.state != JobState::kQueued) return "";
  if (!job.held_by.empty()) return "waiting for " + job.held_by;
  int running = 0;
  bool pipeline_running = false;
  for (const JobView& v : all) {
    if (v.state != JobState::kRunning) continue;
    ++running;
    pipeline_running = pipeline_running || v.pipeline == job.pipeline;
  }
  if (pipeline_running) return "its pipeline is running already (no overlap)";
  return "waiting for a free slot (" + std::to_string(running) + " running)";
}

}  // namespace burst::daemon

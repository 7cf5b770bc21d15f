#include "app/unstarted_job.h"

namespace burst {

Status record_unstarted(JobStore& store, const UnstartedJob& job) {
  if (job.state != JobState::kFailed && job.state != JobState::kInterrupted)
    return make_error(ErrorCode::kInvalid, std::string("record_unstarted: job ") + job.id + " is " +
                                               to_string(job.state) +
                                               "; an unstarted job is failed or interrupted");
  JobRecord rec;
  rec.id = job.id;
  rec.pipeline = job.pipeline;
  rec.spec_path = job.spec_path;
  rec.state = job.state;
  rec.phase = job.phase;
  rec.provider = job.provider;
  rec.error = job.error;
  rec.finished_ms = job.finished_ms;
  rec.created_ms = job.created_ms > 0 ? job.created_ms : job.finished_ms;
  rec.owner_pid = job.owner_pid;
  return store.create_job(rec);
}

}  // namespace burst

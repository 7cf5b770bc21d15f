// The transfers between this machine and the GPU pod: the code sync into JobPods::workdir
// (sync/code_sync.h) and the artefacts' pull (sync/artefact_pull.h, only files the job's steps
// left: JobPods::artefacts_since), each with its progress shown and its transfer recorded in the
// store. A wide job's workers on one shared volume sync the code once (FleetProvision::
// shared_code_dir) and each copies it into its own code dir. Internal to src/job.
#pragma once

#include <string>
#include <utility>

#include "job/job_context.h"
#include "job/job_types.h"

namespace burst {

class Transfers {
 public:
  Transfers(JobContext& ctx, JobPods& pods);

  // The sync phase; `volume_key` (Provisioner::volume_key()) names the volume a fleet's workers
  // may share ("": this worker syncs its own dir). kSkipped without code.dir.
  Outcome sync(const std::string& volume_key, std::string* detail);
  // The pull phase; kSkipped without artefacts or after a second stop request.
  Outcome pull(std::string* detail);

 private:
  // A fleet worker's sync through FleetProvision::shared_code_dir.
  Outcome sync_shared(const std::string& volume_key, std::string* detail);
  // One code sync into `dir` on the GPU pod, its progress shown and its transfer recorded; the
  // stats and the seconds it took.
  Result<std::pair<SyncStats, double>> sync_into(const std::string& dir);

  JobContext& ctx_;
  JobDeps& d_;
  JobInput& in_;
  JobPods& pods_;
};

}  // namespace burst

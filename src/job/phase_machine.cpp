#include "job/phase_machine.h"

namespace burst {

Phase next_phase(Phase current, Outcome outcome, const JobFacts& f) {
  const bool ok = outcome == Outcome::kOk || outcome == Outcome::kSkipped;
  switch (current) {
    case Phase::kPlan:
      if (!ok) return Phase::kReport;  // nothing exists yet
      return f.prepare == PrepareWhere::kCpuPod ? Phase::kPrepareCpu : Phase::kProvision;
    case Phase::kPrepareCpu:
      return ok ? Phase::kPrepare : Phase::kDeletePrepareCpu;
    case Phase::kPrepare:
      // On its CPU pod: that pod goes first, whatever happened. On the GPU pod: on to the sync.
      if (f.prepare == PrepareWhere::kCpuPod) return Phase::kDeletePrepareCpu;
      return ok ? Phase::kSync : Phase::kDeleteGpu;
    case Phase::kDeletePrepareCpu:
      // The GPU pod only for a staged volume and a prepare pod confirmed gone.
      return ok && !f.job_failed ? Phase::kProvision : Phase::kReport;
    case Phase::kWaitSsh:
      if (ok) return f.prepare == PrepareWhere::kGpuPod ? Phase::kPrepare : Phase::kSync;
      return Phase::kDeleteGpu;
    case Phase::kProvision:
    case Phase::kSync:
    case Phase::kSetup:
      if (ok) return static_cast<Phase>(static_cast<int>(current) + 1);
      return Phase::kDeleteGpu;  // a pod may exist: delete it
    case Phase::kRun:
      if (ok) return Phase::kPull;
      // Pull what exists, unless the pod can no longer be reached or the spec says not to.
      if (outcome != Outcome::kConnectionLost && f.pull_on_failure) return Phase::kPull;
      return Phase::kDeleteGpu;
    case Phase::kPull:
      // Hand-off "gpu-pod": the upload runs here, while the pod still exists.
      if (ok && !f.job_failed && f.has_upload && f.handoff == Handoff::kGpuPod)
        return Phase::kUploadOnGpu;
      return Phase::kDeleteGpu;
    case Phase::kUploadOnGpu:
      return Phase::kDeleteGpu;
    case Phase::kDeleteGpu:
      // The upload only makes sense for a render that succeeded and came home.
      if (f.job_failed || !ok || !f.has_upload) return Phase::kReport;
      if (f.handoff == Handoff::kCpuPod) return Phase::kCpuProvision;
      if (f.handoff == Handoff::kLocal) return Phase::kUploadLocal;
      return Phase::kReport;  // "gpu-pod": it ran before the delete
    case Phase::kUploadLocal:
      return Phase::kReport;
    case Phase::kCpuProvision:
      return ok ? Phase::kUpload : Phase::kDeleteCpu;
    case Phase::kUpload:
      return Phase::kDeleteCpu;
    case Phase::kDeleteCpu:
      return Phase::kReport;
    case Phase::kReport:
    case Phase::kDone:
    case Phase::kReattach:  // recorded rows, never the machine's current phase
    case Phase::kRecover:
    case Phase::kQueued:  // a job row's phase only
    case Phase::kReap:
      return Phase::kDone;
  }
  return Phase::kDone;
}

}  // namespace burst

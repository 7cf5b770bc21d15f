// Fault points: named places in a job where the runner tells an observer it has arrived, so a
// test can stop, kill or disturb the job exactly there (docs/chaos.md). The points, in job order:
// after-create, wait-ssh, mid-sync, mid-setup, before-run (the run phase is open, its step not
// yet launched), mid-run, mid-pull, after-delete, mid-upload.
// The observer comes in the job's dependencies (JobDeps::faults); with none, a point costs one
// branch. Production passes none unless the binary's main() installed the chaos matrix's
// BURST_FAULT hook (util/fault_point.h). In-process tests pass their own.
#pragma once

#include <string_view>

namespace burst {

class FaultObserver {
 public:
  virtual ~FaultObserver() = default;
  // Called on the job's thread each time the job passes `point` (several times for the mid-*
  // points: once per progress callback or output line). It may block; the job waits.
  virtual void reached(std::string_view point) = 0;
};

}  // namespace burst

// The job's phases and the one table that decides which comes next. Pure logic, no I/O: the
// runner executes a phase, reports how it went, and asks here where to go. The rule that matters
// most: once a pod may exist, every path passes through its delete phase.
#pragma once

#include <optional>
#include <string>

#include "burst/states.h"
#include "plan/handoff.h"
#include "plan/prepare.h"

namespace burst {

// Phase and Outcome, with their names, live in burst/states.h (the store records them).

struct JobFacts {
  bool has_upload = false;
  bool pull_on_failure = true;
  bool job_failed = false;             // some earlier phase failed or was interrupted
  Handoff handoff = Handoff::kCpuPod;  // where the upload runs (plan/handoff.h)
  // Where the spec's prepare step runs (plan/prepare.h); none: the spec has no such step. A wide
  // job runs a CPU-pod prepare once, before its workers; a GPU-pod one runs on each worker's pod.
  std::optional<PrepareWhere> prepare = std::nullopt;
};

// Where to go after `current` finished with `outcome`.
Phase next_phase(Phase current, Outcome outcome, const JobFacts& facts);

}  // namespace burst

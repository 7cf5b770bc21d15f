// The plan as the user reads it, one block of lines that `burst plan`, `burst run` (before it
// asks to start) and a run that must replan (job/offer_recheck.h) all print: the GPU pod and how
// many, the volume warm or cold, the prepare step's place (CPU pod, GPU pod or skipped), the
// upload hand-off, and the estimate in time and dollars. One function, so what the plan command
// promises is, line for line, what the run says it executes.
#pragma once

#include <string>
#include <vector>

#include "burst/spec.h"
#include "plan/planner.h"

namespace burst {

// "plan for <name>:" then indented lines, no trailing newlines.
std::vector<std::string> plan_summary_lines(const PipelineSpec& spec, const Plan& plan);

}  // namespace burst

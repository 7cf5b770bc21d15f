// Picks where a job runs and what it should cost: the cheapest candidate (plan/candidates.h)
// that fits, meets the deadline and the limits; ties go to the faster. It takes offers from
// anywhere (the provider drivers, the offline price table) and never calls a provider itself.
// Formulas: docs/cost-model.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burst/provider.h"
#include "burst/spec.h"
#include "plan/candidates.h"

namespace burst {

struct Estimate {
  double cold_start_s = 0;
  double sync_s = 0;
  double run_s = 0;
  double pull_s = 0;
  double upload_s = 0;  // CPU hand-off, including its own cold start
  double total_s = 0;   // GPU-billed seconds
  double usd = 0;
  bool run_known = false;  // false when the spec gives nothing to estimate the run from
  std::string basis;       // one line: where the run time came from
};

struct Plan {
  Offer gpu;
  std::optional<Offer> cpu;  // set when the spec has an upload step
  Estimate estimate;
  std::vector<std::string> notes;     // why other offers were not chosen, in short
  std::vector<Candidate> candidates;  // every offer priced, chosen first, rejected last
};

struct PlanInput {
  std::vector<Offer> gpu_offers;
  std::vector<Offer> cpu_offers;
  std::vector<std::string> providers;  // allowed, in preference order (spec or --provider)
  long code_bytes = 0;
  const std::vector<GpuSpec>* catalog = nullptr;  // null: no model, references unscaled
  bool warm_volume = false;
  std::vector<std::string> unusable;  // providers that could not be asked, and why
};

// Fails with kNoCapacity (naming the constraints) when no offer satisfies the spec, and with
// kInvalid when the cheapest estimate already exceeds budget.max_usd.
Result<Plan> make_plan(const PipelineSpec& spec, const PlanInput& input);

std::string estimate_to_json(const Estimate& e);

}  // namespace burst

// The one JSON shape of a job, for every front end: `burst --json` (jobs, status, run, ...) and
// burstd's API (GET /v1/jobs, /v1/jobs/ID). The same key for the same thing: job_id, pipeline,
// state, phase, provider, started and finished (UTC, "" while unknown or running), seconds (wall
// time), usd (what it cost so far, from its report; absent when no report could be built), error,
// report (the JSON report's path). `id` repeats job_id for scripts written before (README,
// "Using it"). Built as JsonValue (json/json_value.h): the front ends dump it for their adapter.
#pragma once

#include <string>

#include "burst/clock.h"
#include "burst/result.h"
#include "burst/store.h"
#include "json/json_value.h"

namespace burst {

struct JobReport;

// `report` may be null: seconds from the record's times, no usd.
JsonValue job_value(const JobRecord& job, const JobReport* report);
// A pod row: provider, pod (the provider's id), name, job_id, role, state, gpu, usd_per_hour.
JsonValue pod_value(const PodRecord& pod);
// A phase row: phase, started, ended ("" while open), outcome, detail.
JsonValue phase_value(const PhaseRecord& phase);

// One job with its phases and pods from the store, its cost and wall time from its report as of
// `now`: burstd's GET /v1/jobs/ID and `burst status JOB` without a daemon. kNotFound when absent.
Result<JsonValue> job_detail_value(Store& store, const std::string& id, TimePoint now);

}  // namespace burst

// The one JSON shape of a job in every command's --json (jobs, status, logs, run, submit, cancel):
// the same key for the same thing. Keys: job_id, pipeline, state, phase, provider, started and
// finished (UTC, "" while unknown or running), seconds (wall time), usd (what it cost so far),
// error, report (the JSON report's path). `id` repeats job_id for scripts written before
// (README, "Using it").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "burst/clock.h"
#include "burst/result.h"
#include "burst/store.h"

namespace burst {

struct JobReport;

// `report` may be null (no cost known: seconds from the record's times, usd 0).
nlohmann::json job_json(const JobRecord& job, const JobReport* report);

// The same keys added to a job object burstd answered (its "id" and "created"), so `status
// --json` says job_id and started as every other command does.
void canonical_job_keys(nlohmann::json* job);

// One job with its phases and pods from the store, in burstd's GET /v1/jobs/ID shape (phases:
// phase, started, ended, outcome, detail; pods: provider, pod, role, state, gpu, usd_per_hour)
// plus job_json's keys: what `burst status JOB` shows without a daemon. kNotFound when absent.
Result<nlohmann::json> stored_job_detail(Store& store, const std::string& id, TimePoint now);

// The text `burst status JOB` prints for such an object, burstd's or the store's alike.
std::string job_detail_text(const nlohmann::json& job);

// The newest job in the store (the default of every command that takes a job); kNotFound "no
// jobs yet" when there is none.
Result<std::string> latest_job_id(Store& store);

}  // namespace burst

// The job JSON of every command's --json (jobs, status, logs, run, submit, cancel), in the one
// shape report/job_json.h builds for burstd's API too, as nlohmann values for the CLI.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "burst/clock.h"
#include "burst/result.h"
#include "burst/store.h"

namespace burst {

struct JobReport;

// `report` may be null (no cost known: seconds from the record's times, no usd).
nlohmann::json job_json(const JobRecord& job, const JobReport* report);

// The same keys added to a job object burstd answered (its "id" and "created"), so `status
// --json` says job_id and started as every other command does.
void canonical_job_keys(nlohmann::json* job);

// One job with its phases and pods from the store (report/job_json.h's job_detail_value, which
// burstd's GET /v1/jobs/ID answers too), and "source": "state dir": what `burst status JOB`
// shows without a daemon. kNotFound when absent.
Result<nlohmann::json> stored_job_detail(Store& store, const std::string& id, TimePoint now);

// The text `burst status JOB` prints for such an object, burstd's or the store's alike.
std::string job_detail_text(const nlohmann::json& job);

// The newest job in the store (the default of every command that takes a job); kNotFound "no
// jobs yet" when there is none.
Result<std::string> latest_job_id(Store& store);

}  // namespace burst

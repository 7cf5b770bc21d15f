// After a job: POST its summary to the configured webhook, if any (app/webhook.h). Called by
// finish_job (app/finish.h) for `burst run` and burstd alike. Never fails the job: returns a
// warning to print ("" when sent or when no webhook is configured).
#pragma once

#include <string>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/http.h"
#include "report/job_report.h"

namespace burst {

// `http` null: a libcurl client (10 s per attempt) is made when a webhook is configured.
std::string notify_job_finished(const Config& config, Clock& clock, const JobReport& report,
                                HttpClient* http = nullptr);

}  // namespace burst

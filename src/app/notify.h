// After a job: POST its summary to the configured webhook, if any (app/webhook.h). Used by
// `burst run`; burstd can call it the same way. Never fails the job: returns a warning to print
// ("" when sent or when no webhook is configured).
#pragma once

#include <string>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/store.h"

namespace burst {

std::string notify_job_finished(const Config& config, Store& store, Clock& clock,
                                const std::string& job_id);

}  // namespace burst

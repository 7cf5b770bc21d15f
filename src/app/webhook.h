// Job notifications: a JSON summary POSTed to a webhook when a job finishes or fails. The body
// has a "text" field (Slack incoming webhooks) and a "content" field (Discord) with the same
// one-paragraph summary, plus the numbers as fields. Sent through api_call (retries, backoff);
// a failure is returned for a warning and never fails the job. The URL is a secret (Slack's
// carries its token): it never appears in a message. Rules: docs/reports.md.
#pragma once

#include <string>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/http.h"
#include "report/job_report.h"

namespace burst {

// The webhook for a pipeline: its own entry in config notify.pipelines, else notify.webhook
// (or $BURST_WEBHOOK_URL); "" when none.
std::string webhook_for(const Config& config, const std::string& pipeline);

// The summary text: "burst: job <id> (<pipeline>) succeeded in 53.1 min, cost $2.61 (estimate
// $2.50) on runpod H100_SXM" plus the first recommendation.
std::string notification_text(const JobReport& r);
std::string notification_body(const JobReport& r);  // the JSON document POSTed

// POSTs the body; retries 429, 5xx, timeouts and refused connections a few times (a duplicate
// notification is better than none).
Status notify_webhook(HttpClient& http, Clock& clock, const std::string& url, const JobReport& r);

}  // namespace burst

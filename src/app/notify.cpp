#include "app/notify.h"

#include "app/webhook.h"
#include "http/curl_http_client.h"

namespace burst {

std::string notify_job_finished(const Config& config, Store& store, Clock& clock,
                                const std::string& job_id) {
  auto job = store.get_job(job_id);
  if (!job.ok()) return "";
  const std::string url = webhook_for(config, job->pipeline);
  if (url.empty()) return "";
  auto report = build_job_report(store, job_id, clock.now());
  if (!report.ok()) return "cannot notify: " + report.error().message;
  CurlOptions options;
  options.total_timeout = Duration(10000);
  auto http = make_curl_http_client(options);
  Status sent = notify_webhook(*http, clock, url, *report);
  return sent.ok() ? "" : "cannot notify the webhook: " + sent.error().message;
}

}  // namespace burst

#include "app/notify.h"

#include "app/webhook.h"
#include "http/curl_http_client.h"

namespace burst {

std::string notify_job_finished(const Config& config, Clock& clock, const JobReport& report,
                                HttpClient* http) {
  const std::string url = webhook_for(config, report.job.pipeline);
  if (url.empty()) return "";
  std::unique_ptr<HttpClient> own;
  if (!http) {
    CurlOptions options;
    options.total_timeout = Duration(10000);
    own = make_curl_http_client(options);
    http = own.get();
  }
  Status sent = notify_webhook(*http, clock, url, report);
  return sent.ok() ? "" : "cannot notify the webhook: " + sent.error().message;
}

}  // namespace burst

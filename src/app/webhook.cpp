#include "app/webhook.h"

#include "http/api_call.h"
#include "json/json_value.h"
#include "report/report_format.h"

namespace burst {
using namespace report_fmt;

std::string webhook_for(const Config& config, const std::string& pipeline) {
  auto it = config.notify.pipelines.find(pipeline);
  if (it != config.notify.pipelines.end()) return it->second;
  return config.notify.webhook;
}

std::string notification_text(const JobReport& r) {
  std::string t = "burst: job " + r.job.id + " (" + r.job.pipeline + ") " + r.outcome + " in " +
                  duration(r.wall_s) + ", cost " + money(r.total_usd);
  if (r.estimate.known) t += " (estimate " + money(r.estimate.usd) + ")";
  t += " on " + r.job.provider;
  if (!r.facts.gpu_type.empty()) t += " " + r.facts.gpu_type;
  if (r.no_pod) t += "; no pod was created";
  if (!r.job.error.empty()) t += ". Error: " + r.job.error;
  if (!r.recommendations.empty()) t += ". Next time: " + r.recommendations.front().text;
  return t;
}

std::string notification_body(const JobReport& r) {
  const std::string text = notification_text(r);
  JsonValue j = {{"text", text},
                 {"content", text.substr(0, 2000)},  // Discord's limit
                 {"job", r.job.id},
                 {"pipeline", r.job.pipeline},
                 {"state", to_string(r.job.state)},
                 {"outcome", r.outcome},
                 {"provider", r.job.provider},
                 {"gpu_type", r.facts.gpu_type},
                 {"usd", r.total_usd},
                 {"wall_s", r.wall_s}};
  if (r.estimate.known) j["estimate_usd"] = r.estimate.usd;
  return j.dump();
}

Status notify_webhook(HttpClient& http, Clock& clock, const std::string& url, const JobReport& r) {
  ApiCaller api;
  api.provider = "webhook";
  api.http = &http;
  api.clock = &clock;
  api.api_key = url;   // redacts the whole URL from every message
  api.base_url = url;  // and messages name no path (Slack's path carries the token)
  api.retry = RetryPolicy{Duration(1000), Duration(10000), std::chrono::seconds(30)};
  api.max_attempts = 4;
  HttpRequest req;
  req.method = "POST";
  req.url = url;
  req.headers["Content-Type"] = "application/json";
  req.body = notification_body(r);
  req.idempotent = true;  // a repeated notification is harmless; a lost one is not
  auto resp = api_call(api, req);
  if (!resp.ok()) return resp.error();
  return Status::Ok();
}

}  // namespace burst

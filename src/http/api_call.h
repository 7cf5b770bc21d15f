// One call to a cloud API, the way every driver makes it: retries where that is safe, waits
// through the Clock, and turns anything but a 2xx into a classified Error that keeps the
// provider's own message and never contains the API key.
//
// Retry rules (docs/providers.md, "Retries"):
//   - a transport failure before the request was sent (kConnection): retried, any method;
//   - a timeout or broken exchange (kTimeout, kUnavailable), or HTTP 5xx: retried only when
//     request.idempotent; a create that may have reached the server is never sent again (the
//     driver looks the pod up by its unique name instead);
//   - HTTP 429: retried, any method (providers answer 429 before processing), after Retry-After
//     (integer seconds or an HTTP-date) when given, else exponential backoff with jitter;
//   - everything else returns at once.
// Status mapping: 401/403/402 kAuth, 404 kNotFound, 429 kRateLimited, 400/409/422 and other 4xx
// kInvalid, 5xx kUnavailable; the driver's no_capacity hook turns its provider's capacity
// answers into kNoCapacity.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "burst/clock.h"
#include "burst/http.h"
#include "util/retry.h"

namespace burst {

struct ApiCaller {
  std::string provider;  // starts every message: "runpod: POST /v2/pods: HTTP 400: ..."
  HttpClient* http = nullptr;
  Clock* clock = nullptr;
  std::string api_key;   // replaced by "[secret api key]" in every message and log line
  std::string base_url;  // when set, messages name the path after it ("/v2/pods")
  RetryPolicy retry{Duration(1000), Duration(30000), std::chrono::minutes(2)};
  // The backoff after a 429 without Retry-After, where the provider asks for more than `retry`'s
  // (Lambda: SkyPilot backs off from 10 s); unset: `retry`. The total stays retry.total.
  std::optional<RetryPolicy> rate_limit_retry;
  int max_attempts = 5;
  Duration max_retry_after{std::chrono::seconds(120)};  // a longer Retry-After is not waited for
  // The provider's own words from an error response; default: the body, shortened.
  std::function<std::string(const HttpResponse&)> error_message;
  // Whether a non-2xx response means "no capacity for this request" (kNoCapacity).
  std::function<bool(const HttpResponse&)> no_capacity;
  // Receives one line per attempt, already redacted. Optional.
  std::function<void(const std::string&)> log;
  // A draw from [0, 1] for backoff jitter; default: random. Tests pin it.
  std::function<double()> jitter;
};

Result<HttpResponse> api_call(const ApiCaller& api, const HttpRequest& request);

// A JSON API request with "Authorization: Bearer <api_key>" (the only place a key goes),
// Accept: application/json, and Content-Type: application/json when there is a body.
HttpRequest bearer_request(const std::string& method, const std::string& url,
                           const std::string& api_key, std::string body = "",
                           bool idempotent = true);

// RFC 3986 percent-encoding of everything but unreserved characters (for path segments and
// query values such as "NVIDIA GeForce RTX 4090").
std::string percent_encode(const std::string& s);

// The ErrorCode for a non-2xx status (before the no-capacity hook).
ErrorCode error_code_for_status(int status);

// Seconds to wait from a Retry-After value (integer seconds or an IMF-fixdate HTTP-date,
// relative to `now`); -1 when absent or unparsable.
double parse_retry_after(const std::string& value, TimePoint now);

// "/v2/pods" from "https://api.runpod.io/v2/pods?x=1": what messages name.
std::string url_path(const std::string& url);

}  // namespace burst

#include "http/api_call.h"

#include <time.h>

#include <cctype>
#include <cstdio>
#include <random>

#include "util/api_error_count.h"
#include "util/redactor.h"

namespace burst {

ErrorCode error_code_for_status(int status) {
  if (status == 401 || status == 402 || status == 403) return ErrorCode::kAuth;
  if (status == 404) return ErrorCode::kNotFound;
  if (status == 429) return ErrorCode::kRateLimited;
  if (status >= 500) return ErrorCode::kUnavailable;
  return ErrorCode::kInvalid;
}

double parse_retry_after(const std::string& value, TimePoint now) {
  if (value.empty()) return -1;
  char* end = nullptr;
  double s = std::strtod(value.c_str(), &end);
  if (end && *end == '\0' && s >= 0) return s;
  tm t{};
  const char* rest = strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &t);
  if (!rest) return -1;
  const double at = static_cast<double>(timegm(&t));
  const double now_s = static_cast<double>(to_unix_ms(now)) / 1000.0;
  return at > now_s ? at - now_s : 0;
}

std::string url_path(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : url.find('/', start + 3);
  if (start == std::string::npos) return "/";
  size_t end = url.find_first_of("?#", start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

HttpRequest bearer_request(const std::string& method, const std::string& url,
                           const std::string& api_key, std::string body, bool idempotent) {
  HttpRequest r;
  r.method = method;
  r.url = url;
  r.headers["Authorization"] = "Bearer " + api_key;
  r.headers["Accept"] = "application/json";
  if (!body.empty()) r.headers["Content-Type"] = "application/json";
  r.body = std::move(body);
  r.idempotent = idempotent;
  return r;
}

std::string percent_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

namespace {

std::string default_message(const HttpResponse& r) {
  std::string body = r.body;
  if (body.size() > 300) body = body.substr(0, 300) + "...";
  return body;
}

double random01() {
  static thread_local std::mt19937 gen{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(gen);
}

std::string seconds(Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(d.count()) / 1000.0);
  return buf;
}

}  // namespace

Result<HttpResponse> api_call(const ApiCaller& api, const HttpRequest& request) {
  Redactor redact;
  redact.add("api key", api.api_key);
  std::string path = url_path(request.url);
  if (!api.base_url.empty() && request.url.rfind(api.base_url, 0) == 0)
    path = url_path("x://h" + request.url.substr(api.base_url.size()));
  const std::string what = api.provider + ": " + request.method + " " + path;
  auto log = [&](const std::string& line) {
    if (api.log) api.log(redact(line));
  };
  const MonoTime deadline = api.clock->mono_now() + api.retry.total;
  for (int attempt = 0;; ++attempt) {
    auto sent = api.http->send(request);
    Error err;
    bool may_retry = false;
    double retry_after = -1;
    if (!sent.ok()) {
      err = sent.error();
      err.message = what + ": " + err.message;
      may_retry = err.code == ErrorCode::kConnection || request.idempotent;
      if (!may_retry) err.message += " (not retried: the request may have reached the server)";
    } else if (sent->status >= 200 && sent->status < 300) {
      log(what + " -> " + std::to_string(sent->status));
      return sent;
    } else {
      const HttpResponse& r = *sent;
      std::string said = api.error_message ? api.error_message(r) : default_message(r);
      err.code = error_code_for_status(r.status);
      if (api.no_capacity && api.no_capacity(r)) err.code = ErrorCode::kNoCapacity;
      err.message = what + ": HTTP " + std::to_string(r.status) + (said.empty() ? "" : ": " + said);
      if (r.status == 429) {
        may_retry = true;
        retry_after = parse_retry_after(r.header("retry-after"), api.clock->now());
      } else if (r.status >= 500) {
        may_retry = request.idempotent;
      }
    }
    note_api_error(api.provider, err.code);  // burstd's /metrics: every failed attempt
    const bool rate_limited = sent.ok() && sent->status == 429;
    const RetryPolicy& policy =
        rate_limited && api.rate_limit_retry ? *api.rate_limit_retry : api.retry;
    Duration wait = backoff_delay(policy, attempt, api.jitter ? api.jitter() : random01());
    if (retry_after >= 0) wait = Duration(static_cast<Duration::rep>(retry_after * 1000));
    const bool too_long = retry_after >= 0 && wait > api.max_retry_after;
    if (!may_retry || attempt + 1 >= api.max_attempts || too_long ||
        api.clock->mono_now() + wait > deadline) {
      if (may_retry && attempt > 0)
        err.message += " (gave up after " + std::to_string(attempt + 1) + " attempts)";
      if (too_long) err.message += " (the server asks to retry after " + seconds(wait) + ")";
      err.message = redact(err.message);
      log(err.message);
      return err;
    }
    log(err.message + "; retrying in " + seconds(wait));
    api.clock->sleep_for(wait);
  }
}

}  // namespace burst

#include "http/curl_http_client.h"

#include <algorithm>
#include <cctype>
#include <mutex>

#include "http/libcurl_calls.h"

namespace burst {
namespace {

size_t on_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) headers->clear();  // a new response (after 100 Continue)
  size_t colon = line.find(':');
  if (colon == std::string::npos) return size * n;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string value = line.substr(colon + 1);
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  value.erase(value.begin(), std::find_if(value.begin(), value.end(), not_space));
  value.erase(std::find_if(value.rbegin(), value.rend(), not_space).base(), value.end());
  (*headers)[name] = value;
  return size * n;
}

class CurlHttpClient : public HttpClient {
 public:
  explicit CurlHttpClient(CurlOptions o) : o_(std::move(o)), loaded_(libcurl_dl::load()) {
    if (loaded_.ok()) curl_ = curl_easy_init();
  }
  ~CurlHttpClient() override {
    if (curl_) curl_easy_cleanup(curl_);
  }
  CurlHttpClient(const CurlHttpClient&) = delete;
  CurlHttpClient& operator=(const CurlHttpClient&) = delete;

  Result<HttpResponse> send(const HttpRequest& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!loaded_.ok()) return make_error(loaded_.error().code, "http: " + loaded_.error().message);
    if (!curl_) return make_error(ErrorCode::kInternal, "http: curl_easy_init failed");
    if (Status plain = refuse_plain_http(r.url); !plain.ok()) return plain.error();
    CURL* c = curl_;
    curl_easy_reset(c);  // keeps the connection cache
    HttpResponse resp;
    curl_slist* headers = nullptr;
    for (const auto& [k, v] : r.headers)
      headers = curl_slist_append(headers, (k + ": " + v).c_str());
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
    curl_easy_setopt(c, CURLOPT_URL, r.url.c_str());
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r.method.c_str());
    if (r.method == "HEAD") curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH") {
      curl_easy_setopt(c, CURLOPT_POSTFIELDS, r.body.data());
      curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_USERAGENT, o_.user_agent.c_str());
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o_.connect_timeout.count()));
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(o_.total_timeout.count()));
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "localhost,127.0.0.1,::1");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    // Certificates are always verified; there is no option to turn it off. Only HTTP(S).
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &resp.body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &resp.headers);
    CURLcode rc = curl_easy_perform(c);
    curl_slist_free_all(headers);
    if (rc != CURLE_OK) return transport_error(c, rc, r);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    resp.status = static_cast<int>(status);
    return resp;
  }

 private:
  // The message names the method and host only: a URL's query could carry something secret.
  static Error transport_error(CURL* c, CURLcode rc, const HttpRequest& r) {
    std::string what = r.method + " " + host_of(r.url) + ": " + curl_easy_strerror(rc);
    double pretransfer = 0;
    curl_easy_getinfo(c, CURLINFO_PRETRANSFER_TIME, &pretransfer);
    const bool never_sent = pretransfer <= 0;  // still resolving or connecting when it failed
    switch (rc) {
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_COULDNT_RESOLVE_PROXY:
      case CURLE_COULDNT_CONNECT:
        return make_error(ErrorCode::kConnection, what);
      case CURLE_PEER_FAILED_VERIFICATION:
      case CURLE_SSL_CONNECT_ERROR:
        return make_error(ErrorCode::kAuth,
                          what + " (the server's TLS certificate was not accepted)");
      case CURLE_OPERATION_TIMEDOUT:
        return make_error(never_sent ? ErrorCode::kConnection : ErrorCode::kTimeout, what);
      default:
        return make_error(never_sent ? ErrorCode::kConnection : ErrorCode::kUnavailable, what);
    }
  }

  // An API key must not cross a network in clear text. Plain HTTP is allowed to this machine
  // only (the emulators in tests and benchmarks), where no network carries the bytes.
  static Status refuse_plain_http(const std::string& url) {
    std::string scheme = url.substr(0, url.find("://"));
    std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (scheme == "https") return Status::Ok();
    std::string host = host_of(url);
    if (host.rfind('[', 0) == 0)
      host = host.substr(0, host.find(']') + 1);
    else
      host = host.substr(0, host.find(':'));
    if (scheme == "http" && (host == "127.0.0.1" || host == "localhost" || host == "[::1]"))
      return Status::Ok();
    return make_error(ErrorCode::kInvalid,
                      "refusing to send an API request to " + host_of(url) + " over " + scheme +
                          ": use https (plain http is allowed to 127.0.0.1, localhost and [::1] "
                          "only, for emulators)");
  }

  static std::string host_of(const std::string& url) {
    size_t start = url.find("://");
    start = start == std::string::npos ? 0 : start + 3;
    size_t end = url.find_first_of("/?#", start);
    return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }

  CurlOptions o_;
  Status loaded_;
  CURL* curl_ = nullptr;
  std::mutex mu_;
};

}  // namespace

std::unique_ptr<HttpClient> make_curl_http_client(const CurlOptions& options) {
  return std::make_unique<CurlHttpClient>(options);
}

}  // namespace burst

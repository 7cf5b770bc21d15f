#include "http/curl_http_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>

#include "http/libcurl_calls.h"
#include "util/public_address.h"

namespace burst {
namespace {

// Where a response body goes, and how much of it burst keeps (CurlOptions::max_body_bytes).
struct BodySink {
  std::string* body;
  size_t max;
  bool too_big = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  if (sink->body->size() + size * n > sink->max) {
    sink->too_big = true;
    return 0;  // libcurl ends the transfer: CURLE_WRITE_ERROR
  }
  sink->body->append(data, size * n);
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

// CurlOptions::public_addresses_only: the socket libcurl asks for, unless the address it is for
// is not public.
struct SocketGuard {
  bool refused = false;
  std::string address;
};

curl_socket_t open_public_socket(void* user, curlsocktype purpose, curl_sockaddr* a) {
  auto* guard = static_cast<SocketGuard*>(user);
  if (purpose == CURLSOCKTYPE_IPCXN && !is_public_address(&a->addr)) {
    guard->refused = true;
    char text[64] = {};
    if (a->family == AF_INET)
      inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&a->addr)->sin_addr, text,
                sizeof text);
    else if (a->family == AF_INET6)
      inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&a->addr)->sin6_addr, text,
                sizeof text);
    guard->address = text;
    return CURL_SOCKET_BAD;
  }
  const int fd = ::socket(a->family, a->socktype, a->protocol);
  if (fd >= 0) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  return fd < 0 ? CURL_SOCKET_BAD : fd;
}

bool proxy_in_environment() {
  for (const char* name : {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"}) {
    const char* v = std::getenv(name);
    if (v && *v) return true;
  }
  return false;
}

using UrlHandle = std::unique_ptr<CURLU, void (*)(CURLU*)>;

std::string url_part(CURLU* u, CURLUPart part) {
  char* out = nullptr;
  if (curl_url_get(u, part, &out, 0) != CURLUE_OK || !out) return "";
  std::string s(out);
  curl_free(out);
  return s;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return s;
}

// What a refusal names: scheme and host (and port), never the path, query or userinfo, which
// could carry a secret.
std::string shown(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  size_t end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? end : end - start);
  if (size_t at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
  return authority;
}

Error refused(const std::string& url, const std::string& scheme, const std::string& why) {
  return make_error(ErrorCode::kInvalid, "refusing to send an API request to " + shown(url) +
                                             (scheme.empty() ? "" : " over " + scheme) + ": " +
                                             why);
}

// An API key must not cross a network in clear text. Plain HTTP is allowed to this machine only
// (the emulators in tests and benchmarks), where no network carries the bytes: the host libcurl
// will connect to must be exactly localhost, 127.0.0.1 or [::1]; other 127/8 addresses are not
// needed and refused. libcurl's own parser decides what the host is, so userinfo
// ("http://127.0.0.1:1@evil:80") and other tricks cannot make the check and the connection
// disagree.
Result<UrlHandle> parse_api_url(const std::string& url) {
  UrlHandle u(curl_url(), [](CURLU* h) { curl_url_cleanup(h); });
  if (!u) return make_error(ErrorCode::kInternal, "http: curl_url failed");
  if (curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
    return refused(url, "", "not a URL burst can use");
  const std::string scheme = lower(url_part(u.get(), CURLUPART_SCHEME));
  if (scheme == "https") return u;
  const std::string host = lower(url_part(u.get(), CURLUPART_HOST));
  if (scheme == "http" && (host == "127.0.0.1" || host == "localhost" || host == "[::1]")) return u;
  return refused(url, scheme,
                 "use https (plain http is allowed to 127.0.0.1, localhost and [::1] only, for "
                 "emulators)");
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
    // Parsed once, by libcurl itself, and that parse is what is both checked and fetched.
    Result<UrlHandle> url = parse_api_url(r.url);
    if (!url.ok()) return url.error();
    CURL* c = curl_;
    curl_easy_reset(c);  // keeps the connection cache
    HttpResponse resp;
    curl_slist* headers = nullptr;
    for (const auto& [k, v] : r.headers)
      headers = curl_slist_append(headers, (k + ": " + v).c_str());
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
    curl_easy_setopt(c, CURLOPT_CURLU, url->get());
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
    BodySink sink{&resp.body, o_.max_body_bytes};
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &resp.headers);
    SocketGuard guard;
    if (o_.public_addresses_only && !proxy_in_environment()) {
      curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, &open_public_socket);
      curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &guard);
    }
    CURLcode rc = curl_easy_perform(c);
    curl_slist_free_all(headers);
    if (guard.refused && rc != CURLE_OK)
      return make_error(ErrorCode::kInvalid, r.method + " " + shown(r.url) + ": refused: " +
                                                 guard.address + " is not a public address");
    if (sink.too_big)
      return make_error(ErrorCode::kUnavailable,
                        r.method + " " + shown(r.url) + ": response larger than " +
                            std::to_string(o_.max_body_bytes >> 20) + " MiB: refused");
    if (rc != CURLE_OK) return transport_error(c, rc, r);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    resp.status = static_cast<int>(status);
    return resp;
  }

 private:
  // The message names the method and host only: a URL's query could carry something secret.
  static Error transport_error(CURL* c, CURLcode rc, const HttpRequest& r) {
    std::string what = r.method + " " + shown(r.url) + ": " + curl_easy_strerror(rc);
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

  CurlOptions o_;
  Status loaded_;
  CURL* curl_ = nullptr;
  std::mutex mu_;
};

}  // namespace

Status check_api_url(const std::string& url) {
  if (Status loaded = libcurl_dl::load(); !loaded.ok()) return loaded;
  Result<UrlHandle> u = parse_api_url(url);
  return u.ok() ? Status::Ok() : Status(u.error());
}

std::unique_ptr<HttpClient> make_curl_http_client(const CurlOptions& options) {
  return std::make_unique<CurlHttpClient>(options);
}

}  // namespace burst

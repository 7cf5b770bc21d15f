// Browser sessions of burstd's dashboard (docs/dashboard.md; SECURITY.md, "Web pages and other
// servers on this machine"), shared by `burst dashboard`'s proxy (client/dashboard_proxy.h) and
// burstd's TCP listener (daemon/socket_server.h). No third-party header: `burst` links this file.
//
// Browsers send a host's cookies to every port of that host, so a cookie alone would reach any
// other server on 127.0.0.1. A session is therefore two secrets: a path prefix "/s/<32 hex>" under
// which every URL of the session lives, and a cookie (64 hex) set with Path=<prefix>/, HttpOnly,
// SameSite=Strict. A browser sends the cookie only with requests under that path: a page or a
// server on another port receives it only if it knows the prefix, which the dashboard's pages never
// send elsewhere (Referrer-Policy: same-origin, no outside link). A request belongs to a session
// only with both: its path under the prefix and the prefix's cookie.
//
// What a session may do (dash_session_may): GET the dashboard's pages, assets, log stream and
// /metrics (no %-escape or dot segment in the path), and POST the pod-delete form with same-origin
// proof (dash_same_origin) and the form's CSRF token (checked by burstd's Dashboard). Nothing under
// /v1, whatever the path.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace burst::daemon {

// The cookie's name, over the proxy and TCP alike.
inline constexpr const char* kDashCookie = "burst_dash";

struct DashSession {
  std::string prefix;  // "/s/<32 hex>"
  std::string cookie;  // 64 hex
};

// A request of a session: the prefix it came under and its path below it ("/" at least).
struct DashMatch {
  std::string prefix;
  std::string path;
};

class DashboardSessions {
 public:
  explicit DashboardSessions(size_t max_sessions = 64) : max_(max_sessions) {}
  // A new session; past `max_sessions` the oldest is forgotten. nullopt without /dev/urandom.
  std::optional<DashSession> open();
  // The session `path` and the Cookie header `cookie_header` prove, if any (constant-time
  // comparisons; every kDashCookie value in the header is tried).
  std::optional<DashMatch> match(const std::string& path, const std::string& cookie_header) const;

 private:
  mutable std::mutex mu_;
  std::deque<DashSession> sessions_;
  size_t max_;
};

// "burst_dash=<cookie>; Path=<prefix>/; HttpOnly; SameSite=Strict".
std::string dash_set_cookie(const DashSession& s);

// Whether a session may make this request (`path` below its prefix): GET of "/", "/dashboard",
// "/dashboard/..." and "/metrics"; POST of the two forms, "/dashboard/pods/delete" and
// "/dashboard/jobs/cancel". Never "/v1...".
bool dash_session_may(const std::string& method, const std::string& path);

// Same-origin proof for a state-changing request (headers with lower-case names): an Origin that
// is exactly "http://" or "https://" followed by the Host header (so never absent, never "null",
// never another port), and a Sec-Fetch-Site, where the browser sends one, of "same-origin".
bool dash_same_origin(const std::map<std::string, std::string>& headers);

// Whether a browser may name `host_header` for a dashboard served by a listener on `listen_host`:
// an IP address, "localhost", or `listen_host` itself, with any port (a TLS proxy in front may
// change it). A DNS-rebinding page names its own domain, so it is refused.
bool dash_host_ok(const std::string& host_header, const std::string& listen_host);

// Whether `base` is a session prefix as DashboardSessions::open makes them ("/s/" + 32 lower-case
// hex).
bool dash_valid_base(const std::string& base);

// `bytes` random bytes from /dev/urandom as hex ("" when it cannot be read).
std::string dash_random_hex(size_t bytes);
// Equal and non-empty, compared in time that depends only on the lengths.
bool dash_secret_equal(const std::string& a, const std::string& b);

}  // namespace burst::daemon

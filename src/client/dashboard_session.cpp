#include "client/dashboard_session.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <sstream>
#include <vector>

namespace burst::daemon {

std::string dash_random_hex(size_t bytes) {
  std::string raw(bytes, '\0');
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  size_t got = 0;
  while (fd >= 0 && got < bytes) {
    ssize_t n = ::read(fd, raw.data() + got, bytes - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (fd >= 0) ::close(fd);
  if (got != bytes) return "";
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) out += std::string{kHex[c >> 4], kHex[c & 15]};
  return out;
}

bool dash_secret_equal(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0 && !a.empty();
}

bool dash_valid_base(const std::string& base) {
  if (base.size() != 3 + 32 || base.compare(0, 3, "/s/") != 0) return false;
  for (size_t i = 3; i < base.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(base[i])) ||
        std::isupper(static_cast<unsigned char>(base[i])))
      return false;
  return true;
}

std::optional<DashSession> DashboardSessions::open() {
  DashSession s{"/s/" + dash_random_hex(16), dash_random_hex(32)};
  if (s.prefix.size() != 3 + 32 || s.cookie.empty()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.push_back(s);
  while (sessions_.size() > max_) sessions_.pop_front();
  return s;
}

std::optional<DashMatch> DashboardSessions::match(const std::string& path,
                                                  const std::string& cookie_header) const {
  if (path.size() < 3 + 32 || path.compare(0, 3, "/s/") != 0) return std::nullopt;
  const std::string prefix = path.substr(0, 3 + 32);
  if (!dash_valid_base(prefix) || (path.size() > prefix.size() && path[prefix.size()] != '/'))
    return std::nullopt;
  // Every burst_dash value the browser sent (a page on another port may have set its own).
  std::vector<std::string> offered;
  std::stringstream ss(cookie_header);
  const std::string name = std::string(kDashCookie) + "=";
  for (std::string part; std::getline(ss, part, ';');) {
    const size_t start = part.find_first_not_of(' ');
    if (start != std::string::npos && part.compare(start, name.size(), name) == 0)
      offered.push_back(part.substr(start + name.size()));
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const DashSession& s : sessions_) {
    if (!dash_secret_equal(s.prefix, prefix)) continue;
    for (const std::string& c : offered)
      if (dash_secret_equal(c, s.cookie)) {
        const std::string rest = path.substr(prefix.size());
        return DashMatch{s.prefix, rest.empty() ? "/" : rest};
      }
  }
  return std::nullopt;
}

std::string dash_set_cookie(const DashSession& s) {
  return std::string(kDashCookie) + "=" + s.cookie + "; Path=" + s.prefix +
         "/; HttpOnly; SameSite=Strict";
}

bool dash_session_may(const std::string& method, const std::string& path) {
  if (method == "POST") return path == "/dashboard/pods/delete" || path == "/dashboard/jobs/cancel";
  if (method != "GET") return false;
  // Escapes and dot segments are for nothing on the dashboard: refused, so the route checked here
  // is the route burstd serves.
  if (path.find('%') != std::string::npos || path.find("/.") != std::string::npos) return false;
  return path == "/" || path == "/dashboard" || path.rfind("/dashboard/", 0) == 0 ||
         path == "/metrics";
}

bool dash_host_ok(const std::string& host_header, const std::string& listen_host) {
  std::string host = host_header;
  if (!host.empty() && host[0] == '[') {
    const size_t close = host.find(']');
    if (close == std::string::npos) return false;
    host = host.substr(1, close - 1);
    in6_addr a6{};
    return ::inet_pton(AF_INET6, host.c_str(), &a6) == 1;
  }
  host = host.substr(0, host.find(':'));
  in_addr a4{};
  return !host.empty() && (host == "localhost" || host == listen_host ||
                           ::inet_pton(AF_INET, host.c_str(), &a4) == 1);
}

bool dash_same_origin(const std::map<std::string, std::string>& headers) {
  auto host = headers.find("host");
  auto origin = headers.find("origin");
  if (host == headers.end() || host->second.empty() || origin == headers.end()) return false;
  if (origin->second != "http://" + host->second && origin->second != "https://" + host->second)
    return false;
  auto site = headers.find("sec-fetch-site");
  return site == headers.end() || site->second == "same-origin";
}

}  // namespace burst::daemon

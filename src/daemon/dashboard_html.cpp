#include "daemon/dashboard_html.h"

#include <cctype>
#include <cstdio>

#include "report/report_format.h"

namespace burst::daemon {
namespace {

// The page may load its own script, styles and inline SVG; nothing from elsewhere, no framing,
// forms only back to burstd.
constexpr const char* kDashCsp =
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

}  // namespace

// The reports' escaper (report/report_format.h): one HTML escape for reports and dashboard.
std::string dash_escape(const std::string& text) { return report_fmt::html(text); }

std::string dash_usd(double usd) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "$%.4f", usd);
  return buf;
}

std::string dash_url_component(const std::string& text) {
  std::string q;
  for (char c : text) {
    if (isalnum(static_cast<unsigned char>(c))) {
      q += c;
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      q += buf;
    }
  }
  return q;
}

std::string dash_duration(int64_t ms) {
  if (ms < 0) ms = 0;
  const int64_t s = ms / 1000;
  char buf[48];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lldh %02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s % 3600 / 60));
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%lldm %02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  return buf;
}

const char* const kDashNav =
    "<nav><b>burstd</b> <a href=\"/dashboard\">jobs</a> <a href=\"/dashboard/pods\">pods</a> "
    "<a href=\"/dashboard/spend\">spend</a> <a href=\"/metrics\">metrics</a></nav>";

std::string dash_page(const std::string& title, const std::string& body, int refresh_s) {
  return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<title>" +
         dash_escape(title) +
         " · burstd</title><link rel=\"stylesheet\" href=\"/dashboard/style.css\">"
         "<link rel=\"icon\" href=\"data:,\"></head><body>" +
         std::string(kDashNav) + "<main id=\"main\"" +
         (refresh_s > 0 ? " data-refresh=\"" + std::to_string(refresh_s) + "\"" : "") + "><h1>" +
         dash_escape(title) + "</h1>\n" + body +
         "</main><script src=\"/dashboard/app.js\" defer></script></body></html>\n";
}

ApiResponse dash_reply(int status, std::string body, const char* type) {
  ApiResponse r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = type;
  r.headers["Cache-Control"] = "no-store";
  r.headers["X-Content-Type-Options"] = "nosniff";
  r.headers["Content-Security-Policy"] = kDashCsp;
  // No Referer to any other origin (the session's prefix stays here); not no-referrer, under which
  // a browser sends "Origin: null" with the page's own form posts.
  r.headers["Referrer-Policy"] = "same-origin";
  return r;
}

void dash_rebase(ApiResponse& r, const std::string& base) {
  if (base.empty()) return;
  if (auto loc = r.headers.find("Location");
      loc != r.headers.end() && !loc->second.empty() && loc->second[0] == '/')
    loc->second = base + loc->second;
  if (r.content_type.rfind("text/html", 0) != 0) return;
  std::string out;
  out.reserve(r.body.size() + 1024);
  size_t at = 0;
  for (size_t next; (next = r.body.find("=\"/", at)) != std::string::npos; at = next + 2) {
    out.append(r.body, at, next + 2 - at);  // up to the opening quote
    if (r.body.compare(next + 2, 10, "/dashboard") == 0 ||
        r.body.compare(next + 2, 9, "/metrics\"") == 0)
      out += base;
  }
  out.append(r.body, at, std::string::npos);
  r.body = std::move(out);
}

ApiResponse dash_html(int status, const std::string& title, const std::string& body,
                      int refresh_s) {
  return dash_reply(status, dash_page(title, body, refresh_s), "text/html; charset=utf-8");
}

}  // namespace burst::daemon

// Small HTML pieces and responses for burstd's dashboard pages (daemon/dashboard.h): escaping,
// money and duration text, the page frame with its navigation. No third-party header.
#pragma once

#include <cstdint>
#include <string>

#include "daemon/api.h"

namespace burst::daemon {

std::string dash_escape(const std::string& text);  // &, <, >, " and '
std::string dash_usd(double usd);                  // "$1.2345"
std::string dash_duration(int64_t ms);             // "1h 02m", "3m 05s", "12s"
// For a URL's query value: letters and digits as they are, every other byte as %XX.
std::string dash_url_component(const std::string& text);
// A whole page: <!doctype html> ... with the nav, `body` inside <main>, and the script.
// `refresh_s` > 0 marks the page for live refresh by the script (only while something runs).
std::string dash_page(const std::string& title, const std::string& body, int refresh_s = 0);
// The navigation bar every page opens with (the report page too).
extern const char* const kDashNav;
// A response with the dashboard's headers (no caching, nosniff, a strict Content-Security-Policy).
ApiResponse dash_reply(int status, std::string body, const char* type);
// Moves the dashboard's own links into a session's prefix `base` ("/s/<hex>"; "" leaves `r` as it
// is): in an HTML body every attribute value that starts with "/dashboard" or "/metrics", and a
// Location header that starts with "/", get `base` in front. Every text from the store or a log is
// escaped (no raw quote in it), so only burstd's own markup matches.
void dash_rebase(ApiResponse& r, const std::string& base);
// dash_page() as a response.
ApiResponse dash_html(int status, const std::string& title, const std::string& body,
                      int refresh_s = 0);

}  // namespace burst::daemon

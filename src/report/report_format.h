// Small formatting helpers shared by the report renderings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace burst::report_fmt {

std::string money(double usd);           // "$1.23", "$0.0042" below a cent
std::string secs(double s);              // "12.3 s"
std::string duration(double s);          // "45 s", "12.5 min", "3.2 h"
std::string pct(std::optional<double>);  // "+12%", "-" when unset
std::string bytes(int64_t b);            // "1.2 MB"
std::string utc(int64_t ms);             // "2026-11-22T07:09:41Z", "-" for 0
std::string fixed(double v, int decimals);
// HTML text and attribute escaping (& < > " ').
std::string html(const std::string& text);
// A whole HTML document with the reports' inline stylesheet; no script, no external asset.
std::string page(const std::string& title, const std::string& body);

}  // namespace burst::report_fmt

#include "report/report_format.h"

#include <cstdio>

#include "burst/clock.h"

namespace burst::report_fmt {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string money(double usd) {
  return (usd < 0.01 && usd > 0 ? "$" + fixed(usd, 4) : "$" + fixed(usd, 2));
}

std::string secs(double s) { return fixed(s, 1) + " s"; }

std::string duration(double s) {
  if (s < 120) return fixed(s, 0) + " s";
  if (s < 7200) return fixed(s / 60, 1) + " min";
  return fixed(s / 3600, 1) + " h";
}

std::string pct(std::optional<double> v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.0f%%", *v);
  return buf;
}

std::string bytes(int64_t b) {
  const double v = static_cast<double>(b);
  if (b < 1000) return std::to_string(b) + " B";
  if (b < 1000000) return fixed(v / 1e3, 1) + " kB";
  if (b < 1000000000) return fixed(v / 1e6, 1) + " MB";
  return fixed(v / 1e9, 2) + " GB";
}

std::string utc(int64_t ms) { return ms ? format_utc(from_unix_ms(ms)) : "-"; }

std::string html(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html(title) +
         "</title><style>"
         "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:800px;color:#222}"
         "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
         "padding:3px 8px;text-align:left}td.n{text-align:right}"
         "svg.chart{display:block;margin:1em 0}svg text{font-size:12px;fill:#222}"
         "svg text.ct{font-weight:bold}.bad{color:#b00}.muted{color:#777}"
         "</style></head><body>\n" +
         body + "\n</body></html>\n";
}

}  // namespace burst::report_fmt

#include "cli/live_status.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace burst {
namespace {

// Splits "[w3] rest" into ("[w3] ", "rest"); a line without a tag has tag "".
std::pair<std::string_view, std::string_view> live_status_tag(std::string_view line) {
  if (!line.starts_with("[w")) return {{}, line};
  const size_t end = line.find("] ");
  if (end == std::string_view::npos || end < 3) return {{}, line};
  for (size_t i = 2; i < end; ++i)
    if (!std::isdigit(static_cast<unsigned char>(line[i]))) return {{}, line};
  return {line.substr(0, end + 2), line.substr(end + 2)};
}

std::string_view live_status_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::optional<long> live_status_number(std::string_view s) {
  s = live_status_trim(s);
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

std::string live_status_elapsed(double s) {
  const long t = static_cast<long>(std::max(0.0, s));
  char buf[32];
  if (t < 60)
    std::snprintf(buf, sizeof buf, "%lds", t);
  else if (t < 3600)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, t % 3600 / 60);
  return buf;
}

}  // namespace

std::optional<ItemsProgress> parse_progress_line(std::string_view line) {
  std::string_view rest = live_status_trim(live_status_tag(line).second);
  constexpr std::string_view kWord = "BURST_PROGRESS";
  if (!rest.starts_with(kWord)) return std::nullopt;
  rest.remove_prefix(kWord.size());
  if (rest.empty() || (rest.front() != ' ' && rest.front() != '\t')) return std::nullopt;
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto done = live_status_number(rest.substr(0, slash));
  auto total = live_status_number(rest.substr(slash + 1));
  if (!done || !total || *total == 0 || *done > *total) return std::nullopt;
  return ItemsProgress{*done, *total};
}

std::string format_live_status(double elapsed_s, double usd, std::optional<ItemsProgress> items) {
  char money[32];
  std::snprintf(money, sizeof money, "~$%.2f", std::max(0.0, usd));
  std::string out = "run " + live_status_elapsed(elapsed_s) + ", " + money + " so far";
  if (items && items->total > 0) {
    const long pct = static_cast<long>(
        std::floor(100.0 * static_cast<double>(items->done) / static_cast<double>(items->total)));
    out += ", " + std::to_string(items->done) + "/" + std::to_string(items->total) + " items (" +
           std::to_string(pct) + "%)";
  }
  return out;
}

void LiveStatus::on_line(std::string_view line, double now_s) {
  auto [tag, rest] = live_status_tag(line);
  if (!rest.starts_with("==> ")) return;
  const std::string_view phase = live_status_trim(rest.substr(4));
  if (phase == "provision" && !billing_since_) billing_since_ = now_s;
  const bool run = phase == "run";
  if (run && !run_since_) run_since_ = now_s;
  auto it = in_run_.find(tag);
  if (it == in_run_.end())
    in_run_.emplace(std::string(tag), run);
  else
    it->second = run;
}

bool LiveStatus::on_output(std::string_view line) {
  std::optional<ItemsProgress> p = parse_progress_line(line);
  if (!p) return false;
  auto tag = live_status_tag(line).first;
  auto it = progress_.find(tag);
  if (it == progress_.end())
    progress_.emplace(std::string(tag), *p);
  else
    it->second = *p;
  return true;
}

std::optional<std::string> LiveStatus::render(double now_s) const {
  bool running = false;
  for (const auto& [tag, run] : in_run_) running = running || run;
  if (!running || !run_since_) return std::nullopt;
  const double billed_s = now_s - billing_since_.value_or(*run_since_);
  std::optional<ItemsProgress> items;
  for (const auto& [tag, p] : progress_) {
    if (!items) items = ItemsProgress{};
    items->done += p.done;
    items->total += p.total;
  }
  return format_live_status(now_s - *run_since_, usd_per_hour_ * billed_s / 3600.0, items);
}

}  // namespace burst

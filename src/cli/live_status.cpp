#include "cli/live_status.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace burst {
namespace {

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

void LiveStatus::on_phase(std::optional<int> worker, Phase phase, double now_s) {
  if (phase == Phase::kProvision && !billing_since_) billing_since_ = now_s;
  const bool run = phase == Phase::kRun;
  if (run && !run_since_) run_since_ = now_s;
  in_run_[worker.value_or(-1)] = run;
}

bool LiveStatus::on_output(std::string_view line) {
  std::optional<ItemsProgress> p = parse_progress_line(line);
  if (!p) return false;
  auto tag = progress_line_tag(line).first;
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

#include "job/budget_guard.h"

#include <algorithm>
#include <cstdio>

#include "plan/billing.h"

namespace burst {

TimePoint BillingClock::now(TimePoint wall) {
  const auto mono = mono_();
  std::lock_guard<std::mutex> lock(mu_);
  TimePoint t = wall;
  if (last_) {
    const auto elapsed = std::max(mono - last_->second, std::chrono::steady_clock::duration(0));
    t = std::max(wall, last_->first + std::chrono::duration_cast<TimePoint::duration>(elapsed));
  }
  last_ = std::make_pair(t, mono);
  return t;
}

double accrued_usd(const std::vector<PodRecord>& pods, TimePoint at, const JobBilling& billing) {
  double usd = 0;
  for (const PodRecord& p : pods) {
    if (p.state == PodRecordState::kCreateFailed || p.created_ms == 0) continue;
    const int64_t end = p.deleted_ms ? p.deleted_ms : to_unix_ms(at);
    const double lifetime_s = std::max<int64_t>(0, end - p.created_ms) / 1000.0;
    usd += billed_seconds(billing.of(p.provider), lifetime_s) / 3600.0 * p.usd_per_hour;
  }
  return usd;
}

std::vector<BudgetCap> job_money_caps(std::optional<double> max_usd,
                                      const std::vector<BudgetCap>& extra, double committed_usd) {
  std::vector<BudgetCap> caps;
  if (max_usd) caps.push_back({*max_usd, "budget.max_usd"});
  caps.insert(caps.end(), extra.begin(), extra.end());
  if (!(committed_usd > 0)) return caps;
  char less[96];
  std::snprintf(less, sizeof less, ", less $%.4f of per-GB downloads (estimated)", committed_usd);
  for (BudgetCap& c : caps) {
    c.usd -= committed_usd;
    c.name += less;
    if (c.live) c.live = [live = c.live, committed_usd] { return live() - committed_usd; };
    if (c.live_name)
      c.live_name = [name = c.live_name, suffix = std::string(less)] { return name() + suffix; };
  }
  return caps;
}

std::string budget_stop_reason(const std::vector<PodRecord>& pods, TimePoint now,
                               const std::vector<BudgetCap>& caps, const JobBilling& billing,
                               Duration margin) {
  if (caps.empty()) return "";
  const double usd = accrued_usd(pods, now + margin, billing);
  for (const BudgetCap& cap : caps) {
    const double cap_usd = cap.live ? cap.live() : cap.usd;
    if (usd <= cap_usd) continue;
    char buf[400];
    std::snprintf(buf, sizeof buf, "stopped by budget: accrued $%.4f would cross cap $%.4f (%s)",
                  usd, cap_usd, (cap.live_name ? cap.live_name() : cap.name).c_str());
    return buf;
  }
  return "";
}

}  // namespace burst

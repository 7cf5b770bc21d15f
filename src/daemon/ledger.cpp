#include "daemon/ledger.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>

#include "registry.h"

namespace burst::daemon {
namespace {

// The job's reservation, or one made up from its record (a job from before the ledger).
ReservationRecord reservation_of(Store& store, const std::string& job_id, TimePoint now) {
  if (auto open = store.open_reservations(); open.ok())
    for (const auto& r : *open)
      if (r.job_id == job_id) return r;
  ReservationRecord r;
  r.job_id = job_id;
  TimePoint day = now;
  if (auto job = store.get_job(job_id); job.ok()) {
    r.pipeline = job->pipeline;
    if (job->created_ms) day = from_unix_ms(job->created_ms);
  }
  r.day = format_utc(day, "%Y-%m-%d");
  r.month = format_utc(day, "%Y-%m");
  return r;
}

}  // namespace

void Ledger::set_caps(std::optional<double> usd_per_day, std::optional<double> usd_per_month) {
  std::lock_guard<std::mutex> lock(mu_);
  usd_per_day_ = usd_per_day;
  usd_per_month_ = usd_per_month;
}

void Ledger::set_scoped_caps(const std::string& team, std::optional<double> team_usd_per_day,
                             std::optional<double> team_usd_per_month,
                             std::optional<double> user_usd_per_day,
                             std::optional<double> user_usd_per_month) {
  std::lock_guard<std::mutex> lock(mu_);
  team_ = team;
  team_day_ = team_usd_per_day;
  team_month_ = team_usd_per_month;
  user_day_ = user_usd_per_day;
  user_month_ = user_usd_per_month;
}

std::vector<CapSetting> Ledger::stored_caps() {
  std::lock_guard<std::mutex> lock(stored_mu_);
  const MonoTime now = clock_.mono_now();
  if (!stored_at_ || now - *stored_at_ >= kStoredCapsTtl) {
    // A store that cannot answer keeps the last caps it gave (none at first): the file's caps
    // still hold, and a reservation that cannot be written fails on its own.
    if (auto got = store_.caps(); got.ok()) stored_ = std::move(*got);
    stored_at_ = now;
  }
  return stored_;
}

std::vector<std::pair<std::string, LedgerCap>> Ledger::keyed_caps(const std::string& user,
                                                                  const std::string& pipeline) {
  const std::vector<CapSetting> stored = stored_caps();
  auto find = [&](const std::string& scope, const std::string& subject,
                  const std::string& period) -> const CapSetting* {
    for (const CapSetting& c : stored)
      if (c.scope == scope && c.subject == subject && c.period == period) return &c;
    return nullptr;
  };
  auto set_by = [](const CapSetting& c) {
    return " (burst caps" + (c.set_by.empty() ? std::string() : ", set by " + c.set_by) + ")";
  };
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, LedgerCap>> out;
  for (const std::string period : {"day", "month"}) {
    const bool day = period == "day";
    if (const auto& g = day ? usd_per_day_ : usd_per_month_)
      out.push_back(
          {"global/" + period, {period, "", *g, "burstd budget.usd_per_" + period, "", ""}});
    const std::string of_team = team_.empty() ? "" : " of team " + team_;
    if (const CapSetting* c = team_.empty() ? nullptr : find("team", team_, period))
      out.push_back(
          {"team/" + period,
           {period, "", c->usd, "team " + team_ + " cap per " + period + set_by(*c), team_, ""}});
    else if (const auto& t = day ? team_day_ : team_month_)
      out.push_back(
          {"team/" + period,
           {period, "", *t, "burstd budget.team_usd_per_" + period + of_team, team_, ""}});
    if (!user.empty()) {
      const CapSetting* c = find("user", user, period);
      if (!c) c = find("user", "*", period);
      if (c)
        out.push_back(
            {"user/" + period,
             {period, "", c->usd, "user " + user + " cap per " + period + set_by(*c), "", user}});
      else if (const auto& u = day ? user_day_ : user_month_)
        out.push_back({"user/" + period,
                       {period, "", *u, "burstd budget.user_usd_per_" + period + " of user " + user,
                        "", user}});
    }
    if (const CapSetting* c = pipeline.empty() ? nullptr : find("pipeline", pipeline, period))
      out.push_back({"pipeline/" + period,
                     {period, pipeline, c->usd,
                      "pipeline " + pipeline + " cap per " + period + set_by(*c), "", ""}});
  }
  return out;
}

std::vector<LedgerCap> Ledger::caps(const std::string& user, const std::string& pipeline) {
  std::vector<LedgerCap> out;
  for (auto& [key, cap] : keyed_caps(user, pipeline)) out.push_back(std::move(cap));
  return out;
}

std::string Ledger::user_of(const std::string& job_id) {
  if (auto rows = store_.queued_jobs(); rows.ok())
    for (const auto& q : *rows)
      if (q.id == job_id) return q.user;
  return "";
}

std::string Ledger::reserve(const std::string& job_id, const PipelineSpec& spec) {
  const TimePoint t = now();
  ReservationRecord r;
  r.job_id = job_id;
  r.pipeline = spec.name;
  r.usd = spec.budget.max_usd.value_or(0);
  r.day = format_utc(t, "%Y-%m-%d");
  r.month = format_utc(t, "%Y-%m");
  r.reserved_ms = to_unix_ms(t);
  r.user = user_of(job_id);
  {
    std::lock_guard<std::mutex> lock(mu_);
    r.team = team_;
  }
  const std::vector<LedgerCap> all = caps(r.user, r.pipeline);
  auto held = store_.reserve(r, all);
  if (!held.ok()) return "budget: cannot reserve: " + held.error().message;
  if (held->empty()) return "";
  for (const LedgerCap& cap : all) {
    if (cap.name != *held) continue;
    auto sum = store_.committed_usd(cap, r.day, r.month, job_id);
    const double committed = sum.ok() ? *sum : 0;
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "budget: %s ($%.4f committed of $%.4f; this job reserves $%.4f, its "
                  "budget.max_usd)",
                  cap.name.c_str(), committed, cap.usd, r.usd);
    return buf;
  }
  return "budget: " + *held;
}

std::string Ledger::reserve_estimate(const std::string& job_id, const PipelineSpec& spec,
                                     double estimate_usd, bool* never_fits) {
  *never_fits = false;
  if (spec.budget.max_usd || !(estimate_usd > 0)) return "";
  ReservationRecord r = reservation_of(store_, job_id, now());
  if (r.usd >= estimate_usd) return "";
  r.usd = estimate_usd;
  const std::vector<LedgerCap> all = caps(r.user, r.pipeline);
  auto held = store_.reserve(r, all);  // replaces the job's $0 reservation when every cap holds
  if (!held.ok()) return "budget: cannot reserve: " + held.error().message;
  if (held->empty()) return "";
  for (const LedgerCap& cap : all) {
    if (cap.name != *held) continue;
    *never_fits = estimate_usd > cap.usd;
    auto sum = store_.committed_usd(cap, r.day, r.month, job_id);
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "budget: %s ($%.4f committed of $%.4f; this job reserves $%.4f, its plan's "
                  "estimate: it has no budget.max_usd)",
                  cap.name.c_str(), sum.ok() ? *sum : 0.0, cap.usd, estimate_usd);
    return buf;
  }
  return "budget: " + *held;
}

std::vector<BudgetCap> Ledger::caps_for(const std::string& job_id) {
  std::vector<BudgetCap> out;
  const ReservationRecord mine = reservation_of(store_, job_id, now());
  std::vector<std::pair<std::string, LedgerCap>> set_now = keyed_caps(mine.user, mine.pipeline);
  std::vector<std::string> keys;
  for (const auto& [key, cap] : set_now)
    if (cap.team.empty() || cap.team == mine.team) keys.push_back(key);  // else reserved before
  if (!job_id.empty())  // a cap set while the job runs holds it too
    for (const char* scope : {"global", "team", "user", "pipeline"})
      for (const char* period : {"day", "month"})
        if (std::string key = std::string(scope) + "/" + period;
            std::find(keys.begin(), keys.end(), key) == keys.end())
          keys.push_back(key);
  for (const std::string& key : keys) {
    BudgetCap c;
    c.usd = std::numeric_limits<double>::infinity();
    c.name = "what other jobs leave of the " + key.substr(0, key.find('/')) + " cap per " +
             key.substr(key.find('/') + 1);
    for (const auto& [k, cap] : set_now)
      if (k == key) {
        c.usd = cap.usd;
        c.name = "what other jobs leave of " + cap.name;
      }
    c.live = [this, job_id, key, mine] {
      record_soon(job_id);
      // The cap as it is now (a reload or `burst caps set` may have raised, lowered, set or
      // removed it), not as it was at start.
      for (const auto& [k, cap] : keyed_caps(mine.user, mine.pipeline)) {
        if (k != key || (!cap.team.empty() && cap.team != mine.team)) continue;
        ReservationRecord r = reservation_of(store_, job_id, now());
        auto committed = store_.committed_usd(cap, r.day, r.month, job_id);
        // A store that cannot answer stops nothing it could not check before: assume the worst.
        return committed.ok() ? std::max(0.0, cap.usd - *committed) : 0.0;
      }
      return std::numeric_limits<double>::infinity();
    };
    c.live_name = [this, key, mine, fallback = c.name] {
      for (const auto& [k, cap] : keyed_caps(mine.user, mine.pipeline))
        if (k == key) return "what other jobs leave of " + cap.name;
      return fallback;
    };
    out.push_back(std::move(c));
  }
  return out;
}

void Ledger::record(const std::string& job_id) {
  const TimePoint at = now();
  auto pods = store_.pods_of_job(job_id);
  if (!pods.ok()) return;
  const ReservationRecord r = reservation_of(store_, job_id, at);
  for (const PodRecord& p : *pods) {
    if (p.state == PodRecordState::kCreateFailed || p.created_ms == 0) continue;
    SpendRecord e;
    e.pod_row_id = p.row_id;
    e.from_ms = p.created_ms;
    e.to_ms = p.deleted_ms ? p.deleted_ms : std::max(p.created_ms, to_unix_ms(at));
    const ProviderTraits* traits = find_provider_traits(p.provider);
    e.usd = accrued_usd({p}, at, (traits ? *traits : unknown_provider_traits()).billing);
    e.job_id = job_id;
    e.pipeline = r.pipeline;
    e.day = r.day;
    e.month = r.month;
    (void)store_.record_spend(e);
  }
}

void Ledger::record_soon(const std::string& job_id) {
  const TimePoint t = now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = recorded_.find(job_id);
    if (it != recorded_.end() && t - it->second < std::chrono::seconds(1)) return;
    recorded_[job_id] = t;
  }
  record(job_id);
}

void Ledger::settle(const std::string& job_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    recorded_.erase(job_id);
  }
  record(job_id);
  (void)store_.release_reservation(job_id, to_unix_ms(now()));
}

void Ledger::settle_stale(const std::function<bool(const std::string&)>& running) {
  auto open = store_.open_reservations();
  if (!open.ok()) return;
  for (const auto& r : *open)
    if (!running(r.job_id)) settle(r.job_id);
}

}  // namespace burst::daemon

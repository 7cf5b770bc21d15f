#include "daemon/fire_claims.h"

namespace burst::daemon {

StartPlan plan_start(QueueStore& store, std::vector<ScheduledPipeline> pipelines, bool apply_missed,
                     TimePoint now, const LogFn& log) {
  StartPlan plan;
  for (auto& p : pipelines) {
    CronEntry e{std::move(p), std::nullopt};
    const std::string& name = e.p.spec.name;
    if (!apply_missed) {
      e.next = e.p.cron.next_fire(now, e.p.zone);
      plan.entries.push_back(std::move(e));
      continue;
    }
    auto last = store.last_fire(name);
    std::optional<TimePoint> last_fire;
    if (last.ok() && last->has_value()) last_fire = from_unix_ms(**last);
    auto d = schedule::decide_missed_runs(e.p.cron, e.p.zone, last_fire, now, e.p.missed);
    if (d.has_next_fire) e.next = d.next_fire;
    // Claimed, not set: of several burstd on one store only one catches a fire time up.
    bool claimed = true;
    if (d.latest_due) {
      auto c = store.claim_fire(name, to_unix_ms(*d.latest_due));
      claimed = !c.ok() || *c;
    }
    if (!last.ok() || !last->has_value()) (void)store.claim_fire(name, to_unix_ms(now));
    if (d.run_now && !claimed) {
      log(name + ": fire at " + format_utc(*d.latest_due) + " was run by another burstd");
    } else if (d.run_now) {
      std::string why =
          d.catch_up ? "missed run (run-once, " + std::to_string(d.missed) + " fire time(s) missed)"
                     : "schedule " + format_utc(*d.latest_due);
      plan.catch_up.emplace_back(e.p.spec, why);
    } else if (d.missed > 0) {
      log(name + ": skipped " + std::to_string(d.missed) +
          " fire time(s) missed while burstd was down (missed: skip)");
    }
    plan.entries.push_back(std::move(e));
  }
  return plan;
}

bool claim_fire(QueueStore& store, const std::string& pipeline, TimePoint fire, const LogFn& log) {
  // Several burstd on one store (a team's PostgreSQL) may list the same pipeline: the one whose
  // claim moves the recorded fire time fires; the others log it and wait for the next one.
  auto claimed = store.claim_fire(pipeline, to_unix_ms(fire));
  if (claimed.ok() && !*claimed) {
    log(pipeline + ": fire at " + format_utc(fire) + " taken by another burstd on this store");
    return false;
  }
  return true;
}

}  // namespace burst::daemon

#include "daemon/cron_fires.h"

namespace burst::daemon {

std::vector<DueFire> take_due_fires(std::vector<CronEntry>& entries, TimePoint now) {
  std::vector<DueFire> due;
  for (CronEntry& e : entries) {
    if (!e.next || *e.next > now) continue;
    TimePoint fire = *e.next;
    while (auto n = e.p.cron.next_fire(fire, e.p.zone)) {
      if (*n > now) break;
      fire = *n;
    }
    e.next = e.p.cron.next_fire(now, e.p.zone);
    due.push_back({e.p.spec, fire});
  }
  return due;
}

std::optional<TimePoint> earliest_fire(const std::vector<CronEntry>& entries) {
  std::optional<TimePoint> next;
  for (const CronEntry& e : entries)
    if (e.next && (!next || *e.next < *next)) next = e.next;
  return next;
}

}  // namespace burst::daemon

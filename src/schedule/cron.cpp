#include "schedule/cron.h"

#include <algorithm>
#include <bit>

#include "schedule/civil.h"

namespace burst::schedule {
namespace {

// How far next_local looks before giving up: 100 years of days.
constexpr int64_t kMaxDays = 36525;

}  // namespace

bool CronExpr::matches_day(int64_t /*year*/, int month, int day, int weekday) const {
  if (!(months_ >> month & 1)) return false;
  bool day_ok = days_ >> day & 1;
  bool weekday_ok = weekdays_ >> weekday & 1;
  // cronie: OR only when both fields are restricted (neither begins with '*').
  return day_star_ || weekday_star_ ? day_ok && weekday_ok : day_ok || weekday_ok;
}

std::optional<int64_t> CronExpr::next_local(int64_t local) const {
  int64_t t = floor_div(local, 60) * 60 + 60;
  int64_t day = floor_div(t, kSecondsPerDay);
  int first_minute = static_cast<int>((t - day * kSecondsPerDay) / 60);  // of the first day
  for (int64_t n = 0; n < kMaxDays; ++n, ++day, first_minute = 0) {
    CivilDate date = civil_from_days(day);
    if (!(months_ >> date.month & 1)) {  // jump to the month's last day; the loop adds one
      day += days_in_month(date.year, date.month) - date.day;
      continue;
    }
    if (!matches_day(date.year, date.month, date.day, weekday_from_days(day))) continue;
    for (int h = first_minute / 60; h < 24; ++h) {
      if (!(hours_ >> h & 1)) continue;
      int from = h == first_minute / 60 ? first_minute % 60 : 0;
      uint64_t left = minutes_ & (~uint64_t{0} << from);
      if (left) return day * kSecondsPerDay + h * 3600 + std::countr_zero(left) * 60;
    }
  }
  return std::nullopt;
}

std::optional<TimePoint> CronExpr::next_fire(TimePoint after, const TimeZone& zone) const {
  const int64_t a = std::chrono::floor<std::chrono::seconds>(after.time_since_epoch()).count();
  // The earliest wall-clock time that can still name an instant after `a`: the lowest offset in
  // force from `a` on (two days cover any DST shift).
  int lowest = zone.offset_at(a);
  for (std::optional<int64_t> t = zone.next_transition(a); t && *t <= a + 2 * kSecondsPerDay;
       t = zone.next_transition(*t)) {
    lowest = std::min(lowest, zone.offset_at(*t));
  }
  std::optional<int64_t> best;
  int64_t local = a + lowest - 1;
  while (std::optional<int64_t> candidate = next_local(local)) {
    local = *candidate;
    LocalMapping m = zone.to_utc(local);
    // Earliest instants grow with wall-clock time, so a later candidate cannot beat `best`.
    if (best && m.first >= *best) break;
    if (m.first > a) best = best ? std::min(*best, m.first) : m.first;
    // A gap time fires once at the gap's end (m.first); an overlap time fires at its first
    // occurrence, and again at its second only for a wildcard job.
    if (m.kind == LocalMapping::Kind::kOverlap && wildcard() && m.second > a) {
      best = best ? std::min(*best, m.second) : m.second;
    }
  }
  if (!best) return std::nullopt;
  return TimePoint(std::chrono::seconds(*best));
}

}  // namespace burst::schedule

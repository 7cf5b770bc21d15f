#include "schedule/posix_tz.h"

#include <algorithm>
#include <cctype>

#include "schedule/civil.h"

namespace burst::schedule {
namespace {

// A cursor over the TZ string; each reader returns false on malformed input.
struct Cursor {
  std::string_view s;
  size_t i = 0;

  bool done() const { return i >= s.size(); }
  char peek() const { return done() ? '\0' : s[i]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i;
    return true;
  }
  bool number(int max, int& out) {
    size_t start = i;
    long v = 0;
    while (!done() && std::isdigit(static_cast<unsigned char>(s[i])) && v <= max) {
      v = v * 10 + (s[i++] - '0');
    }
    if (i == start || v > max) return false;
    out = static_cast<int>(v);
    return true;
  }
  // A zone abbreviation: 3+ letters, or <...> of letters, digits, '+' and '-'.
  bool name() {
    size_t start = i;
    if (eat('<')) {
      while (!done() && s[i] != '>') ++i;
      if (!eat('>')) return false;
      return i - start >= 5;
    }
    while (!done() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    return i - start >= 3;
  }
  // [+-]hh[:mm[:ss]] as seconds; hours up to `max_hours`.
  bool hms(int max_hours, int& out) {
    int sign = 1;
    if (eat('-')) {
      sign = -1;
    } else {
      eat('+');
    }
    int h = 0, m = 0, sec = 0;
    if (!number(max_hours, h)) return false;
    if (eat(':') && (!number(59, m) || (eat(':') && !number(59, sec)))) return false;
    out = sign * (h * 3600 + m * 60 + sec);
    return true;
  }
};

}  // namespace

std::optional<PosixTz> PosixTz::parse(std::string_view text) {
  PosixTz tz;
  Cursor c{text};
  int west = 0;
  if (!c.name() || !c.hms(24, west)) return std::nullopt;
  tz.std_offset_ = -west;  // POSIX counts hours west of Greenwich
  if (c.done()) return tz;
  if (!c.name()) return std::nullopt;
  tz.has_dst_ = true;
  tz.dst_offset_ = tz.std_offset_ + 3600;
  if (c.peek() != ',' && !c.done()) {
    if (!c.hms(24, west)) return std::nullopt;
    tz.dst_offset_ = -west;
  }
  if (c.done()) {  // no rules: the US rules, as tzcode assumes
    tz.start_ = Rule{'M', 3, 2, 0, 7200};
    tz.end_ = Rule{'M', 11, 1, 0, 7200};
    return tz;
  }
  for (Rule* rule : {&tz.start_, &tz.end_}) {
    if (!c.eat(',')) return std::nullopt;
    if (c.eat('J')) {
      rule->kind = 'J';
      if (!c.number(365, rule->a) || rule->a < 1) return std::nullopt;
    } else if (c.eat('M')) {
      rule->kind = 'M';
      if (!c.number(12, rule->a) || rule->a < 1 || !c.eat('.') || !c.number(5, rule->b) ||
          rule->b < 1 || !c.eat('.') || !c.number(6, rule->c)) {
        return std::nullopt;
      }
    } else {
      rule->kind = 'D';
      if (!c.number(365, rule->a)) return std::nullopt;
    }
    rule->time = 7200;
    if (c.eat('/') && !c.hms(167, rule->time)) return std::nullopt;
  }
  if (!c.done()) return std::nullopt;
  return tz;
}

int64_t PosixTz::rule_day(const Rule& rule, int64_t year) const {
  int64_t jan1 = days_from_civil(year, 1, 1);
  if (rule.kind == 'J') return jan1 + rule.a - 1 + (rule.a >= 60 && is_leap_year(year) ? 1 : 0);
  if (rule.kind == 'D') return jan1 + rule.a;
  int64_t first = days_from_civil(year, rule.a, 1);
  int64_t day = first + (rule.c - weekday_from_days(first) + 7) % 7 + (rule.b - 1) * 7;
  while (day - first >= days_in_month(year, rule.a)) day -= 7;  // "5" means the last one
  return day;
}

void PosixTz::changes_in(int64_t year, std::vector<Change>& out) const {
  // A rule's time is wall-clock time under the offset in effect before the change.
  out.push_back({rule_day(start_, year) * kSecondsPerDay + start_.time - std_offset_, dst_offset_});
  out.push_back({rule_day(end_, year) * kSecondsPerDay + end_.time - dst_offset_, std_offset_});
}

std::vector<PosixTz::Change> PosixTz::changes_around(int64_t utc) const {
  int64_t year = civil_from_days(floor_div(utc, kSecondsPerDay)).year;
  std::vector<Change> changes;
  for (int64_t y = year - 1; y <= year + 1; ++y) changes_in(y, changes);
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& a, const Change& b) { return a.at < b.at; });
  return changes;
}

int PosixTz::offset_at(int64_t utc) const {
  if (!has_dst_) return std_offset_;
  int offset = std_offset_;
  for (const Change& change : changes_around(utc)) {
    if (change.at > utc) break;
    offset = change.offset_after;
  }
  return offset;
}

std::optional<int64_t> PosixTz::next_transition(int64_t utc) const {
  if (!has_dst_ || std_offset_ == dst_offset_) return std::nullopt;
  // Two years on is always past the next change; changes that keep the offset are not ones.
  for (int64_t probe = utc; probe <= utc + 2 * 366 * kSecondsPerDay;
       probe += 366 * kSecondsPerDay) {
    for (const Change& change : changes_around(probe)) {
      if (change.at > utc && offset_at(change.at) != offset_at(change.at - 1)) return change.at;
    }
  }
  return std::nullopt;
}

}  // namespace burst::schedule

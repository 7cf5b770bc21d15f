// The POSIX TZ rule string of a TZif footer ("EST5EDT,M3.2.0,M11.1.0"), which gives the offsets
// for instants past the end of the file's transition table. Internal to src/schedule/.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace burst::schedule {

class PosixTz {
 public:
  // nullopt when `text` is not a POSIX TZ string burst understands (see POSIX.1 section 8.3,
  // plus RFC 8536's extensions: hours -167..167 in rule times).
  static std::optional<PosixTz> parse(std::string_view text);

  // Seconds east of UTC at `utc` (seconds since the epoch).
  int offset_at(int64_t utc) const;
  // The first instant strictly after `utc` at which the offset changes; nullopt without DST.
  std::optional<int64_t> next_transition(int64_t utc) const;

 private:
  struct Rule {
    char kind = 'M';  // 'J' (Jn, 1-365, no Feb 29), 'D' (n, 0-365), 'M' (Mm.w.d)
    int a = 0, b = 0, c = 0;
    int time = 7200;  // local seconds after midnight (may be negative or past 24h)
  };
  struct Change {
    int64_t at;
    int offset_after;
  };
  int64_t rule_day(const Rule& rule, int64_t year) const;  // days since the epoch
  void changes_in(int64_t year, std::vector<Change>& out) const;
  std::vector<Change> changes_around(int64_t utc) const;

  int std_offset_ = 0;  // seconds east of UTC
  int dst_offset_ = 0;
  bool has_dst_ = false;
  Rule start_, end_;
};

}  // namespace burst::schedule

#include "job/replica_stats.h"

#include <algorithm>
#include <charconv>

namespace burst {
namespace {

Error bad(const std::string& why) {
  return make_error(ErrorCode::kInvalid, "replica stats: " + why);
}

// A decimal number of 1..12 digits, nothing else.
bool number(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 12) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return std::from_chars(s.data(), s.data() + s.size(), *out).ec == std::errc();
}

// The next line (without its newline, which must be there), or false at the end.
bool next_line(std::string_view* text, std::string_view* line) {
  const size_t nl = text->find('\n');
  if (nl == std::string_view::npos) return false;
  *line = text->substr(0, nl);
  text->remove_prefix(nl + 1);
  return true;
}

// "<key> <n>[ <n>]": the key and `count` numbers separated by one space.
bool fields(std::string_view line, std::string_view key, int count, int64_t* a, int64_t* b) {
  if (line.substr(0, key.size()) != key || line.size() <= key.size() || line[key.size()] != ' ')
    return false;
  line.remove_prefix(key.size() + 1);
  if (count == 1) return number(line, a);
  const size_t sp = line.find(' ');
  return sp != std::string_view::npos && number(line.substr(0, sp), a) &&
         number(line.substr(sp + 1), b);
}

}  // namespace

std::string replica_stats_path(const std::string& pod_dir, int index) {
  return pod_dir + "/run.r" + std::to_string(index) + ".stats";
}

Result<ReplicaStats> parse_replica_stats(std::string_view text) {
  if (text.size() > kReplicaStatsMaxBytes) return bad("longer than 1024 bytes");
  std::string_view line;
  if (!next_line(&text, &line) || line != "burst-replica 1")
    return bad("does not start with \"burst-replica 1\"");
  ReplicaStats s;
  int64_t exit_status = 0, unused = 0;
  if (!next_line(&text, &line) || !fields(line, "start", 1, &s.start_s, &unused))
    return bad("expected \"start <unix seconds>\"");
  if (!next_line(&text, &line) || !fields(line, "end", 1, &s.end_s, &unused))
    return bad("expected \"end <unix seconds>\"");
  if (s.end_s < s.start_s) return bad("ends before it starts");
  if (!next_line(&text, &line) || !fields(line, "exit", 1, &exit_status, &unused) ||
      exit_status > 255)
    return bad("expected \"exit <0..255>\"");
  s.exit_status = static_cast<int>(exit_status);
  if (next_line(&text, &line)) {
    if (!fields(line, "util", 2, &s.util_sum, &s.util_samples))
      return bad("expected \"util <sum> <samples>\"");
    if (s.util_sum > 100 * s.util_samples) return bad("utilisation above 100%");
  }
  if (!text.empty()) return bad("more than the expected lines");
  return s;
}

std::vector<ReplicaRecord> replica_records(const ReplicaRecord& base,
                                           const std::vector<int>& indexes,
                                           const std::vector<ReplicaStats>& stats,
                                           const std::vector<std::string>& gpus,
                                           const std::vector<int64_t>& items) {
  std::vector<ReplicaRecord> out;
  if (stats.empty() || stats.size() != indexes.size()) return out;
  int64_t first = stats[0].start_s, last = stats[0].end_s;
  for (const ReplicaStats& s : stats) {
    first = std::min(first, s.start_s);
    last = std::max(last, s.end_s);
  }
  for (size_t k = 0; k < stats.size(); ++k) {
    const int i = indexes[k];
    const ReplicaStats& s = stats[k];
    ReplicaRecord r = base;
    r.replica = i;
    if (i >= 0 && static_cast<size_t>(i) < gpus.size()) r.gpus = gpus[static_cast<size_t>(i)];
    if (i >= 0 && static_cast<size_t>(i) < items.size()) r.items = items[static_cast<size_t>(i)];
    r.run_ms = (s.end_s - s.start_s) * 1000;
    r.step_ms = (last - first) * 1000;
    r.exit_status = s.exit_status;
    r.gpu_util_samples = s.util_samples;
    if (s.util_samples > 0)
      r.gpu_util_pct = static_cast<double>(s.util_sum) / static_cast<double>(s.util_samples);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace burst

#include "job/spot_items.h"

#include <map>

namespace burst {

std::string done_file_path(const std::string& volume, const std::string& pod_dir,
                           const std::string& job_id, int worker) {
  if (volume.empty()) return pod_dir + "/done.txt";
  return volume + "/.burst/done/" + job_id + "-w" + std::to_string(worker) + ".txt";
}

std::vector<std::string> items_not_done(const std::vector<std::string>& shard,
                                        std::string_view done_text, long* kept) {
  std::map<std::string_view, long> done;  // item -> finished occurrences recorded
  while (!done_text.empty()) {
    const size_t nl = done_text.find('\n');
    std::string_view line = done_text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // A record cut by the preemption (no newline yet) may be half an item: not counted.
    if (nl == std::string_view::npos) break;
    if (!line.empty()) ++done[line];
    done_text.remove_prefix(nl + 1);
  }
  std::vector<std::string> left;
  long n = 0;
  for (const std::string& item : shard) {
    auto it = done.find(item);
    if (it != done.end() && it->second > 0) {
      --it->second;
      ++n;
    } else {
      left.push_back(item);
    }
  }
  if (kept) *kept = n;
  return left;
}

}  // namespace burst

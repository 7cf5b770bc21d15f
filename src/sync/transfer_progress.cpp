#include "sync/transfer_progress.h"

#include <cstdio>

namespace burst {

std::string human_bytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string human_rate(int64_t bytes, double seconds) {
  if (seconds <= 0) return "-";
  return human_bytes(static_cast<int64_t>(static_cast<double>(bytes) / seconds)) + "/s";
}

std::string progress_line(const std::string& phase, const TransferCounts& c) {
  std::string line = phase + " " + std::to_string(c.files_done) + "/" +
                     std::to_string(c.files_total) + " files, " + human_bytes(c.bytes_done) + "/" +
                     human_bytes(c.bytes_total) + ", " + human_rate(c.bytes_done, c.seconds);
  if (c.seconds > 0 && c.bytes_done > 0 && c.bytes_total > c.bytes_done) {
    double eta = static_cast<double>(c.bytes_total - c.bytes_done) * c.seconds /
                 static_cast<double>(c.bytes_done);
    line += ", ETA " + std::to_string(static_cast<int64_t>(eta + 0.5)) + " s";
  }
  return line;
}

}  // namespace burst

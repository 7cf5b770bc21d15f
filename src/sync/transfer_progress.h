// The words a transfer shows the user: a live line per phase on a TTY (files, bytes, rate, ETA)
// and one summary line when it ends.
#pragma once

#include <cstdint>
#include <string>

namespace burst {

struct TransferCounts {
  int64_t files_done = 0, files_total = 0;
  int64_t bytes_done = 0, bytes_total = 0;
  double seconds = 0;
};

// "sync 120/5020 files, 12.3/612.0 MiB, 45.6 MiB/s, ETA 13 s"
std::string progress_line(const std::string& phase, const TransferCounts& c);
// "1.5 GiB"
std::string human_bytes(int64_t bytes);
// "45.6 MiB/s" (bytes over seconds; "-" for no time)
std::string human_rate(int64_t bytes, double seconds);

}  // namespace burst

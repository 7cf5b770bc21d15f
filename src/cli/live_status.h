// The one-line live status `burst run` keeps at the foot of a terminal (stderr a TTY, no -q)
// while the run step runs: elapsed run time, dollars so far, and items done when the program
// reports them by printing "BURST_PROGRESS <done>/<total>" on a line of its stdout (each worker
// its own; the status sums them). Money so far is the plan's $/hour for every pod times the time
// since the first pod was asked for: an estimate, named "~$". It reads only what the job tells
// the console: the typed phase starts (Console::phase_started, never the "==> <phase>" text,
// which a program could print too) and the pod's output, so it needs nothing else from the job.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "burst/states.h"
#include "util/progress_line.h"

namespace burst {

// "run 1m05s, ~$0.42 so far, 120/1000 items (12%)"; no items part without a report.
std::string format_live_status(double elapsed_s, double usd, std::optional<ItemsProgress> items);

class LiveStatus {
 public:
  // `usd_per_hour`: every pod of the job together (the GPU pod's price x workers).
  explicit LiveStatus(double usd_per_hour) : usd_per_hour_(usd_per_hour) {}

  // A phase began on `worker` (nullopt: a job of one pod), at `now_s` (any monotonic seconds).
  void on_phase(std::optional<int> worker, Phase phase, double now_s);
  // A line of a pod's stdout; true when it was a progress report (then not worth printing).
  bool on_output(std::string_view line);
  // The status, or nullopt when no worker is in its run step.
  std::optional<std::string> render(double now_s) const;

 private:
  double usd_per_hour_;
  std::optional<double> billing_since_;                         // the first provision
  std::optional<double> run_since_;                             // the first run step
  std::map<int, bool> in_run_;                                  // by worker (-1 for one pod)
  std::map<std::string, ItemsProgress, std::less<>> progress_;  // by the lines' "[w<i>] " tag
};

}  // namespace burst

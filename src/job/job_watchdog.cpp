#include "job/job_watchdog.h"

#include <cstdio>

#include "util/limit_stop.h"

namespace burst {

JobWatchdog::JobWatchdog(Clock& clock, std::function<int()> interrupts,
                         std::function<std::vector<PodRecord>()> pods, WatchdogConfig config)
    : clock_(clock),
      interrupts_(std::move(interrupts)),
      pods_(std::move(pods)),
      cfg_(std::move(config)),
      last_progress_(clock.now()),
      billing_clock_([&clock] { return clock.mono_now(); }) {}

JobWatchdog::~JobWatchdog() { stop(); }

void JobWatchdog::start() {
  std::lock_guard<std::mutex> guard(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, cfg_.period, [this] { return stopping_; })) {
      lock.unlock();
      check();
      lock.lock();
    }
  });
}

void JobWatchdog::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void JobWatchdog::set_runtime_limit(TimePoint run_start, double max_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  run_start_ = run_start;
  max_seconds_ = max_seconds;
}

void JobWatchdog::start_runtime_limit(TimePoint run_start, double max_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  if (max_seconds_ > 0 || max_seconds <= 0) return;
  run_start_ = run_start;
  max_seconds_ = max_seconds;
}

void JobWatchdog::clear_runtime_limit() {
  std::lock_guard<std::mutex> lock(mu_);
  max_seconds_ = 0;
}

void JobWatchdog::set_deadline(TimePoint start, double max_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  deadline_start_ = start;
  deadline_seconds_ = max_seconds;
}

bool JobWatchdog::deadline_passed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return deadline_passed_;
}

std::string JobWatchdog::deadline_reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return deadline_passed_ ? limit_stop_reason(kLimitDeadline, deadline_seconds_) : "";
}

void JobWatchdog::progress() {
  const TimePoint now = clock_.now();
  std::lock_guard<std::mutex> lock(mu_);
  last_progress_ = now;
}

void JobWatchdog::attach(RemoteSession* session) {
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.insert(session);
}

void JobWatchdog::detach(RemoteSession* session) {
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.erase(session);
}

std::string JobWatchdog::reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reason_;
}

JobStop JobWatchdog::stopped_by() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

bool JobWatchdog::fired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !reason_.empty();
}

bool JobWatchdog::aborted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return aborted_;
}

// The limits in the order they are checked, and whether the deadline has passed (its own flag:
// it hardens the stop even when another reason came first).
std::string JobWatchdog::find_reason(TimePoint now, bool* deadline, JobStop* stop) {
  TimePoint run_start, deadline_start;
  double max_seconds, deadline_seconds;
  bool fired_already;
  {
    std::lock_guard<std::mutex> lock(mu_);
    fired_already = !reason_.empty();
    run_start = run_start_;
    max_seconds = max_seconds_;
    deadline_start = deadline_start_;
    deadline_seconds = deadline_seconds_;
  }
  auto over = [&](TimePoint from, double limit) {
    return limit > 0 && std::chrono::duration<double>(now - from).count() > limit;
  };
  *deadline = over(deadline_start, deadline_seconds);
  if (fired_already) return "";  // the first reason stays; only the deadline's flag is news
  if (interrupts_ && interrupts_() > 0) return "stopped: " + cfg_.stop_source;
  if (*deadline) {
    *stop = JobStop::kDeadline;
    return limit_stop_reason(kLimitDeadline, deadline_seconds);
  }
  if (over(run_start, max_seconds)) {
    *stop = JobStop::kMaxRuntime;
    return limit_stop_reason(kLimitMaxRuntime, max_seconds);
  }
  if (!cfg_.caps.empty() && pods_) {
    *stop = JobStop::kMoneyCap;  // counts only with a reason
    return budget_stop_reason(pods_(), billing_clock_.now(now), cfg_.caps, cfg_.billing);
  }
  return "";
}

std::string JobWatchdog::check() {
  const TimePoint now = clock_.now();
  bool deadline = false;
  JobStop stop = JobStop::kNone;
  const std::string why = find_reason(now, &deadline, &stop);
  std::lock_guard<std::mutex> lock(mu_);
  if (reason_.empty() && !why.empty()) {
    reason_ = why;
    stop_ = stop;
    fired_at_ = now;
  }
  if (deadline && !deadline_passed_) {
    deadline_passed_ = true;
    deadline_at_ = now;
  }
  // Stuck: nothing moved on the job thread for `grace` since the stop. Sessions attached later
  // (while stuck) are aborted on the next round. Past budget.deadline, moving does not count.
  const TimePoint since = std::max(fired_at_, last_progress_);
  const bool hard = deadline_passed_ && now - deadline_at_ >= cfg_.deadline_grace;
  if (!reason_.empty() && (hard || now - since >= cfg_.grace) && !sessions_.empty()) {
    aborted_ = true;
    for (RemoteSession* s : sessions_) s->abort();
  }
  return reason_;
}

}  // namespace burst

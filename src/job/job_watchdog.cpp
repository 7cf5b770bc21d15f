#include "job/job_watchdog.h"

#include <cstdio>

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

bool JobWatchdog::fired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !reason_.empty();
}

bool JobWatchdog::aborted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return aborted_;
}

std::string JobWatchdog::find_reason() {
  if (interrupts_ && interrupts_() > 0) return "stopped: " + cfg_.stop_source;
  TimePoint run_start;
  double max_seconds;
  {
    std::lock_guard<std::mutex> lock(mu_);
    run_start = run_start_;
    max_seconds = max_seconds_;
  }
  const TimePoint now = clock_.now();
  if (max_seconds > 0 && std::chrono::duration<double>(now - run_start).count() > max_seconds) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "stopped: budget.max_runtime (%.0f s) reached", max_seconds);
    return buf;
  }
  if (!cfg_.caps.empty() && pods_)
    return budget_stop_reason(pods_(), billing_clock_.now(now), cfg_.caps, cfg_.billing);
  return "";
}

std::string JobWatchdog::check() {
  if (!fired()) {
    std::string why = find_reason();
    if (why.empty()) return "";
    std::lock_guard<std::mutex> lock(mu_);
    if (reason_.empty()) {
      reason_ = why;
      fired_at_ = clock_.now();
    }
  }
  const TimePoint now = clock_.now();
  std::lock_guard<std::mutex> lock(mu_);
  // Stuck: nothing moved on the job thread for `grace` since the stop. Sessions attached later
  // (while stuck) are aborted on the next round.
  const TimePoint since = std::max(fired_at_, last_progress_);
  if (now - since >= cfg_.grace && !sessions_.empty()) {
    aborted_ = true;
    for (RemoteSession* s : sessions_) s->abort();
  }
  return reason_;
}

}  // namespace burst

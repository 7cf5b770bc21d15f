// A JobLauncher for scheduler and API tests: records each job in the store like the runner does
// (state running, a "run" phase), then finishes at once or, with `block`, waits until the test
// releases it or cancels it. Counts how many ran at once.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "burst/store.h"
#include "daemon/job_launcher.h"

namespace burst {

class FakeJobLauncher : public daemon::JobLauncher {
 public:
  explicit FakeJobLauncher(Store& store) : store_(store) {}

  // Set by the test while job threads read it (atomic: TSan saw the plain bool race).
  std::atomic<bool> block{false};

  JobResult run(const std::string& id, const PipelineSpec& spec,
                const std::function<int()>& interrupts) override {
    JobRecord rec;
    rec.id = id;
    rec.pipeline = spec.name;
    rec.spec_path = spec.path;
    rec.state = JobState::kRunning;
    rec.phase = Phase::kRun;
    rec.owner_pid = getpid();
    (void)store_.create_job(rec);
    (void)store_.begin_phase(id, Phase::kRun, 1);
    std::unique_lock<std::mutex> lock(mu_);
    started_.push_back(spec.name + ":" + id);
    ++active_;
    max_active_ = std::max(max_active_, active_);
    cv_.notify_all();
    // Cancellation arrives through `interrupts`, which cannot notify: look every few ms.
    while (block && !released_.count(id) && !release_all_ && interrupts() == 0)
      cv_.wait_for(lock, std::chrono::milliseconds(5));
    --active_;
    const bool cancelled = interrupts() > 0;
    lock.unlock();
    rec.state = cancelled ? JobState::kInterrupted : JobState::kSucceeded;
    rec.phase = Phase::kReport;
    rec.finished_ms = 2;
    (void)store_.end_phase(id, Phase::kRun, 2, cancelled ? Outcome::kInterrupted : Outcome::kOk,
                           "");
    (void)store_.update_job(rec);
    JobResult result;
    result.state = rec.state;
    return result;
  }

  void release(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    released_.insert(id);
    cv_.notify_all();
  }
  void release_all() {
    std::lock_guard<std::mutex> lock(mu_);
    release_all_ = true;
    cv_.notify_all();
  }
  // Waits (bounded) until `n` jobs have started; true when they have.
  bool wait_started(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return started_.size() >= n; });
  }
  std::vector<std::string> started() {
    std::lock_guard<std::mutex> lock(mu_);
    return started_;
  }
  int max_active() {
    std::lock_guard<std::mutex> lock(mu_);
    return max_active_;
  }

 private:
  Store& store_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> started_;
  std::set<std::string> released_;
  bool release_all_ = false;
  int active_ = 0;
  int max_active_ = 0;
};

}  // namespace burst

// The jobs burstd runs, one thread each (docs/daemon.md, "Code"). A job runs its body on its own
// thread with an interrupt counter it polls (cancel, drain, a lost lease add to it); when the
// body returns, `on_end` runs on that thread while the job still counts as running (the scheduler
// settles its money and removes its queue row there), then the job leaves the pool, `after_end`
// runs, and wait_idle() callers are woken. Ended threads are joined by reap() or the destructor.
//
// Thread-safe. Its mutex guards only its map and is never held over a callback or a body. Waits
// go through the injected Clock's Waiter, so a FakeClock's advance() ends a wait_idle().
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "burst/clock.h"
#include "daemon/job_launcher.h"
#include "daemon/job_queue.h"

namespace burst::daemon {

class JobPool {
 public:
  using Body = std::function<JobResult(const std::function<int()>& interrupts)>;
  using EndFn = std::function<void(const std::string& id, const JobResult& result)>;

  JobPool(Clock& clock, EndFn on_end, EndFn after_end)
      : clock_(clock), on_end_(std::move(on_end)), after_end_(std::move(after_end)) {}
  ~JobPool();  // waits until every job has ended, then joins their threads
  JobPool(const JobPool&) = delete;
  JobPool& operator=(const JobPool&) = delete;

  // Runs `body` for `job` on a new thread. The caller makes sure job.id is not running.
  void start(QueuedJob job, Body body);
  // Adds one interrupt to the job; false when it does not run here.
  bool interrupt(const std::string& id);
  void interrupt_all();

  bool contains(const std::string& id) const;
  int size() const;
  bool pipeline_running(const std::string& name) const;
  std::vector<QueuedJob> jobs() const;  // what each running job was started as

  void reap();  // joins the threads of jobs that ended
  // Blocks until no job runs, or `timeout` passes on the clock's monotonic time. True when idle.
  bool wait_idle(Duration timeout);

 private:
  struct Running {
    QueuedJob job;
    std::shared_ptr<std::atomic<int>> interrupts;
    std::thread thread;
  };
  void ended(const std::string& id, const JobResult& result);

  Clock& clock_;
  EndFn on_end_;
  EndFn after_end_;
  mutable std::mutex mu_;
  std::condition_variable cv_;  // running_ emptied (the destructor)
  std::map<std::string, Running> running_;
  std::vector<std::thread> done_;   // ended, to join
  std::set<Waiter*> idle_waiters_;  // wait_idle() callers, woken when a job ends
};

}  // namespace burst::daemon

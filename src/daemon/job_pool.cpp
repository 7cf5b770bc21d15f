#include "daemon/job_pool.h"

#include <algorithm>

namespace burst::daemon {

JobPool::~JobPool() {
  // Running jobs' threads call back into their owner: wait for them to end, then join.
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return running_.empty(); });
  std::vector<std::thread> threads;
  threads.swap(done_);
  lock.unlock();
  for (auto& t : threads) t.join();
}

void JobPool::start(QueuedJob job, Body body) {
  auto interrupts = std::make_shared<std::atomic<int>>(0);
  const std::string id = job.id;
  std::lock_guard<std::mutex> lock(mu_);
  Running& r = running_[id];
  r.job = std::move(job);
  r.interrupts = interrupts;
  r.thread = std::thread([this, id, interrupts, body = std::move(body)] {
    JobResult result;
    try {
      result = body([interrupts] { return interrupts->load(); });
    } catch (const std::exception& e) {
      result.state = JobState::kFailed;
      result.error = std::string("internal error: ") + e.what();
    }
    ended(id, result);
  });
}

void JobPool::ended(const std::string& id, const JobResult& result) {
  on_end_(id, result);  // before the job leaves running_ (the destructor waits for that)
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = running_.find(id);
    if (it != running_.end()) {
      done_.push_back(std::move(it->second.thread));
      running_.erase(it);
    }
  }
  after_end_(id, result);
  std::lock_guard<std::mutex> lock(mu_);
  for (Waiter* w : idle_waiters_) w->notify();
  cv_.notify_all();
}

bool JobPool::interrupt(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = running_.find(id);
  if (it == running_.end()) return false;
  it->second.interrupts->fetch_add(1);
  return true;
}

void JobPool::interrupt_all() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, r] : running_) r.interrupts->fetch_add(1);
}

bool JobPool::contains(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_.count(id) > 0;
}

int JobPool::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(running_.size());
}

bool JobPool::pipeline_running(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::any_of(running_.begin(), running_.end(),
                     [&](const auto& kv) { return kv.second.job.spec.name == name; });
}

std::vector<QueuedJob> JobPool::jobs() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<QueuedJob> out;
  for (const auto& [id, r] : running_) out.push_back(r.job);
  return out;
}

void JobPool::reap() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.swap(done_);
  }
  for (auto& t : threads) t.join();
}

bool JobPool::wait_idle(Duration timeout) {
  std::unique_ptr<Waiter> waiter = clock_.make_waiter();
  const MonoTime deadline = clock_.mono_now() + timeout;
  std::unique_lock<std::mutex> lock(mu_);
  idle_waiters_.insert(waiter.get());
  while (!running_.empty() && clock_.mono_now() < deadline) {
    lock.unlock();
    waiter->wait_until(deadline);  // a job's end notifies; a notify before the wait is kept
    lock.lock();
  }
  idle_waiters_.erase(waiter.get());
  return running_.empty();
}

}  // namespace burst::daemon

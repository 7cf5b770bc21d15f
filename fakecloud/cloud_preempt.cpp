// CloudState's preemptions (cloud_state.h): a spot pod taken back by its provider, now or at a
// time on the emulator's clock, from one background thread started on first use.
#include <chrono>

#include "cloud_state.h"
#include "local/local_provider.h"

namespace burst::fakecloud {

bool CloudState::preempt(const std::string& provider, const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(id);
  if (it == pods_.end() || it->second.provider != provider) return false;
  FakePod& p = it->second;
  if (p.phase == Phase::kTerminated || p.preempted) return false;
  // The machine is taken: the container's processes and its sshd die with it.
  if (!p.local_id.empty()) (void)local_->delete_pod(p.local_id);
  p.preempted = true;
  p.ssh = {};
  return true;
}

void CloudState::preempt_at(const std::string& provider, const std::string& id, TimePoint at) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    preemptions_[{provider, id}] = at;
    if (!preempter_.joinable())
      preempter_ = std::thread([this] {
        std::unique_lock<std::mutex> held(mu_);
        while (!stopping_) {
          std::vector<std::pair<std::string, std::string>> due;
          for (auto it = preemptions_.begin(); it != preemptions_.end();) {
            if (clock_.now() >= it->second) {
              due.push_back(it->first);
              it = preemptions_.erase(it);
            } else {
              ++it;
            }
          }
          if (!due.empty()) {
            held.unlock();
            for (const auto& [prov, pod] : due) (void)preempt(prov, pod);
            held.lock();
            continue;
          }
          preempt_cv_.wait_for(held, std::chrono::milliseconds(20));
        }
      });
  }
  preempt_cv_.notify_all();
}

}  // namespace burst::fakecloud

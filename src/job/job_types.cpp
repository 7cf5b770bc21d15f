#include "job/job_types.h"

#include <algorithm>
#include <chrono>

namespace burst {

std::vector<PodRecord> JobPods::records() const {
  std::vector<PodRecord> out;
  for (const PodHandle* p : {&gpu, &cpu, &prep})
    if (p->record.row_id != 0) out.push_back(p->record);
  return out;
}

std::shared_ptr<std::mutex> FleetProvision::volume_lock(
    std::map<std::string, std::shared_ptr<std::mutex>>& locks, const std::string& volume_key) {
  std::lock_guard<std::mutex> lock(sync_mu);
  auto& m = locks[volume_key];
  if (!m) m = std::make_shared<std::mutex>();
  return m;
}

JobBilling billing_of_plan(const Plan& plan) {
  JobBilling b(traits_of(plan.gpu).billing);
  b.by_provider[plan.gpu.provider] = b.rule;
  for (const FleetFallback& f : plan.fallbacks)
    b.by_provider.emplace(f.offer.provider, traits_of(f.offer).billing);
  return b;
}

int rented_gpus(const JobInput& in) {
  return std::max({1, in.plan.gpu.gpu_count, in.spec.resources.count_for(in.plan.gpu.gpu_type)});
}

std::string expand_volume(std::string path, const std::string& volume) {
  const std::string var = "$BURST_VOLUME";
  if (path.rfind(var, 0) == 0) path = volume + path.substr(var.size());
  return path;
}

double seconds_since(Clock& clock, TimePoint t) {
  return std::chrono::duration<double>(clock.now() - t).count();
}

double seconds_since(Clock& clock, MonoTime t) {
  return std::chrono::duration<double>(clock.mono_now() - t).count();
}

}  // namespace burst

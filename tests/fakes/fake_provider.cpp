#include "fakes/fake_provider.h"

#include <string>
#include <utility>

namespace burst {

std::optional<Error> FakeProvider::pop(std::deque<std::optional<Error>>& q) {
  if (q.empty()) return std::nullopt;
  std::optional<Error> e = std::move(q.front());
  q.pop_front();
  return e;
}

const Pod* FakeProvider::find(const std::string& id) const {
  auto it = pods_.find(id);
  return it == pods_.end() ? nullptr : &it->second.pod;
}

bool FakeProvider::exists_named(const std::string& name) const {
  for (const auto& [id, e] : pods_)
    if (e.pod.name == name && !e.removed) return true;
  return false;
}

Pod FakeProvider::make_pod(const std::string& name, PodState state, const std::string& gpu_type) {
  Pod p;
  const std::string n = std::to_string(next_id_++);
  p.id = id_prefix + n;
  p.name = name;
  p.state = state;
  p.ssh = SshEndpoint{"10." + std::to_string(host_net) + ".0." + n, 22, "root"};
  p.gpu_type = gpu_type;
  p.usd_per_hour = 1.0;
  Entry e;
  e.pod = p;
  pods_[p.id] = e;
  return p;
}

Pod FakeProvider::add_existing(const std::string& name, PodState state) {
  return make_pod(name, state, "RTX_4090");
}

Result<std::vector<Offer>> FakeProvider::offers(bool gpu) {
  calls_.push_back(gpu ? "offers gpu" : "offers cpu");
  return gpu ? gpu_offers : cpu_offers;
}

Result<Volume> FakeProvider::ensure_volume(const std::string& name, int size_gb,
                                           const std::string& region) {
  calls_.push_back("ensure_volume " + name);
  for (const auto& v : volumes_)
    if (v.name == name) return v;
  Volume v{"v" + std::to_string(volumes_.size() + 1), name, region, size_gb};
  volumes_.push_back(v);
  return v;
}

Result<std::vector<Volume>> FakeProvider::list_volumes() {
  calls_.push_back("list_volumes");
  return volumes_;
}

Result<Pod> FakeProvider::create_pod(const PodRequest& request) {
  calls_.push_back("create " + request.name);
  requests_.push_back(request);
  if (on_create) on_create(request);
  if (auto e = pop(create_errors)) return *e;
  Pod p = make_pod(request.name, PodState::kRunning, request.gpu ? request.gpu_type : "cpu");
  if (create_fails_after_creating)
    return make_error(ErrorCode::kTimeout, "fake: create " + request.name + ": timed out");
  return p;
}

Result<Pod> FakeProvider::get_pod(const std::string& id) {
  calls_.push_back("get " + id);
  if (auto e = pop(get_errors)) return *e;
  auto it = pods_.find(id);
  if (it == pods_.end() || it->second.removed)
    return make_error(ErrorCode::kNotFound, "fake: pod " + id + " not found");
  Entry& e = it->second;
  if (e.deleting) {
    if (e.gets_until_gone == 0) {
      e.removed = true;
      e.pod.state = PodState::kGone;
      return make_error(ErrorCode::kNotFound, "fake: pod " + id + " not found");
    }
    if (e.gets_until_gone > 0) --e.gets_until_gone;
  }
  if (on_get) on_get(e.pod);
  return e.pod;
}

Result<std::vector<Pod>> FakeProvider::list_pods() {
  calls_.push_back("list");
  if (auto e = pop(list_errors)) return *e;
  std::vector<Pod> out;
  for (const auto& [id, e] : pods_)
    if (!e.removed && e.pod.name.rfind(kPodNamePrefix, 0) == 0) out.push_back(e.pod);
  return out;
}

Status FakeProvider::delete_pod(const std::string& id) {
  calls_.push_back("delete " + id);
  if (on_delete) on_delete(id);
  if (auto e = pop(delete_errors)) return *e;
  auto it = pods_.find(id);
  if (it == pods_.end() || it->second.removed) return Status::Ok();  // already gone: fine
  Entry& e = it->second;
  if (e.deleting) return Status::Ok();  // asked again: still on its way out
  if (delete_takes_effect_after_n_gets == 0) {
    e.removed = true;
    e.pod.state = PodState::kGone;
    return Status::Ok();
  }
  e.deleting = true;
  e.gets_until_gone = delete_takes_effect_after_n_gets;
  e.pod.state = PodState::kStopping;
  return Status::Ok();
}

}  // namespace burst

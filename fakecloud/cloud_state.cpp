#include "cloud_state.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>

#include "docker_shim.h"
#include "local/local_provider.h"

namespace burst::fakecloud {
namespace fs = std::filesystem;
using nlohmann::json;

const char* to_string(Phase p) {
  switch (p) {
    case Phase::kProvisioning:
      return "provisioning";
    case Phase::kRunning:
      return "running";
    case Phase::kTerminated:
      return "terminated";
  }
  return "?";
}

bool image_runs_sshd(const std::string& image) {
  // RunPod's official images ("all RunPod official images do", CreatePodRequest.startSsh).
  for (const char* prefix : {"runpod/", "docker.io/runpod/"})
    if (image.rfind(prefix, 0) == 0) return true;
  return false;
}

std::map<std::string, std::string> image_env(const std::string& image) {
  const std::string base = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  if (image.rfind("pytorch/pytorch", 0) == 0 || image.rfind("docker.io/pytorch/pytorch", 0) == 0)
    return {{"PATH", "/opt/conda/bin:" + base},
            {"LD_LIBRARY_PATH", "/usr/local/nvidia/lib:/usr/local/nvidia/lib64"},
            {"PYTORCH_VERSION", "2.4.0"}};
  if (image.rfind("python:", 0) == 0)
    return {{"PATH", base}, {"LANG", "C.UTF-8"}, {"PYTHON_VERSION", image.substr(7)}};
  return {{"PATH", base}};
}

namespace {

// A loopback port that refuses connections: bound (so no one else takes it), never listening.
int refusing_port(int* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

}  // namespace

json Faults::to_json() const {
  return {{"latency_ms", latency_ms},
          {"preempt_bids", preempt_bids},
          {"preempt_after_ms", preempt_after_ms},
          {"errors_5xx", errors_5xx},
          {"status_5xx", status_5xx},
          {"rate_limits", rate_limits},
          {"retry_after_s", retry_after_s},
          {"create_timeouts", create_timeouts},
          {"hang_ms", hang_ms},
          {"timeouts", timeouts},
          {"stuck_provisioning", stuck_provisioning},
          {"delete_lingers", delete_lingers},
          {"malformed_list", malformed_list},
          {"list_fault", list_fault},
          {"no_capacity", no_capacity},
          {"capacity", capacity},
          {"auth_failure", auth_failure},
          {"extra_offers", extra_offers},
          {"no_ssh_bootstrap", no_ssh_bootstrap},
          {"forbidden", forbidden},
          {"insufficient_balance", insufficient_balance},
          {"capacity_detail", capacity_detail},
          {"start_error", start_error},
          {"start_error_machine", start_error_machine},
          {"usd_per_gpu", usd_per_gpu},
          {"inet_down_cost", inet_down_cost},
          {"inet_up_cost", inet_up_cost},
          {"no_nvidia_runtime", no_nvidia_runtime},
          {"volume_root_squash", volume_root_squash}};
}

Faults Faults::from_json(const json& j) {
  Faults f;
  f.latency_ms = j.value("latency_ms", f.latency_ms);
  f.preempt_bids = j.value("preempt_bids", f.preempt_bids);
  f.preempt_after_ms = j.value("preempt_after_ms", f.preempt_after_ms);
  f.errors_5xx = j.value("errors_5xx", f.errors_5xx);
  f.status_5xx = j.value("status_5xx", f.status_5xx);
  f.rate_limits = j.value("rate_limits", f.rate_limits);
  f.retry_after_s = j.value("retry_after_s", f.retry_after_s);
  f.create_timeouts = j.value("create_timeouts", f.create_timeouts);
  f.hang_ms = j.value("hang_ms", f.hang_ms);
  f.timeouts = j.value("timeouts", f.timeouts);
  f.stuck_provisioning = j.value("stuck_provisioning", f.stuck_provisioning);
  f.delete_lingers = j.value("delete_lingers", f.delete_lingers);
  f.malformed_list = j.value("malformed_list", f.malformed_list);
  f.list_fault = j.value("list_fault", f.list_fault);
  f.no_capacity = j.value("no_capacity", f.no_capacity);
  f.capacity = j.value("capacity", f.capacity);
  f.auth_failure = j.value("auth_failure", f.auth_failure);
  f.extra_offers = j.value("extra_offers", f.extra_offers);
  f.no_ssh_bootstrap = j.value("no_ssh_bootstrap", f.no_ssh_bootstrap);
  f.forbidden = j.value("forbidden", f.forbidden);
  f.insufficient_balance = j.value("insufficient_balance", f.insufficient_balance);
  f.capacity_detail = j.value("capacity_detail", f.capacity_detail);
  f.start_error = j.value("start_error", f.start_error);
  f.start_error_machine = j.value("start_error_machine", f.start_error_machine);
  f.usd_per_gpu = j.value("usd_per_gpu", f.usd_per_gpu);
  f.inet_down_cost = j.value("inet_down_cost", f.inet_down_cost);
  f.inet_up_cost = j.value("inet_up_cost", f.inet_up_cost);
  f.no_nvidia_runtime = j.value("no_nvidia_runtime", f.no_nvidia_runtime);
  f.volume_root_squash = j.value("volume_root_squash", f.volume_root_squash);
  return f;
}

CloudState::CloudState(EmulatorOptions options, Clock& clock)
    : o_(std::move(options)), clock_(clock) {
  std::error_code ec;
  fs::create_directories(fs::path(o_.state_dir) / "local" / "volumes", ec);
  local_ =
      make_local_provider({(fs::path(o_.state_dir) / "local").string(), "", 0, 0}, real_clock_);
}

CloudState::~CloudState() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  preempt_cv_.notify_all();
  if (preempter_.joinable()) preempter_.join();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, p] : pods_) {
    if (!p.local_id.empty()) (void)local_->delete_pod(p.local_id);
    if (p.refusing_fd >= 0) ::close(p.refusing_fd);
  }
}

std::string CloudState::new_id(int length, bool digits_only) {
  static const char* alnum = "abcdefghijklmnopqrstuvwxyz0123456789";
  static thread_local std::mt19937 gen{std::random_device{}()};
  std::string id;
  for (int i = 0; i < length; ++i) {
    if (digits_only)
      id += static_cast<char>('0' + (i == 0 ? 1 + gen() % 9 : gen() % 10));
    else
      id += alnum[gen() % 36];
  }
  return id;
}

Faults CloudState::faults(const std::string& provider) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = faults_.find(provider);
  return it == faults_.end() ? Faults{} : it->second;
}

void CloudState::set_faults(const std::string& provider, const Faults& f) {
  std::lock_guard<std::mutex> lock(mu_);
  faults_[provider] = f;
}

int CloudState::take_burst(const std::string& provider, int* retry_after_s) {
  std::lock_guard<std::mutex> lock(mu_);
  Faults& f = faults_[provider];
  if (f.rate_limits > 0) {
    --f.rate_limits;
    *retry_after_s = f.retry_after_s;
    return 429;
  }
  if (f.errors_5xx > 0) {
    --f.errors_5xx;
    return f.status_5xx;
  }
  return 0;
}

bool CloudState::take_create_timeout(const std::string& provider) {
  std::lock_guard<std::mutex> lock(mu_);
  Faults& f = faults_[provider];
  if (f.create_timeouts <= 0) return false;
  --f.create_timeouts;
  return true;
}

bool CloudState::take_timeout(const std::string& provider) {
  std::lock_guard<std::mutex> lock(mu_);
  Faults& f = faults_[provider];
  if (f.timeouts <= 0) return false;
  --f.timeouts;
  return true;
}

bool CloudState::authorised(const std::string& provider, const std::string& authorization) const {
  const std::string prefix = "Bearer ";
  if (authorization.rfind(prefix, 0) != 0 || authorization.size() == prefix.size()) return false;
  const std::string key = api_key(provider);
  return key.empty() || authorization.substr(prefix.size()) == key;
}

std::string CloudState::api_key(const std::string& provider) const {
  auto it = o_.api_keys.find(provider);
  return it == o_.api_keys.end() ? "" : it->second;
}

Result<FakeVolume> CloudState::create_volume(const std::string& provider, const std::string& name,
                                             const std::string& region, int size_gb,
                                             const std::string& id) {
  FakeVolume v{id.empty() ? new_id(10) : id, provider, name, region, size_gb, ""};
  auto made = local_->ensure_volume(v.id, size_gb, region);  // a directory named by the id
  if (!made.ok()) return made.error();
  v.dir = (fs::path(o_.state_dir) / "local" / "volumes" / v.id).string();
  std::lock_guard<std::mutex> lock(mu_);
  volumes_[v.id] = v;
  return v;
}

std::vector<FakeVolume> CloudState::volumes(const std::string& provider) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<FakeVolume> out;
  for (const auto& [id, v] : volumes_)
    if (v.provider == provider) out.push_back(v);
  return out;
}

std::optional<FakeVolume> CloudState::volume(const std::string& provider,
                                             const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = volumes_.find(id);
  if (it == volumes_.end() || it->second.provider != provider) return std::nullopt;
  return it->second;
}

Status CloudState::delete_volume(const std::string& provider, const std::string& id) {
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = volumes_.find(id);
    if (it == volumes_.end() || it->second.provider != provider)
      return make_error(ErrorCode::kNotFound, "no such volume " + id);
    for (const auto& [pid, p] : pods_)
      if (p.provider == provider && p.phase != Phase::kTerminated && p.volume_id == id)
        return make_error(ErrorCode::kInvalid, "volume " + id + " is in use by pod " + pid);
    dir = it->second.dir;
    volumes_.erase(it);
  }
  std::error_code ec;
  if (!dir.empty()) fs::remove_all(dir, ec);
  return Status::Ok();
}

Result<FakePod> CloudState::create_pod(FakePod p) {
  const Faults f = faults(p.provider);
  // Faults::capacity: counted and taken in one go (the pod is in pods_ before the lock is let go).
  std::unique_lock<std::mutex> one_create;
  if (auto cap = f.capacity.find(p.gpu_type); p.gpu && cap != f.capacity.end()) {
    one_create = std::unique_lock<std::mutex>(capacity_mu_);
    int live = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [id, q] : pods_)
        live += q.provider == p.provider && q.gpu && q.gpu_type == p.gpu_type &&
                q.phase != Phase::kTerminated;
    }
    if (live >= cap->second)
      return make_error(ErrorCode::kNoCapacity, "fakecloud: " + std::to_string(live) + " " +
                                                    p.gpu_type + " pods live, capacity " +
                                                    std::to_string(cap->second));
  }
  if (p.id.empty()) p.id = new_id(14);
  p.created = clock_.now();
  p.ready_at = p.created + o_.boot_delay;
  p.phase = Phase::kProvisioning;
  if (f.stuck_provisioning) p.ready_at = TimePoint::max();
  if (f.no_ssh_bootstrap && !image_runs_sshd(p.image)) p.sshd = false;
  if (!p.sshd) {  // the port is mapped, nothing listens: connections are refused
    p.refusing_fd = refusing_port(&p.ssh.port);
    if (p.refusing_fd < 0) return make_error(ErrorCode::kInternal, "fakecloud: reserve a port");
    p.ssh.host = "127.0.0.1";
    p.ssh.user = "root";
    std::lock_guard<std::mutex> lock(mu_);
    pods_[p.id] = p;
    return p;
  }
  // The loopback pod: a volume directory (a scratch one for pods without a volume) and an sshd
  // that accepts the request's key, as the image's startup script would.
  std::string vol = p.volume_id;
  if (vol.empty()) {
    vol = "scratch-" + p.id;
    auto made = local_->ensure_volume(vol, 0, "");
    if (!made.ok()) return made.error();
  }
  PodRequest r;
  r.name = p.name;
  r.job_id = p.id;
  r.gpu = p.gpu;
  r.volume_id = vol;
  r.mount_path = p.mount_path;
  r.ssh_public_key = p.public_key;
  r.env = p.session_env ? *p.session_env : p.env;
  r.env.erase("PUBLIC_KEY");  // the key is authorised already; keep it off the sshd config
  auto local = local_->create_pod(r);
  if (!local.ok()) return with_context(local.error(), "fakecloud: start pod sshd");
  p.local_id = local->id;
  p.ssh = local->ssh;
  std::lock_guard<std::mutex> lock(mu_);
  pods_[p.id] = p;
  return p;
}

Result<std::string> CloudState::vm_docker_bin() {
  std::lock_guard<std::mutex> lock(mu_);
  if (docker_bin_.empty()) {
    auto bin = install_docker_shim(o_.state_dir + "/vm-docker");
    if (!bin.ok()) return bin.error();
    docker_bin_ = *bin;
  }
  return docker_bin_;
}

std::string CloudState::docker_calls_log() const {
  return (fs::absolute(o_.state_dir) / "vm-docker" / "calls.log").string();
}

void CloudState::advance(FakePod& p) {
  if (p.phase == Phase::kProvisioning && clock_.now() >= p.ready_at) p.phase = Phase::kRunning;
  if (p.lingering_reads == 0) terminate(p);
}

void CloudState::terminate(FakePod& p) {
  if (!p.local_id.empty()) (void)local_->delete_pod(p.local_id);
  if (p.refusing_fd >= 0) ::close(p.refusing_fd);
  p.refusing_fd = -1;
  p.phase = Phase::kTerminated;
  p.lingering_reads = -1;
  p.ssh = {};
}

std::optional<FakePod> CloudState::pod(const std::string& provider, const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(id);
  if (it == pods_.end() || it->second.provider != provider) return std::nullopt;
  FakePod& p = it->second;
  advance(p);
  if (p.lingering_reads > 0) --p.lingering_reads;
  return p;
}

std::vector<FakePod> CloudState::pods(const std::string& provider) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<FakePod> out;
  for (auto& [id, p] : pods_) {
    if (p.provider != provider) continue;
    advance(p);
    if (p.lingering_reads > 0) --p.lingering_reads;
    if (p.phase != Phase::kTerminated) out.push_back(p);
  }
  return out;
}

bool CloudState::delete_pod(const std::string& provider, const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(id);
  if (it == pods_.end() || it->second.provider != provider) return false;
  FakePod& p = it->second;
  if (p.phase == Phase::kTerminated) return false;
  const int linger = faults_[provider].delete_lingers;
  if (p.lingering_reads >= 0 && linger > 0) return true;  // still "deleting"
  if (linger > 0)
    p.lingering_reads = linger;  // answers success, keeps running (and billing) a while
  else
    terminate(p);
  return true;
}

std::vector<FakePod> CloudState::live_pods() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<FakePod> out;
  for (auto& [id, p] : pods_) {
    bool processes = !p.local_id.empty() && !local_pod_processes(p.local_id).empty();
    if (p.phase != Phase::kTerminated || processes) out.push_back(p);
  }
  return out;
}

std::vector<FakePod> CloudState::all_pods() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<FakePod> out;
  for (const auto& [id, p] : pods_) out.push_back(p);
  return out;
}

void CloudState::add_account_key(const std::string& provider, const std::string& public_key) {
  std::lock_guard<std::mutex> lock(mu_);
  account_keys_[provider].push_back(public_key);
}

void CloudState::set_account_keys(const std::string& provider, std::vector<std::string> keys) {
  std::lock_guard<std::mutex> lock(mu_);
  account_keys_[provider] = std::move(keys);
}

std::vector<std::string> CloudState::account_keys(const std::string& provider) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = account_keys_.find(provider);
  return it == account_keys_.end() ? std::vector<std::string>{} : it->second;
}

void CloudState::request_started() {
  std::lock_guard<std::mutex> lock(mu_);
  ++in_flight_;
}

void CloudState::log_request(RequestLogEntry e) {
  std::lock_guard<std::mutex> lock(mu_);
  log_.push_back(std::move(e));
  if (in_flight_ > 0) --in_flight_;
  logged_.notify_all();
}

std::vector<RequestLogEntry> CloudState::request_log() const {
  std::unique_lock<std::mutex> lock(mu_);
  logged_.wait_for(lock, std::chrono::seconds(2), [this] { return in_flight_ == 0; });
  return log_;
}

json CloudState::state_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  json pods = json::array(), vols = json::array(), log = json::array();
  for (const auto& [id, p] : pods_) {
    pods.push_back({{"id", p.id},
                    {"provider", p.provider},
                    {"name", p.name},
                    {"phase", to_string(p.phase)},
                    {"preempted", p.preempted},
                    {"gpu", p.gpu},
                    {"gpu_type", p.gpu_type},
                    {"volume_id", p.volume_id},
                    {"mount_path", p.mount_path},
                    {"region", p.region},
                    {"public_key", p.public_key},
                    {"ssh_port", p.ssh.port},
                    {"sshd", p.sshd},
                    {"start_note", p.start_note},
                    {"lingering_reads", p.lingering_reads}});
  }
  for (const auto& [id, v] : volumes_)
    vols.push_back({{"id", v.id},
                    {"provider", v.provider},
                    {"name", v.name},
                    {"region", v.region},
                    {"size_gb", v.size_gb},
                    {"dir", v.dir}});
  for (const auto& e : log_)
    log.push_back({{"provider", e.provider},
                   {"method", e.method},
                   {"path", e.path},
                   {"status", e.status},
                   {"body", e.body},
                   {"authorised", e.authorised},
                   {"key_leaked", e.key_leaked}});
  json faults = json::object();
  for (const auto& [name, f] : faults_) faults[name] = f.to_json();
  return {{"pods", pods}, {"volumes", vols}, {"requests", log}, {"faults", faults}};
}

}  // namespace burst::fakecloud

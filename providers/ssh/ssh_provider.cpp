#include "ssh/ssh_provider.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

#include "cost/owned_cost.h"
#include "ssh/own_host_probe.h"
#include "util/shell.h"

namespace burst {
namespace {

using ownhost::HostProbe;

// "<left>@<host>": a pod's or a volume's id. nullopt-like: empty host when malformed.
std::pair<std::string, std::string> split_id(const std::string& id) {
  const size_t at = id.rfind('@');
  if (at == std::string::npos || at == 0 || at + 1 == id.size()) return {"", ""};
  return {id.substr(0, at), id.substr(at + 1)};
}

class SshProvider : public Provider {
 public:
  // The clock is the drivers' common parameter; this one waits only inside its SSH connector.
  SshProvider(SshProviderOptions o, std::unique_ptr<RemoteConnector> connector, Clock&)
      : o_(std::move(o)), connector_(std::move(connector)) {}

  std::string name() const override { return "ssh"; }

  Result<std::vector<Offer>> offers(bool gpu) override {
    std::vector<Offer> out;
    if (!gpu) return out;  // no CPU pods: the upload runs from the GPU pod or this machine
    std::vector<Result<HostProbe>> probes = probe_all();
    for (size_t i = 0; i < o_.hosts.size(); ++i) {
      const OwnHostConfig& h = o_.hosts[i];
      const Result<HostProbe>& probe = probes[i];
      if (!probe.ok() || probe->gpus.empty()) continue;  // `burst check` says why
      // One offer per host: its most numerous GPU type, every card of it.
      std::map<std::string, int> count;
      std::map<std::string, double> mib;
      for (const auto& g : probe->gpus) {
        const std::string type = ownhost::catalog_gpu_name(g.name, g.memory_mib);
        ++count[type];
        mib[type] = g.memory_mib;
      }
      auto best = count.begin();
      for (auto it = count.begin(); it != count.end(); ++it)
        if (it->second > best->second) best = it;
      Offer offer;
      offer.provider = "ssh";
      offer.gpu_type = best->first;
      offer.gpu_count = best->second;
      if (mib[best->first] > 0) offer.vram_gb = mib[best->first] / 1024.0;
      offer.usd_per_hour = own_host_usd_per_hour(h, o_.catalog, offer.gpu_type, offer.gpu_count);
      offer.region = h.name;
      offer.available = !probe->locked;
      offer.price_source = h.usd_per_hour ? "owned (config)" : "owned (derived)";
      out.push_back(std::move(offer));
    }
    return out;
  }

  Result<Volume> ensure_volume(const std::string& name, int size_gb,
                               const std::string& region) override {
    const OwnHostConfig* h = host(region);
    if (!h) return no_host(region);
    if (!ownhost::safe_name(name))
      return make_error(ErrorCode::kInvalid,
                        "ssh: volume name \"" + name + "\" is not a safe dir name");
    auto out =
        run(*h, "W=" + ownhost::work_dir_word(h->work_dir) + "; mkdir -p -- \"$W/volumes/\"" +
                    shell_quote(name) + " && chmod 700 -- \"$W\" && echo ok");
    if (!out.ok()) return out.error();
    return Volume{name + "@" + h->name, name, h->name, size_gb};
  }

  Result<std::vector<Volume>> list_volumes() override {
    std::vector<Volume> out;
    for (const OwnHostConfig& h : o_.hosts) {
      auto names =
          run(h, "W=" + ownhost::work_dir_word(h.work_dir) +
                     "; [ -d \"$W/volumes\" ] && ls -1 -- \"$W/volumes\" | head -n 1000; true");
      if (!names.ok()) continue;  // an unreachable host lists nothing
      size_t at = 0;
      while (at < names->size()) {
        size_t nl = names->find('\n', at);
        if (nl == std::string::npos) nl = names->size();
        const std::string v = names->substr(at, nl - at);
        if (ownhost::safe_name(v)) out.push_back({v + "@" + h.name, v, h.name, 0});
        at = nl + 1;
      }
    }
    return out;
  }

  Status delete_volume(const std::string& id) override {
    auto [name, where] = split_id(id);
    const OwnHostConfig* h = host(where);
    if (!h || !ownhost::safe_name(name))
      return make_error(ErrorCode::kInvalid, "ssh: bad volume id \"" + id + "\"");
    auto out = run(*h, "W=" + ownhost::work_dir_word(h->work_dir) + "; rm -rf -- \"$W/volumes/\"" +
                           shell_quote(name) + " && echo ok");
    return out.ok() ? Status::Ok() : Status(out.error());
  }

  Result<Pod> create_pod(const PodRequest& r) override {
    if (!r.gpu) return make_error(ErrorCode::kUnavailable, "ssh: your own hosts run no CPU pods");
    if (!ownhost::safe_name(r.name))
      return make_error(ErrorCode::kInvalid,
                        "ssh: pod name \"" + r.name + "\" is not a safe dir name");
    std::string volume;
    const OwnHostConfig* h = nullptr;
    if (!r.volume_id.empty()) {
      auto [v, where] = split_id(r.volume_id);
      h = host(where);
      if (!h || !ownhost::safe_name(v))
        return make_error(ErrorCode::kNotFound, "ssh: no volume " + r.volume_id);
      volume = v;
    } else {
      for (const OwnHostConfig& c : o_.hosts) {
        auto probe = probe_host(c);
        if (probe.ok() && !probe->locked && !probe->gpus.empty() &&
            ownhost::catalog_gpu_name(probe->gpus[0].name, probe->gpus[0].memory_mib) ==
                r.gpu_type) {
          h = &c;
          break;
        }
      }
      if (!h) return make_error(ErrorCode::kNoCapacity, "ssh: no free host with " + r.gpu_type);
    }
    auto out = run(*h, ownhost::lock_command(h->work_dir, r.name, volume));
    if (!out.ok()) return with_context(out.error(), "ssh: host " + h->name + ": take the lock");
    const size_t nl = out->find('\n');
    const std::string first = out->substr(0, nl);
    const std::string rest = nl == std::string::npos ? "" : out->substr(nl + 1);
    std::string second = rest.substr(0, rest.find('\n'));
    if (first != "locked" || second.empty() || second[0] != '/') {
      std::string holder;
      for (char c : second)
        if (holder.size() < ownhost::kMaxName) holder += (c >= 0x20 && c < 0x7f) ? c : '?';
      // Another job holds the host: no capacity, so the runner takes the plan's fallback.
      return make_error(ErrorCode::kNoCapacity,
                        "ssh: host " + h->name + " is busy" +
                            (holder.empty() ? "" : " (held by " + holder + ")"));
    }
    Pod p = pod_of(*h, r.name, second, volume);
    p.gpu_type = r.gpu_type;
    p.usd_per_hour = own_host_usd_per_hour(*h, o_.catalog, r.gpu_type, r.gpu_count);
    return p;
  }

  Result<Pod> get_pod(const std::string& id) override {
    auto [pod_name, where] = split_id(id);
    const OwnHostConfig* h = host(where);
    if (!h || !ownhost::safe_name(pod_name))
      return make_error(ErrorCode::kNotFound, "ssh: no pod " + id);
    auto probe = probe_host(*h);
    if (!probe.ok()) return probe.error();  // unreachable: not "gone"
    auto has_dir = run(*h, "[ -d " + shell_quote(probe->work_dir + "/jobs/" + pod_name) +
                               " ] && echo yes || echo no");
    if (!has_dir.ok()) return has_dir.error();
    const bool holds = probe->lock_holder == pod_name;
    if (!holds && has_dir->rfind("yes", 0) != 0)
      return make_error(ErrorCode::kNotFound, "ssh: pod " + id + " is gone");
    Pod p = pod_of(*h, pod_name, probe->work_dir, holds ? probe->lock_volume : "");
    price(*h, *probe, &p);
    // A job dir without the lock: a delete half done (processes stopped, dir not removed yet).
    if (!holds) p.state = PodState::kStopping;
    return p;
  }

  Result<std::vector<Pod>> list_pods() override {
    std::vector<Pod> out;
    std::vector<Result<HostProbe>> probes = probe_all();
    for (size_t i = 0; i < o_.hosts.size(); ++i) {
      const OwnHostConfig& h = o_.hosts[i];
      const Result<HostProbe>& probe = probes[i];
      if (!probe.ok()) continue;  // unreachable: its pod rows stay for `burst reap`
      if (probe->lock_holder.rfind(kPodNamePrefix, 0) == 0 &&
          ownhost::safe_name(probe->lock_holder)) {
        out.push_back(pod_of(h, probe->lock_holder, probe->work_dir, probe->lock_volume));
        price(h, *probe, &out.back());
      }
    }
    return out;
  }

  std::vector<OwnHostCheck> check() {
    std::vector<OwnHostCheck> out;
    std::vector<Result<HostProbe>> probes = probe_all();
    for (size_t i = 0; i < o_.hosts.size(); ++i) {
      const OwnHostConfig& h = o_.hosts[i];
      OwnHostCheck c;
      SshTarget t = target(h);
      c.host = h.name;
      c.endpoint = t.user + "@" + h.address + ":" + std::to_string(h.port);
      const Result<HostProbe>& probe = probes[i];
      if (!probe.ok()) {
        c.error = probe.error().message;
        out.push_back(std::move(c));
        continue;
      }
      c.reachable = true;
      c.busy = probe->locked;
      c.holder = probe->lock_holder;
      if (probe->gpus.empty()) {
        c.error = probe->gpu_error.empty() ? "nvidia-smi listed no GPU" : probe->gpu_error;
      } else {
        const std::string type =
            ownhost::catalog_gpu_name(probe->gpus[0].name, probe->gpus[0].memory_mib);
        c.gpus = std::to_string(probe->gpus.size()) + "x " + type;
        c.usd_per_hour =
            own_host_usd_per_hour(h, o_.catalog, type, static_cast<int>(probe->gpus.size()));
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  Status delete_pod(const std::string& id) override {
    auto [pod_name, where] = split_id(id);
    const OwnHostConfig* h = host(where);
    if (!h || !ownhost::safe_name(pod_name))
      return make_error(ErrorCode::kInvalid, "ssh: bad pod id \"" + id + "\"");
    auto out = run(*h, ownhost::release_command(h->work_dir, pod_name));
    if (!out.ok()) return with_context(out.error(), "ssh: host " + h->name + ": release");
    if (out->find("released") == std::string::npos)
      return make_error(ErrorCode::kRemoteFailed, "ssh: host " + h->name + ": release unconfirmed");
    return Status::Ok();
  }

 private:
  const OwnHostConfig* host(const std::string& name) const {
    for (const OwnHostConfig& h : o_.hosts)
      if (h.name == name) return &h;
    return nullptr;
  }

  static Error no_host(const std::string& name) {
    return make_error(ErrorCode::kNotFound,
                      "ssh: no host \"" + name + "\" in config.yaml providers.ssh.hosts");
  }

  SshTarget target(const OwnHostConfig& h) {
    SshTarget t;
    t.host = h.address;
    t.port = h.port;
    t.user = h.user.empty() ? o_.default_user : h.user;
    t.private_key_path = h.key.empty() ? o_.default_key : h.key;
    t.io_timeout_s = o_.connect_timeout_s;
    t.no_progress_timeout_s = 30;
    std::lock_guard<std::mutex> g(mu_);
    t.pinned_host_key = h.host_key.empty() ? pinned_[h.name] : h.host_key;
    return t;
  }

  // One command on the host, its stdout; the host key pinned at first contact in this process.
  Result<std::string> run(const OwnHostConfig& h, const std::string& command) {
    SshTarget t = target(h);
    auto session = connector_->connect(t);
    if (!session.ok())
      return with_context(session.error(), "ssh: host " + h.name + " (" + t.user + "@" + h.address +
                                               ":" + std::to_string(h.port) + ")");
    {
      std::lock_guard<std::mutex> g(mu_);
      if (pinned_[h.name].empty()) pinned_[h.name] = t.pinned_host_key;
    }
    auto out = (*session)->run_capture(command);
    if (!out.ok()) return with_context(out.error(), "ssh: host " + h.name);
    if (out->size() > (1u << 20))
      return make_error(ErrorCode::kRemoteFailed, "ssh: host " + h.name + ": answer over 1 MiB");
    return out;
  }

  // Every host probed at once, one thread each: a host that is off costs its connect timeout
  // once, not once per host before it. In config order.
  std::vector<Result<HostProbe>> probe_all() {
    std::vector<Result<HostProbe>> out(o_.hosts.size(),
                                       make_error(ErrorCode::kInternal, "ssh: not probed"));
    std::vector<std::thread> threads;
    for (size_t i = 0; i < o_.hosts.size(); ++i)
      threads.emplace_back([this, i, &out] { out[i] = probe_host(o_.hosts[i]); });
    for (std::thread& t : threads) t.join();
    return out;
  }

  Result<HostProbe> probe_host(const OwnHostConfig& h) {
    auto out = run(h, ownhost::probe_command(h.work_dir));
    if (!out.ok()) return out.error();
    auto p = ownhost::parse_probe(*out);
    if (!p.ok()) return with_context(p.error(), "ssh: host " + h.name);
    return p;
  }

  Pod pod_of(const OwnHostConfig& h, const std::string& pod_name, const std::string& abs_dir,
             const std::string& volume) {
    Pod p;
    p.id = pod_name + "@" + h.name;
    p.name = pod_name;
    p.state = PodState::kRunning;
    SshTarget t = target(h);
    p.ssh = {t.host, t.port, t.user, t.private_key_path};
    p.work_dir = abs_dir + "/jobs/" + pod_name;
    if (!volume.empty()) p.volume_path = abs_dir + "/volumes/" + volume;
    return p;
  }

  // What a pod found on the host is and costs: its GPUs as probed (the whole host is the job's).
  void price(const OwnHostConfig& h, const HostProbe& probe, Pod* p) const {
    if (probe.gpus.empty()) return;
    p->gpu_type = ownhost::catalog_gpu_name(probe.gpus[0].name, probe.gpus[0].memory_mib);
    p->usd_per_hour =
        own_host_usd_per_hour(h, o_.catalog, p->gpu_type, static_cast<int>(probe.gpus.size()));
  }

  SshProviderOptions o_;
  std::unique_ptr<RemoteConnector> connector_;
  std::mutex mu_;
  std::map<std::string, std::string> pinned_;  // host name -> host key seen first
};

}  // namespace

double own_host_usd_per_hour(const OwnHostConfig& host, const std::vector<GpuSpec>& catalog,
                             const std::string& gpu, int count) {
  if (host.usd_per_hour) return *host.usd_per_hour;
  const GpuSpec* g = find_gpu(catalog, gpu);
  if (!g) return 0;
  return owned_usd_per_hour(count * g->purchase_usd.value_or(0), host.life_years, host.utilization,
                            power_cost_per_hour(count * g->tdp_w, host.usd_per_kwh));
}

SshProviderOptions ssh_options_from(const Config& c) {
  SshProviderOptions o;
  o.hosts = c.own_hosts;
  o.default_key = c.ssh_key;
  if (passwd* pw = getpwuid(geteuid())) o.default_user = pw->pw_name;
  if (o.default_user.empty() && std::getenv("USER")) o.default_user = std::getenv("USER");
  // A host without usd_per_hour is priced from its GPUs' power and price (the catalog); without
  // a catalog such a host is priced at 0.
  if (auto catalog = load_gpu_catalog(c.config_dir); catalog.ok()) o.catalog = std::move(*catalog);
  return o;
}

std::vector<OwnHostCheck> check_own_hosts(const SshProviderOptions& options,
                                          std::unique_ptr<RemoteConnector> connector,
                                          Clock& clock) {
  SshProvider p(options, std::move(connector), clock);
  return p.check();
}

std::unique_ptr<Provider> make_ssh_provider(SshProviderOptions options,
                                            std::unique_ptr<RemoteConnector> connector,
                                            Clock& clock) {
  return std::make_unique<SshProvider>(std::move(options), std::move(connector), clock);
}

}  // namespace burst

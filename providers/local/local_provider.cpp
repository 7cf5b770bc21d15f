#include "local/local_provider.h"

#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "burst/ssh_keys.h"
#include "util/process.h"

namespace burst {
namespace fs = std::filesystem;
using json = nlohmann::json;

std::string find_sshd() {
  for (const char* p : {"/usr/sbin/sshd", "/usr/local/sbin/sshd", "/opt/homebrew/sbin/sshd"})
    if (access(p, X_OK) == 0) return p;
  return "";
}

std::vector<int> local_pod_processes(const std::string& pod_id) {
  const std::string marker = "/pods/" + pod_id + "/sshd_config";
  auto table = list_processes();
  std::vector<int> roots = pids_with_env(kLocalPodEnv, pod_id);
  for (const auto& p : table)
    if (p.cmdline.find(marker) != std::string::npos && p.pid != getpid()) roots.push_back(p.pid);
  return with_descendants(roots, table);
}

namespace {

std::string current_user() {
  if (passwd* pw = getpwuid(geteuid())) return pw->pw_name;
  const char* u = getenv("USER");
  return u ? u : "root";
}

Result<int> free_loopback_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return make_error(ErrorCode::kInternal, "local: socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  close(fd);
  if (port <= 0) return make_error(ErrorCode::kInternal, "local: no free loopback port");
  return port;
}

std::string random_hex(int bytes) {
  std::random_device rd;
  std::ostringstream out;
  for (int i = 0; i < bytes; ++i) out << std::hex << ((rd() >> 4) & 0xf) << (rd() & 0xf);
  return out.str();
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string quote_setenv(const std::string& name, const std::string& value) {
  return "\"" + name + "=" + value + "\"";  // sshd_config splits on spaces outside quotes
}

// TEST ONLY (docs/testing.md, "Hostile pods"): BURST_TEST_POD_SHIM=<absolute path> makes every
// local pod's sshd run that program for every command and subsystem (`ForceCommand`), with what
// burst sent in $SSH_ORIGINAL_COMMAND ("internal-sftp" for SFTP). The hostile-pod tests use it to
// play a pod that lies or goes silent. Empty or unset: no effect. A path sshd could not take as
// one word is refused, so a typo never yields a pod that silently runs something else.
Result<std::string> test_pod_shim() {
  const char* v = std::getenv("BURST_TEST_POD_SHIM");
  if (!v || !*v) return std::string();
  const std::string shim = v;
  if (shim[0] != '/' || shim.find_first_of(" \t\n\r\"'\\") != std::string::npos ||
      access(shim.c_str(), X_OK) != 0)
    return make_error(ErrorCode::kInvalid,
                      "local: BURST_TEST_POD_SHIM must be an executable absolute path without "
                      "spaces or quotes: " +
                          shim);
  return shim;
}

class LocalProvider : public Provider {
 public:
  LocalProvider(LocalProviderConfig c, Clock& clock) : c_(std::move(c)), clock_(clock) {
    if (c_.sshd_path.empty()) c_.sshd_path = find_sshd();
  }

  std::string name() const override { return "local"; }

  Result<std::vector<Offer>> offers(bool gpu) override {
    Offer o;
    o.provider = "local";
    o.gpu_type = gpu ? "local" : "cpu";
    o.gpu_count = gpu ? 1 : 0;
    o.usd_per_hour = gpu ? c_.gpu_usd_per_hour : c_.cpu_usd_per_hour;
    o.region = "this-machine";
    o.price_source = "config";
    o.available = !c_.sshd_path.empty();
    return std::vector<Offer>{o};
  }

  Result<Volume> ensure_volume(const std::string& name, int size_gb, const std::string&) override {
    std::error_code ec;
    fs::path dir = fs::path(c_.root) / "volumes" / name;
    fs::create_directories(dir, ec);
    if (ec) return make_error(ErrorCode::kInternal, "local: volume " + name + ": " + ec.message());
    return Volume{name, name, "this-machine", size_gb};
  }

  Result<std::vector<Volume>> list_volumes() override {
    std::vector<Volume> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(c_.root) / "volumes", ec))
      if (e.is_directory())
        out.push_back({e.path().filename(), e.path().filename(), "this-machine", 0});
    return out;
  }

  // A volume is a directory under volumes/: deleted with its files, unless a pod still mounts it
  // (its pod.json names the directory). Deleting one already gone succeeds.
  Status delete_volume(const std::string& id) override {
    if (id.empty() || id == "." || id == ".." || id.find('/') != std::string::npos)
      return make_error(ErrorCode::kInvalid, "local: bad volume id \"" + id + "\"");
    const fs::path volume = fs::path(c_.root) / "volumes" / id;
    std::error_code ec;
    if (!fs::exists(volume, ec)) return Status::Ok();
    for (const auto& e : fs::directory_iterator(fs::path(c_.root) / "pods", ec)) {
      json rec = json::parse(read_file(e.path() / "pod.json"), nullptr, false);
      if (rec.is_object() && rec.value("volume", "") == volume.string())
        return make_error(ErrorCode::kInvalid, "local: volume " + id + " is in use by pod " +
                                                   e.path().filename().string() +
                                                   "; delete it once the job ends");
    }
    fs::remove_all(volume, ec);
    if (ec)
      return make_error(ErrorCode::kInternal,
                        "local: remove " + volume.string() + ": " + ec.message());
    return Status::Ok();
  }

  Result<Pod> create_pod(const PodRequest& r) override {
    if (c_.sshd_path.empty())
      return make_error(ErrorCode::kUnavailable,
                        "local: no sshd found (install openssh-server: scripts/setup does)");
    fs::path volume = fs::path(c_.root) / "volumes" / r.volume_id;
    if (!fs::is_directory(volume))
      return make_error(ErrorCode::kNotFound, "local: volume " + r.volume_id + " does not exist");
    auto shim = test_pod_shim();
    if (!shim.ok()) return shim.error();
    std::string id = "local-" + random_hex(6);
    fs::path dir = pod_dir(id);
    std::error_code ec;
    fs::create_directories(dir / "home", ec);
    if (ec) return make_error(ErrorCode::kInternal, "local: " + dir.string() + ": " + ec.message());
    ::chmod(dir.c_str(), 0700);
    // The record goes down first so list_pods (and reap) can see the pod from here on.
    json rec = {{"id", id},
                {"name", r.name},
                {"job_id", r.job_id},
                {"gpu", r.gpu},
                {"volume", volume.string()},
                {"created_ms", to_unix_ms(clock_.now())}};
    std::ofstream(dir / "pod.json") << rec.dump(2);
    auto host_key = ensure_keypair((dir / "host_ed25519").string());
    if (!host_key.ok()) return with_context(host_key.error(), "local: host key");
    std::ofstream(dir / "authorized_keys") << r.ssh_public_key << "\n";
    ::chmod((dir / "authorized_keys").c_str(), 0600);

    Error last = make_error(ErrorCode::kInternal, "local: sshd did not start");
    for (int attempt = 0; attempt < 3; ++attempt) {  // a free port can be taken before sshd binds
      auto port = free_loopback_port();
      if (!port.ok()) return port.error();
      auto started = start_sshd(id, dir, volume, *port, r, *shim);
      if (started.ok()) {
        rec["port"] = *port;
        std::ofstream(dir / "pod.json") << rec.dump(2);
        return get_pod(id);
      }
      last = started.error();
    }
    return last;
  }

  Result<Pod> get_pod(const std::string& id) override {
    fs::path dir = pod_dir(id);
    if (!fs::exists(dir / "pod.json"))
      return make_error(ErrorCode::kNotFound, "local: no pod " + id);
    json rec = json::parse(read_file(dir / "pod.json"), nullptr, false);
    if (rec.is_discarded()) rec = json::object();
    Pod pod;
    pod.id = id;
    pod.name = rec.value("name", "");
    pod.gpu_type = rec.value("gpu", true) ? "local" : "cpu";
    pod.usd_per_hour = rec.value("gpu", true) ? c_.gpu_usd_per_hour : c_.cpu_usd_per_hour;
    int pid = sshd_pid(dir);
    bool serving = process_alive(pid) && rec.contains("port");
    // A pod whose sshd died still has a directory and maybe processes: it needs a delete.
    pod.state = serving ? PodState::kRunning : PodState::kStopping;
    if (serving) pod.ssh = {"127.0.0.1", rec.value("port", 0), current_user()};
    return pod;
  }

  Result<std::vector<Pod>> list_pods() override {
    std::vector<Pod> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(c_.root) / "pods", ec)) {
      auto pod = get_pod(e.path().filename());
      if (pod.ok() && pod->name.rfind(kPodNamePrefix, 0) == 0) out.push_back(*pod);
    }
    return out;
  }

  Status delete_pod(const std::string& id) override {
    fs::path dir = pod_dir(id);
    if (id.empty() || id.find('/') != std::string::npos)
      return make_error(ErrorCode::kInvalid, "local: bad pod id \"" + id + "\"");
    // The processes first, and even when the directory is gone: an earlier delete that raced a
    // fork (a session sshd was starting) removed the directory and left that process running.
    const int listener = sshd_pid(dir);
    std::vector<int> left = freeze_and_kill(
        [&] {
          std::vector<int> pids = local_pod_processes(id);
          if (process_alive(listener) &&
              std::find(pids.begin(), pids.end(), listener) == pids.end())
            pids.push_back(listener);
          return pids;
        },
        2000);
    if (!left.empty())
      return make_error(
          ErrorCode::kUnavailable,
          "local: pod " + id + ": " + std::to_string(left.size()) + " processes survived SIGKILL");
    if (!fs::exists(dir)) return Status::Ok();  // already gone
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (ec)
      return make_error(ErrorCode::kInternal,
                        "local: remove " + dir.string() + ": " + ec.message());
    return Status::Ok();
  }

 private:
  fs::path pod_dir(const std::string& id) const { return fs::path(c_.root) / "pods" / id; }

  static int sshd_pid(const fs::path& dir) {
    std::string s = read_file(dir / "sshd.pid");
    return s.empty() ? -1 : std::atoi(s.c_str());
  }

  Status start_sshd(const std::string& id, const fs::path& dir, const fs::path& volume, int port,
                    const PodRequest& r, const std::string& shim) {
    std::ostringstream conf;
    if (!shim.empty()) {
      std::fprintf(stderr,
                   "burst: TEST ONLY: BURST_TEST_POD_SHIM is set: every command on local pod %s "
                   "runs through %s\n",
                   id.c_str(), shim.c_str());
      conf << "# TEST ONLY (BURST_TEST_POD_SHIM)\nForceCommand " << shim << "\n";
    }
    conf << "ListenAddress 127.0.0.1\nPort " << port << "\n"
         << "HostKey " << (dir / "host_ed25519").string() << "\n"
         << "PidFile " << (dir / "sshd.pid").string() << "\n"
         << "AuthorizedKeysFile " << (dir / "authorized_keys").string() << "\n"
         << "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
         << "PubkeyAuthentication yes\nUsePAM no\nStrictModes no\nPermitRootLogin yes\n"
         << "AllowTcpForwarding no\nX11Forwarding no\nPrintMotd no\nClientAliveInterval 5\n"
         << "Subsystem sftp internal-sftp\n"
         << "SetEnv " << quote_setenv(kLocalPodEnv, id) << " "
         << quote_setenv("BURST_VOLUME", volume.string()) << " "
         << quote_setenv("BURST_POD_DIR", dir.string()) << " "
         << quote_setenv("BURST_POD_ID", id)
         // The pod's own HOME, never the user's: `cd $HOME`, ~/.cache, ~/.bashrc and dotfiles a
         // job writes stay in the pod dir and go with it (docs/providers.md, what the local
         // cloud isolates). Before the request's env: sshd keeps a name's first value.
         << " " << quote_setenv("HOME", (dir / "home").string());
    for (const auto& [k, v] : r.env) conf << " " << quote_setenv(k, v);
    conf << "\n";
    std::ofstream(dir / "sshd_config") << conf.str();
    ::chmod((dir / "sshd_config").c_str(), 0600);
    fs::remove(dir / "sshd.pid");
    if (geteuid() == 0) {  // sshd run as root insists on its privilege-separation directory
      std::error_code ec;
      fs::create_directories("/run/sshd", ec);
    }
    // sshd daemonizes (its own session, so Ctrl-C at the terminal never reaches the pod) and
    // every process it forks inherits the marker.
    std::map<std::string, std::string> env = {{kLocalPodEnv, id},
                                              {"PATH", "/usr/local/bin:/usr/bin:/bin"}};
    std::string log = (dir / "sshd.log").string();
    auto rc =
        run_and_wait({c_.sshd_path, "-f", (dir / "sshd_config").string(), "-E", log}, env, log);
    if (!rc.ok()) return rc.error();
    for (int i = 0; i < 100 && *rc == 0; ++i) {
      if (process_alive(sshd_pid(dir))) return Status::Ok();
      clock_.sleep_for(Duration(20));
    }
    std::string tail = read_file(log);
    if (tail.size() > 400) tail = tail.substr(tail.size() - 400);
    return make_error(ErrorCode::kUnavailable, "local: sshd failed to start: " + tail);
  }

  LocalProviderConfig c_;
  Clock& clock_;
};

}  // namespace

std::unique_ptr<Provider> make_local_provider(const LocalProviderConfig& config, Clock& clock) {
  return std::make_unique<LocalProvider>(config, clock);
}

}  // namespace burst

// The fault-injection matrix's cells (docs/chaos.md). Each cell runs one small job through the
// real `burst run` (or `burstd`) against one provider (the local cloud, or an emulated one served
// in-process by burst-fakecloud), makes it die at one fault point in one way, recovers as a user
// would (`burst reap`, or restarting burstd), and then judges by the provider's own state: no pod
// alive, the volume and its files intact, artefacts either complete with the right hash or absent,
// and a final job record. Each cell writes its result for burst_chaos_table.
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "chaos/chaos_matrix.h"
#include "crypto/sha256.h"
#include "e2e/burst_harness.h"
#include "e2e/cloud_e2e.h"
#include "fakecloud/fake_cloud.h"
#include "local/local_provider.h"
#include "util/process.h"

namespace burst::chaos {
namespace {

namespace fs = std::filesystem;
using burst::testing::BurstHome;
using burst::testing::files_under;
using burst::testing::pull_hash_record;
using burst::testing::pull_listing_record;
using burst::testing::read_file;
using burst::testing::sha256_hex;
using burst::testing::spawn_logged;
using burst::testing::ustar_end;
using burst::testing::ustar_entry;
using nlohmann::json;

constexpr const char* kKey = "chaos_KEY_must_never_be_seen_7";
// > 1 pull progress tick (4 MiB): "mid-pull" is mid-file.
constexpr size_t kBigSize = 5 << 20;
constexpr const char* kBigLine = "chaos-burst-artefact\n";

struct Cell {
  std::string provider, fault, point;
};
void PrintTo(const Cell& c, std::ostream* os) { *os << cell_id(c.provider, c.fault, c.point); }

std::string key_env(const std::string& provider) {
  if (provider == "runpod") return "RUNPOD_API_KEY";
  if (provider == "lambda") return "LAMBDA_API_KEY";
  return "VAST_API_KEY";
}

// The cell's job. Every cell has a volume, code to sync, a run step and an artefact; a setup step,
// the upload hand-off and the 5 MiB artefact only where the cell's point needs them, so each cell
// runs only the phases it tests (the matrix must fit CI).
// The worker faults' job: 3 workers (a tight deadline for 300 items, resources.max_workers: 3),
// each copying its shard of code/items.txt into an artefact, so what came home shows every item.
constexpr int kWideItems = 300;

std::string spec_text(const std::string& provider, const std::string& point, bool wide,
                      bool spot = false) {
  // The wide job's GPU, price cap and deadline are those for which each provider's offers plan
  // exactly 3 workers (2 would miss the deadline; Lambda's cold start is longer).
  const std::string gpus = !wide                  ? "RTX_4090, RTX_5090, L4, A10G, A10"
                           : provider == "lambda" ? "A10"
                                                  : "RTX_4090";
  std::string s = "version: 1\nname: chaos\nresources:\n  providers: [" + provider +
                  "]\n  gpus: [" + gpus + "]\n  max_usd_per_hour: " + (wide ? "4.00" : "1.50") +
                  "\n" +
                  // Spot: exactly 3 workers and no deadline, so the plan's 25% deadline margin
                  // (plan/spot_risk.h) cannot turn it to on-demand.
                  (spot   ? "  workers: 3\n  spot: true\n"
                   : wide ? "  max_workers: 3\n"
                          : "") +
                  "volume: {name: chaos-vol, size_gb: 10, mount: /workspace}\n"
                  "image: python:3.11-slim\ncode: {dir: code}\n";
  if (wide)
    s += "workload:\n  kind: custom\n  items: " + std::to_string(kWideItems) +
         "\n  items_file: items.txt\n  reference: {gpu: " + (provider == "local" ? "local" : gpus) +
         ", runtime: 1500s}\n" +
         (spot ? ""
               : "budget: {deadline: " + std::string(provider == "lambda" ? "12m" : "10m") + "}\n");
  if (point == "mid-setup") s += "setup: |\n  echo setup-start\n  sleep 0.2\n  echo setup-done\n";
  s += "run: |\n  mkdir -p \"$BURST_VOLUME/cache\" && echo weights-v1 > "
       "\"$BURST_VOLUME/cache/weights.txt\"\n"
       "  echo run-start\n  sleep 0.2\n  mkdir -p out\n  echo small > out/small.txt\n";
  if (point == "mid-pull")
    s += "  yes chaos-burst-artefact | head -c " + std::to_string(kBigSize) + " > out/big.bin\n";
  if (wide) s += "  cp \"$BURST_ITEMS_FILE\" \"out/items-$BURST_WORKER_INDEX.txt\"\n";
  s += "  echo run-done\nartefacts:\n  - {remote: out/small.txt, local: ./got}\n";
  if (wide) s += "  - {remote: out/items-*.txt, local: ./got}\n";
  if (point == "mid-pull") s += "  - {remote: out/big.bin, local: ./got}\n";
  if (point == "mid-upload")
    s += "upload:\n  run: |\n    echo upload-start\n    sleep 0.2\n"
         "    mkdir -p \"$BURST_VOLUME/published\" && cp out/small.txt "
         "\"$BURST_VOLUME/published/small.txt\"\n    echo upload-done\n";
  return s;
}

std::string big_sha() {
  Sha256 h;
  std::string line = kBigLine;
  size_t left = kBigSize;
  while (left > 0) {
    size_t n = std::min(left, line.size());
    h.update(line.data(), n);
    left -= n;
  }
  return h.hex_digest();
}

std::string sha_of_file(const std::string& path) {
  Sha256 h;
  std::string data = read_file(path);
  h.update(data.data(), data.size());
  return h.hex_digest();
}

// A process of ours (burst run or burstd) with its output in files.
class Proc {
 public:
  Proc(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
       const std::string& log)
      : log_(log) {
    pid_ = spawn_logged(argv, env, log, log);
  }
  ~Proc() {
    if (status_ == -1 && pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  bool exited() {
    if (status_ != -1) return true;
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) != pid_) return false;
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return true;
  }
  // Exit code (128+signal if killed), or -1 after timeout_s.
  int wait(int timeout_s) {
    for (int i = 0; i < timeout_s * 100; ++i) {
      if (exited()) return status_;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }
  std::string out() const { return read_file(log_); }

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  std::string log_;
};

int run_cli(const BurstHome& home, const std::vector<std::string>& args,
            const std::map<std::string, std::string>& env, std::string* out) {
  static int n = 0;
  std::vector<std::string> argv = {BURST_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  Proc p(argv, env, home.root() + "/cli" + std::to_string(++n) + ".out");
  int rc = p.wait(180);
  if (out) *out = p.out();
  return rc;
}

// Local-cloud pod ids under this home: pod dirs plus every id named in the logs and `text`.
std::set<std::string> local_pod_ids(const BurstHome& home, const std::string& text) {
  std::set<std::string> ids;
  std::regex re("local-[0-9a-f]{4,}");
  std::string all = text;
  for (const auto& f : files_under(home.state() + "/logs")) all += read_file(f);
  for (const auto& f : files_under(home.root()))
    if (fs::path(f).filename() == "sshd.pid") ids.insert(fs::path(f).parent_path().filename());
  for (std::sregex_iterator it(all.begin(), all.end(), re), end; it != end; ++it)
    ids.insert(it->str());
  return ids;
}

// What the cell is judged by: the emulator's live pods (pods not terminated or whose sshd still
// has processes), or on the local cloud the process table; plus any sshd left under the home.
int live_pods(const BurstHome& home, fakecloud::FakeCloud* cloud, const std::string& text,
              std::string* which) {
  int n = 0;
  std::set<int> counted;
  if (cloud) {
    for (const auto& p : cloud->state().live_pods()) {
      ++n;
      *which += " " + p.id;
      for (int pid : local_pod_processes(p.local_id)) counted.insert(pid);
    }
  }
  for (const auto& id : local_pod_ids(home, text)) {
    auto pids = local_pod_processes(id);
    bool fresh = false;
    for (int pid : pids) fresh = counted.insert(pid).second || fresh;
    if (!pids.empty() && fresh && !cloud) {
      ++n;
      *which += " " + id;
    }
  }
  // Anything else still serving from this home (an sshd whose pod dir is gone).
  for (const auto& p : list_processes())
    if (p.cmdline.find(home.root() + "/") != std::string::npos &&
        p.cmdline.find("sshd") != std::string::npos && !counted.count(p.pid)) {
      ++n;
      *which += " pid " + std::to_string(p.pid);
    }
  return n;
}

// SIGKILL every per-connection sshd of every pod under the home: the SSH connections drop, the
// pods' listeners stay.
int cut_ssh(const BurstHome& home, const std::string& only_pod = "") {
  int n = 0;
  for (const auto& f : files_under(home.root())) {
    if (fs::path(f).filename() != "sshd.pid") continue;
    if (!only_pod.empty() && fs::path(f).parent_path().filename() != only_pod) continue;
    const int listener = std::atoi(read_file(f).c_str());
    for (int pid : local_pod_processes(fs::path(f).parent_path().filename())) {
      std::string comm = read_file("/proc/" + std::to_string(pid) + "/comm");
      if (pid != listener && comm.rfind("sshd", 0) == 0) n += kill(pid, SIGKILL) == 0;
    }
  }
  return n;
}

// Worker 1's first GPU pod (named "...-gpu1"): its local-cloud pod id (the emulators' pods are
// local pods too) and, on an emulated cloud, its provider id. Empty when not found.
struct WorkerPod {
  std::string local_id, provider_id;
};
WorkerPod worker1_pod(const BurstHome& home, fakecloud::FakeCloud* cloud,
                      const std::string& provider) {
  if (cloud) {
    for (const auto& p : cloud->state().pods(provider))
      if (p.gpu && p.name.ends_with("-gpu1")) return {p.local_id, p.id};
    return {};
  }
  for (const auto& f : files_under(home.state() + "/local/pods")) {
    if (fs::path(f).filename() != "pod.json") continue;
    const json rec = json::parse(read_file(f), nullptr, false);
    if (rec.is_object() && rec.value("name", "").ends_with("-gpu1"))
      return {fs::path(f).parent_path().filename(), ""};
  }
  return {};
}

// worker-lost: the provider loses worker 1's pod under the job (a preempted or failed host):
// deleted by the emulator itself, or on the local cloud every process of the pod SIGKILLed.
// worker-cut: only that pod's per-connection sshd processes are killed. False when nothing was
// done (no such pod, no session).
bool hit_worker1(const BurstHome& home, fakecloud::FakeCloud* cloud, const std::string& provider,
                 const std::string& fault) {
  const WorkerPod pod = worker1_pod(home, cloud, provider);
  if (pod.local_id.empty() && pod.provider_id.empty()) return false;
  if (fault == "worker-cut") return cut_ssh(home, pod.local_id) > 0;
  if (fault == "spot-preempted") return cloud && cloud->state().preempt(provider, pod.provider_id);
  if (cloud) return cloud->state().delete_pod(provider, pod.provider_id);
  int n = 0;
  for (int pid : local_pod_processes(pod.local_id)) n += kill(pid, SIGKILL) == 0;
  return n > 0;
}

// Every volume dir of the provider: relative path -> sha256 of each file.
std::map<std::string, std::string> volume_files(const BurstHome& home, fakecloud::FakeCloud* cloud,
                                                const std::string& provider,
                                                std::vector<std::string>* dirs) {
  dirs->clear();
  if (cloud) {
    for (const auto& v : cloud->state().volumes(provider)) dirs->push_back(v.dir);
  } else if (fs::exists(home.state() + "/local/volumes/chaos-vol")) {
    dirs->push_back(home.state() + "/local/volumes/chaos-vol");
  }
  std::map<std::string, std::string> files;
  for (const auto& d : *dirs)
    for (const auto& f : files_under(d)) files[f] = sha_of_file(f);
  return files;
}

// The pod faults (docs/chaos.md): the shim's answer to the command burst sends at `point`.
// pod-silent marks "silent" and holds the connection open without a byte more; pod-hostile marks
// "hostile" and answers what a malicious pod would: an endless-looking probe or manifest, a step
// whose output is one 8 MiB line with terminal escapes, a pull listing that climbs out of the
// artefact dir and asks for mode 07777.
std::string pod_fault_cases(const BurstHome& home, const std::string& fault,
                            const std::string& point, const std::string& shim_dir) {
  const bool silent = fault == "pod-silent";
  const std::string mark = silent ? "mark silent; " : "mark hostile; ";
  const std::string sentinels =
      "printf '\\036burst-follow\\036\\n'; printf '\\036burst-follow\\036\\n' >&2; ";
  auto step = [&](const std::string& name) {
    return "if is_step " + name + "; then " + mark + sentinels +
           (silent ? "hang; fi"
                   : "printf '\\033]0;pwned\\007\\033]52;c;cHduZWQ=\\007'; head -c 8388608 "
                     "/dev/zero | tr '\\0' x; exit 0; fi");
  };
  if (point == "wait-ssh")
    return "if is_probe; then " + mark +
           (silent ? "hang; fi" : "head -c 8388608 /dev/zero | tr '\\0' /; exit 0; fi");
  if (point == "mid-sync")
    return "if is_sync; then " + mark + "echo T1; " +
           (silent ? "hang; fi" : "yes 'x/../../../etc/passwd' | head -c 8388608; exit 0; fi");
  if (point == "mid-setup") return step("setup");
  if (point == "mid-run") return step("run");
  if (point == "mid-upload") return step("upload");
  // mid-pull
  if (silent)
    return "if is_pull; then mark silent; printf '0\\t6\\t4102444800\\t644\\tout/small.txt"
           "\\0END\\0'; hang; fi";
  const std::string small = "out/small.txt", abs = "out/" + home.root() + "/escaped.txt",
                    up = "out/../../escaped2.txt", body = "small\n", evil = "pwned\n";
  std::ofstream(shim_dir + "/pull.head", std::ios::binary)
      << pull_listing_record(0, body.size(), "7777", small)
      << pull_listing_record(0, evil.size(), "644", abs)
      << pull_listing_record(0, evil.size(), "644", up) << std::string("END") + '\0';
  std::ofstream(shim_dir + "/pull.body", std::ios::binary)
      << ustar_entry(small, body, "0007777") << ustar_entry(abs, evil) << ustar_entry(up, evil)
      << ustar_end() << pull_hash_record(sha256_hex(body), small)
      << pull_hash_record(sha256_hex(evil), abs) << pull_hash_record(sha256_hex(evil), up);
  return "if is_pull; then mark hostile; cat \"$H/pull.head\"; cat >/dev/null; "
         "cat \"$H/pull.body\"; exit 0; fi";
}

// The files a pod may never add: anything under the work dir outside got/, and the pod-hostile
// pull's targets above it.
std::set<std::string> outside_files(const BurstHome& home) {
  std::set<std::string> out;
  for (const auto& f : files_under(home.work()))
    if (f.rfind(home.work() + "/got/", 0) != 0) out.insert(f);
  for (const char* name : {"/escaped.txt", "/escaped2.txt"})
    if (fs::exists(home.root() + name)) out.insert(home.root() + name);
  return out;
}

// Sets BURST_TEST_POD_SHIM in this process (the emulator's pods are started here) for its life.
struct ShimEnv {
  explicit ShimEnv(const std::string& path) : on(!path.empty()) {
    if (on) setenv("BURST_TEST_POD_SHIM", path.c_str(), 1);
  }
  ~ShimEnv() {
    if (on) unsetenv("BURST_TEST_POD_SHIM");
  }
  bool on;
};

class Burstd {
 public:
  Burstd(const BurstHome& home, std::map<std::string, std::string> env) : home_(home) {
    fs::create_directories(home.root() + "/config");
    std::ofstream(home.root() + "/config/burstd.yaml") << "max_concurrent_jobs: 2\n";
    static int n = 0;
    env_ = env;
    proc_ = std::make_unique<Proc>(std::vector<std::string>{BURSTD_BINARY}, env,
                                   home.root() + "/burstd" + std::to_string(++n) + ".log");
  }
  // The socket answers (recovery has run by then: it precedes the socket).
  bool ready() {
    for (int i = 0; i < 1000; ++i) {
      if (proc_->exited()) return false;
      if (fs::exists(home_.state() + "/burstd.sock") &&
          run_cli(home_, {"status"}, env_, nullptr) == 0)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  Proc& proc() { return *proc_; }

 private:
  const BurstHome& home_;
  std::map<std::string, std::string> env_;
  std::unique_ptr<Proc> proc_;
};

// Writes the cell's result when the test ends, whatever happened.
struct Recorder {
  CellResult r;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  ~Recorder() {
    if (::testing::Test::IsSkipped()) return;  // not run: the table shows "-"
    r.passed = !::testing::Test::HasFailure();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const char* dir = BURST_CHAOS_RESULTS;
    std::error_code ec;
    fs::create_directories(dir, ec);
    write_result(dir, r);
  }
};

class Chaos : public ::testing::TestWithParam<Cell> {};

TEST_P(Chaos, Recovers) {
  const Cell& c = GetParam();
  Recorder rec;
  rec.r.id = cell_id(c.provider, c.fault, c.point);
  if (!in_ci_subset(c.provider, c.fault, c.point) && !getenv("BURST_CHAOS_FULL"))
    GTEST_SKIP() << "label chaos-full: runs with BURST_CHAOS_FULL=1 (docs/chaos.md)";
  if (c.provider == "vast" && getuid() != 0)
    GTEST_SKIP() << "Vast instances are reached as root, and the emulator's loopback sshd only "
                    "accepts its own user";

  BurstHome home;
  const bool wide = is_worker_fault(c.fault);
  const std::string spec =
      home.write("chaos.yaml", spec_text(c.provider, c.point, wide, c.fault == "spot-preempted"));
  for (const char* f : {"a.txt", "b.txt", "c.txt", "d.txt"})
    home.write(std::string("code/") + f, std::string(f) + " " + std::string(2000, 'x') + "\n");
  if (wide) {
    std::string items;
    for (int i = 0; i < kWideItems; ++i) items += "item-" + std::to_string(i) + "\n";
    home.write("code/items.txt", items);
  }
  const std::string faults_dir = home.root() + "/faults";
  fs::create_directories(faults_dir);
  const bool pod_fault = is_pod_fault(c.fault);
  const std::string shim_dir = home.root() + "/shim", shim = shim_dir + "/pod-shim.sh";
  if (pod_fault) {
    fs::create_directories(shim_dir);
    burst::testing::write_pod_shim(shim, pod_fault_cases(home, c.fault, c.point, shim_dir));
  }
  ShimEnv shim_env(pod_fault ? shim : "");
  const auto outside_before = outside_files(home);

  static SystemClock clock;
  std::unique_ptr<fakecloud::FakeCloud> cloud;
  auto env = home.env();
  if (c.provider != "local") {
    cloud = std::make_unique<fakecloud::FakeCloud>(
        fakecloud::EmulatorOptions{home.root() + "/fakecloud", Duration(100), {{c.provider, kKey}}},
        clock, std::vector<std::string>{c.provider});
    ASSERT_TRUE(cloud->start().ok());
    std::vector<std::string> extra;
    if (c.provider == "lambda")
      extra.push_back("ssh_user: " + std::string(getpwuid(getuid())->pw_name));
    // Timeouts, time-scaled: a 3 s request timeout against a 4 s hang (docs/chaos.md). Not
    // shorter: with stress-ng beside the suite (scripts/test-under-load) an unfaulted create took
    // over 1.5 s, so the cell timed out before its fault point.
    if (c.fault == "api-timeout") extra.push_back("timeout_seconds: 3");
    burst::testing::write_provider_config(home, c.provider, cloud->provider_url(c.provider), extra);
    env[key_env(c.provider)] = kKey;
  } else {
    // A volume with data from an earlier run: it must survive every cell.
    fs::create_directories(home.state() + "/local/volumes/chaos-vol");
    std::ofstream(home.state() + "/local/volumes/chaos-vol/earlier-run.txt") << "keep me\n";
  }
  auto faulted = env;
  const bool kill_fault = c.fault == "kill-run" || c.fault == "kill-burstd";
  // A worker fault stops worker 1's first attempt only (job/worker_fleet.cpp).
  const std::string point = c.point + (wide ? "@w1" : "");
  if (pod_fault)
    faulted["BURST_TEST_POD_SHIM"] = shim;  // the pod misbehaves on its own: no fault point
  else
    faulted["BURST_FAULT"] = point + (kill_fault ? ":kill" : ":pause:" + faults_dir);

  std::string text;  // everything the faulted process printed
  std::string which;
  if (c.fault == "kill-burstd") {
    auto d = std::make_unique<Burstd>(home, faulted);
    ASSERT_TRUE(d->ready()) << d->proc().out();
    std::string out;
    ASSERT_EQ(run_cli(home, {"submit", spec}, env, &out), 0) << out;
    ASSERT_EQ(d->proc().wait(120), 128 + SIGKILL) << "burstd never reached " << c.point << "\n"
                                                  << d->proc().out();
    text = d->proc().out();
    for (const auto& f : files_under(home.state() + "/logs")) text += read_file(f);
    rec.r.left_for_reap = live_pods(home, cloud.get(), text, &which);
  } else {
    Proc p({BURST_BINARY, "run", spec, "--provider", c.provider, "--yes"}, faulted,
           home.root() + "/run.out");
    if (kill_fault) {
      ASSERT_EQ(p.wait(120), 128 + SIGKILL) << "never reached " << c.point << "\n" << p.out();
    } else if (pod_fault) {
      const std::string mark = shim_dir + (c.fault == "pod-silent" ? "/silent" : "/hostile");
      for (int i = 0; i < 6000 && !fs::exists(mark) && !p.exited(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ASSERT_TRUE(fs::exists(mark)) << "the pod never misbehaved at " << c.point << "\n" << p.out();
      if (c.fault == "pod-silent") {
        // The user gives up and presses Ctrl-C: burst must end within 10 s (+30 s of grace,
        // docs/chaos.md) though the pod never answers again.
        std::this_thread::sleep_for(std::chrono::seconds(1));
        kill(p.pid(), SIGINT);
        const int rc = p.wait(40);
        EXPECT_NE(rc, -1) << "burst run still running 40 s after Ctrl-C against a silent pod\n"
                          << p.out();
        if (rc == -1) {
          kill(p.pid(), SIGKILL);
          p.wait(10);
        }
      } else {
        EXPECT_NE(p.wait(150), -1) << "burst run did not end after the hostile answer\n" << p.out();
      }
    } else {
      const std::string reached = faults_dir + "/" + point + ".reached";
      for (int i = 0; i < 6000 && !fs::exists(reached) && !p.exited(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ASSERT_TRUE(fs::exists(reached)) << "never reached " << point << "\n" << p.out();
      if (wide) {
        EXPECT_TRUE(hit_worker1(home, cloud.get(), c.provider, c.fault))
            << "no pod (or no SSH session) of worker 1 to hit at " << c.point;
      } else if (c.fault == "ssh-cut") {
        EXPECT_GT(cut_ssh(home), 0) << "no SSH session to cut at " << c.point;
      } else if (c.fault == "api-500") {
        fakecloud::Faults f;
        f.errors_5xx = 2;  // "500s for a while", time-scaled (docs/chaos.md)
        f.status_5xx = 500;
        cloud->state().set_faults(c.provider, f);
      } else if (c.fault == "api-timeout") {
        fakecloud::Faults f;
        f.timeouts = 2;
        f.hang_ms = 4000;
        cloud->state().set_faults(c.provider, f);
      }
      std::ofstream(faults_dir + "/" + point + ".go") << "go\n";
      const int rc = p.wait(150);
      EXPECT_NE(rc, -1) << "burst run did not end after the fault\n" << p.out();
      if (c.fault == "api-500" || c.fault == "api-timeout") {
        const auto left = cloud->state().faults(c.provider);
        EXPECT_EQ(left.errors_5xx + left.timeouts, 0) << "burst never met the outage";
      }
      if (cloud) cloud->state().set_faults(c.provider, {});  // the outage is over
    }
    text = p.out();
    rec.r.left_for_reap = live_pods(home, cloud.get(), text, &which);
  }

  if (c.point == "mid-upload") {  // the hand-off the n/a reasons assume
    const std::string h = handoff_of(c.provider);
    const std::string phase = h == "cpu-pod"   ? "==> upload\n"
                              : h == "gpu-pod" ? "==> upload-on-gpu-pod\n"
                                               : "==> upload-local\n";
    EXPECT_NE(text.find(phase), std::string::npos) << "hand-off is not " << h << "\n" << text;
  }

  // What recovery must leave alone: the volume's files, plus one planted now.
  std::vector<std::string> vol_dirs;
  volume_files(home, cloud.get(), c.provider, &vol_dirs);
  EXPECT_FALSE(vol_dirs.empty()) << "the job made its volume before every fault point";
  for (const auto& d : vol_dirs) std::ofstream(d + "/planted-by-chaos.txt") << "still here\n";
  const auto before = volume_files(home, cloud.get(), c.provider, &vol_dirs);

  // Recover as a user would.
  std::string rec_out;
  if (c.fault == "kill-burstd") {
    Burstd d(home, env);  // recovery runs before its socket opens
    EXPECT_TRUE(d.ready()) << d.proc().out();
    kill(d.proc().pid(), SIGTERM);
    EXPECT_EQ(d.proc().wait(60), 0) << d.proc().out();
    rec_out = d.proc().out();
  } else {
    EXPECT_EQ(run_cli(home, {"reap"}, env, &rec_out), 0) << rec_out;
  }

  // Judge by the provider's own state.
  which.clear();
  rec.r.pods_leaked = live_pods(home, cloud.get(), text + rec_out, &which);
  EXPECT_EQ(rec.r.pods_leaked, 0) << "live pods:" << which << "\n" << text << rec_out;

  std::vector<std::string> after_dirs;
  const auto after = volume_files(home, cloud.get(), c.provider, &after_dirs);
  EXPECT_EQ(after_dirs, vol_dirs) << "the provider's volumes changed during recovery";
  for (const auto& [path, sha] : before) {
    auto it = after.find(path);
    EXPECT_TRUE(it != after.end() && it->second == sha) << "volume file lost or changed: " << path;
  }

  // got/ (a wide job's: got/w<i>/, one per worker, job/worker_fleet.h).
  const std::string got = home.work() + "/got" + (wide ? "/w0" : "");
  const std::string big = got + "/big.bin", small = got + "/small.txt";
  for (const auto& f : files_under(home.work() + "/got")) {
    const std::string name = fs::path(f).filename();
    if (name == "big.bin" && sha_of_file(f) != big_sha()) ++rec.r.artefacts_corrupted;
    if (name == "small.txt" && read_file(f) != "small\n") ++rec.r.artefacts_corrupted;
  }
  for (const auto& f : files_under(home.work() + "/got")) {  // setuid or world-writable: unsafe
    struct stat st {};
    if (::stat(f.c_str(), &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID | S_ISVTX | S_IWOTH)))
      ++rec.r.artefacts_corrupted;
  }
  EXPECT_EQ(rec.r.artefacts_corrupted, 0)
      << "an artefact under its final name is partial or has an unsafe mode";
  for (const auto& f : outside_files(home))
    if (!outside_before.count(f)) {
      ++rec.r.files_outside;
      ADD_FAILURE() << "written outside the artefact dirs: " << f;
    }

  std::string jobs_out;
  ASSERT_EQ(run_cli(home, {"jobs", "--json"}, env, &jobs_out), 0) << jobs_out;
  auto jobs = json::parse(jobs_out, nullptr, false);
  ASSERT_TRUE(jobs.is_array() && jobs.size() == 1) << jobs_out;
  const json& job = jobs[0];
  rec.r.job_state = job.value("state", "");
  const std::string error = job.value("error", "");
  EXPECT_TRUE(rec.r.job_state == "succeeded" || rec.r.job_state == "failed" ||
              rec.r.job_state == "interrupted")
      << "the job's record must say how it ended: " << job.dump();
  if (rec.r.job_state != "succeeded") {
    EXPECT_FALSE(error.empty()) << job.dump();
  }
  rec.r.note = rec.r.job_state + (error.empty() ? "" : ": " + error);
  if (rec.r.job_state == "succeeded") {  // then the artefacts are home, not merely "absent"
    EXPECT_TRUE(fs::exists(small)) << job.dump();
    EXPECT_TRUE(c.point != "mid-pull" || fs::exists(big)) << job.dump();
  }
  if (wide) {
    // One worker lost is what the retry is for: the job succeeds on its own, every item home
    // exactly once, and it left no pod for the recovery.
    EXPECT_EQ(rec.r.job_state, "succeeded") << job.dump();
    if (c.fault == "spot-preempted") {  // a preemption, not a crash (job/worker_fleet.h)
      EXPECT_NE(text.find("[w1] preempted (pod "), std::string::npos) << text;
      EXPECT_NE(text.find("its unfinished items run on a new spot pod"), std::string::npos) << text;
    } else {
      EXPECT_NE(text.find("[w1] failed ("), std::string::npos) << text;
      EXPECT_NE(text.find("its shard runs again on a new pod"), std::string::npos) << text;
    }
    EXPECT_EQ(rec.r.left_for_reap, 0) << "burst run itself deletes every pod";
    std::map<std::string, int> seen;
    for (const auto& f : files_under(home.work() + "/got"))
      if (fs::path(f).filename().string().starts_with("items-")) {
        std::istringstream lines(read_file(f));
        for (std::string line; std::getline(lines, line);) ++seen[line];
      }
    EXPECT_EQ(seen.size(), static_cast<size_t>(kWideItems));
    for (const auto& [item, n] : seen) EXPECT_EQ(n, 1) << item;
    rec.r.note += c.fault == "spot-preempted" ? " (w1 preempted, replaced)" : " (w1 retried)";
  }
  // A killed `burst run` is failed by reap. A restarted burstd takes its job over
  // (docs/daemon.md, "Takeover"): it reattaches to a run still going on its pod, or to a pull,
  // and lets it finish; it runs again from its plan a job whose step never started; after the
  // step and the pull it fails it.
  if (c.fault == "kill-run") {
    EXPECT_EQ(rec.r.job_state, "failed") << "killed mid-job: " << job.dump();
  } else if (c.fault == "kill-burstd" && rec.r.job_state == "succeeded") {
    const bool before_run = c.point == "after-create" || c.point == "wait-ssh" ||
                            c.point == "mid-sync" || c.point == "mid-setup";
    EXPECT_TRUE(before_run || c.point == "mid-run" || c.point == "mid-pull")
        << "only a run or a pull can be reattached, and only a job before its step run again: "
        << job.dump();
    rec.r.note += before_run ? " (run again)" : " (reattached)";
  }
  // A kill before the delete leaves the pod for the recovery: the cell really tested something.
  // (A local hand-off's upload comes after the GPU delete: nothing is left then.)
  const bool after_gpu_delete =
      c.point == "after-delete" || (c.point == "mid-upload" && handoff_of(c.provider) == "local");
  if (kill_fault && !after_gpu_delete) {
    EXPECT_GE(rec.r.left_for_reap, 1) << "the fault left no pod behind to recover";
  }

  // The key stays secret even when things break.
  for (const auto& f : files_under(home.state()))
    EXPECT_EQ(read_file(f).find(kKey), std::string::npos) << f;
}

// `ci`: the cells of label chaos; the others are label chaos-full (chaos_matrix.h).
std::vector<Cell> cells_of(const std::string& provider, bool ci) {
  std::vector<Cell> out;
  for (const auto& f : faults())
    for (const auto& p : points())
      if (na_reason(provider, f, p).empty() && in_ci_subset(provider, f, p) == ci)
        out.push_back({provider, f, p});
  return out;
}

std::string cell_name(const ::testing::TestParamInfo<Cell>& info) {
  std::string s = info.param.fault + "__" + info.param.point;
  for (char& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

#define BURST_CHAOS_CELLS(name, provider, ci) \
  INSTANTIATE_TEST_SUITE_P(name, Chaos, ::testing::ValuesIn(cells_of(provider, ci)), cell_name)
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Chaos);
BURST_CHAOS_CELLS(ci_local, "local", true);
BURST_CHAOS_CELLS(ci_runpod, "runpod", true);
BURST_CHAOS_CELLS(ci_lambda, "lambda", true);
BURST_CHAOS_CELLS(ci_vast, "vast", true);
BURST_CHAOS_CELLS(full_local, "local", false);
BURST_CHAOS_CELLS(full_runpod, "runpod", false);
BURST_CHAOS_CELLS(full_lambda, "lambda", false);
BURST_CHAOS_CELLS(full_vast, "vast", false);

}  // namespace
}  // namespace burst::chaos

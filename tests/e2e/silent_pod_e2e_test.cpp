// A pod that goes silent (its SSH session's sshd stopped with SIGSTOP: the TCP link stays up,
// nothing comes back) while `burst run` waits on it. The job's deadlines do not depend on the
// pod (job/job_watchdog.h): budget.max_runtime, Ctrl-C and `burst cancel` under burstd still
// end the job, the pod is deleted
// through the provider (the local cloud's own processes are the judge) and the error says which
// deadline fired.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

using Steady = std::chrono::steady_clock;

std::string silent_spec_text(const std::string& budget) {
  return "version: 1\nname: e2e-silent\nvolume: {name: e2e-silent-vol}\n" + budget +
         (budget.find("resources") == std::string::npos ? "resources: {providers: [local]}\n"
                                                        : "") +
         "run: |\n  echo started\n  mkdir -p out && echo partial > out/partial.txt\n"
         "  sleep 120\nartefacts:\n  - {remote: out/partial.txt, local: ./got}\n";
}

// Waits for the run step, then silences the pod: every sshd serving burst's session stops.
// Returns the pod's id ("" on failure, recorded).
std::string silence_when_running(const BurstHome& home, BurstProcess& p,
                                 std::vector<int>* stopped) {
  if (!p.wait_for_stdout("| started")) {
    ADD_FAILURE() << "the job never started:\n" << p.out() << p.err();
    return "";
  }
  auto ids = pod_ids_in(p.out());
  EXPECT_EQ(ids.size(), 1u) << p.out();
  if (ids.empty()) return "";
  *stopped = pod_session_sshds(home, ids[0]);
  EXPECT_FALSE(stopped->empty()) << "no sshd session process found for " << ids[0];
  for (int pid : *stopped) kill(pid, SIGSTOP);
  return ids[0];
}

nlohmann::json silent_only_job(const BurstHome& home) {
  std::string jobs;
  EXPECT_EQ(run_burst(home, {"jobs", "--json"}, &jobs, nullptr), 0);
  auto j = nlohmann::json::parse(jobs);
  EXPECT_EQ(j.size(), 1u);
  return j.empty() ? nlohmann::json::object() : j[0];
}

double seconds_since(Steady::time_point t) {
  return std::chrono::duration<double>(Steady::now() - t).count();
}

TEST(E2ESilentPod, MaxRuntimeEndsTheJobAndDeletesASilentPod) {
  BurstHome home;
  // 8 s: the pod must print "started" before the limit, which on a loaded machine (ctest -j12 on
  // two cores) took more than 5 s.
  const std::string spec = home.write("job.yaml", silent_spec_text("budget: {max_runtime: 8s}\n"));
  const auto start = Steady::now();
  BurstProcess p(home, {"run", spec});
  std::vector<int> stopped;
  const std::string pod = silence_when_running(home, p, &stopped);
  ASSERT_FALSE(pod.empty());
  EXPECT_EQ(p.wait(60), 1) << p.out() << p.err();
  for (int pid : stopped) kill(pid, SIGCONT);  // in case the pod outlived the job
  EXPECT_LT(seconds_since(start), 8 + 30) << p.out() << p.err();
  EXPECT_TRUE(pod_processes(pod).empty()) << "the silent pod must be deleted";
  EXPECT_NE(p.out().find("gpu pod " + pod + " deleted (confirmed)"), std::string::npos) << p.out();
  auto job = silent_only_job(home);
  EXPECT_EQ(job["state"], "failed");
  EXPECT_NE(job["error"].get<std::string>().find("budget.max_runtime (8 s)"), std::string::npos)
      << job.dump();
  auto report = nlohmann::json::parse(
      read_file(home.state() + "/reports/" + job["id"].get<std::string>() + ".json"));
  EXPECT_NE(report["job"]["error"].get<std::string>().find("budget.max_runtime"), std::string::npos)
      << report["job"].dump(2);
}

TEST(E2ESilentPod, CtrlCEndsTheJobWithinTenSecondsAndDeletesASilentPod) {
  BurstHome home;
  const std::string spec = home.write("job.yaml", silent_spec_text(""));
  BurstProcess p(home, {"run", spec});
  std::vector<int> stopped;
  const std::string pod = silence_when_running(home, p, &stopped);
  ASSERT_FALSE(pod.empty());
  const auto sigint = Steady::now();
  kill(p.pid(), SIGINT);
  const int rc = p.wait(60);
  const double took = seconds_since(sigint);
  for (int pid : stopped) kill(pid, SIGCONT);
  EXPECT_EQ(rc, 130) << p.out() << p.err();
  EXPECT_LT(took, 10.0) << p.out() << p.err();
  EXPECT_TRUE(pod_processes(pod).empty()) << "the silent pod must be deleted";
  auto job = silent_only_job(home);
  EXPECT_EQ(job["state"], "interrupted");
  EXPECT_EQ(job["error"], "run: stopped: Ctrl-C or SIGTERM") << job.dump();
}

// burstd running a job whose pod has gone silent mid-run (its session's sshd stopped).
class SilentUnderBurstd {
 public:
  SilentUnderBurstd() {
    std::filesystem::create_directories(home.root() + "/config");
    std::ofstream(home.root() + "/config/burstd.yaml") << "max_concurrent_jobs: 2\n";
    daemon_log = home.root() + "/burstd.err";
    daemon = spawn_logged({BURSTD_BINARY}, home.env(), daemon_log, daemon_log);
  }
  ~SilentUnderBurstd() {
    for (int pid : stopped) kill(pid, SIGCONT);
    if (daemon > 0) {
      kill(daemon, SIGKILL);
      waitpid(daemon, nullptr, 0);
    }
  }
  // Starts the job and silences its pod; false (with the failure recorded) when it cannot.
  bool start() {
    bool ready = false;
    for (int i = 0; i < 200 && !ready; ++i) {
      ready = std::filesystem::exists(home.state() + "/burstd.sock") &&
              run_burst(home, {"status"}, nullptr, nullptr) == 0;
      if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(ready) << read_file(daemon_log);
    const std::string spec =
        home.write("job.yaml", silent_spec_text("resources: {providers: [local]}\n"));
    std::string out;
    EXPECT_EQ(run_burst(home, {"submit", spec}, &out, nullptr), 0) << out;
    job_id = out.substr(4, out.find(" queued") - 4);
    std::string log;
    for (int i = 0; i < 600 && log.find("| started") == std::string::npos; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      log = read_file(home.state() + "/logs/" + job_id + ".log");
    }
    auto pods = pod_ids_in(log);
    EXPECT_EQ(pods.size(), 1u) << log << read_file(daemon_log);
    if (pods.size() != 1) return false;
    pod = pods[0];
    stopped = pod_session_sshds(home, pod);
    EXPECT_FALSE(stopped.empty());
    for (int pid : stopped) kill(pid, SIGSTOP);
    return !stopped.empty();
  }
  // burstd's exit status within `timeout_s`, or -1.
  int wait_daemon(int timeout_s) {
    for (int i = 0; i < timeout_s * 20; ++i) {
      int st = 0;
      if (waitpid(daemon, &st, WNOHANG) == daemon) {
        daemon = -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;
  }
  std::string job_log() const { return read_file(home.state() + "/logs/" + job_id + ".log"); }

  BurstHome home;
  std::string daemon_log, job_id, pod;
  pid_t daemon = -1;
  std::vector<int> stopped;
};

TEST(E2ESilentPod, BurstCancelUnderBurstdEndsTheJobWithinTenSecondsAndDeletesASilentPod) {
  SilentUnderBurstd d;
  ASSERT_TRUE(d.start());
  const auto cancel = Steady::now();
  std::string out, err;
  ASSERT_EQ(run_burst(d.home, {"cancel", d.job_id}, &out, &err), 0) << out << err;
  nlohmann::json job;
  for (int i = 0; i < 300; ++i) {
    std::string status;
    run_burst(d.home, {"status", d.job_id, "--json"}, &status, nullptr);
    job = nlohmann::json::parse(status, nullptr, false);
    if (job.is_object() && job.value("state", "") != "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const double took = seconds_since(cancel);
  EXPECT_LT(took, 10.0) << job.dump() << d.job_log();
  EXPECT_EQ(job.value("state", ""), "interrupted") << job.dump();
  EXPECT_EQ(job.value("error", ""), "run: stopped: burst cancel or burstd drain") << job.dump();
  EXPECT_TRUE(pod_processes(d.pod).empty()) << "the silent pod must be deleted";
}

TEST(E2ESilentPod, BurstdDrainedTwiceStopsWithinTenSecondsAndDeletesASilentPod) {
  SilentUnderBurstd d;
  ASSERT_TRUE(d.start());
  // The first SIGTERM drains (running jobs may finish); the second cancels them at once.
  kill(d.daemon, SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto second = Steady::now();
  kill(d.daemon, SIGTERM);
  EXPECT_EQ(d.wait_daemon(30), 0) << read_file(d.daemon_log);
  EXPECT_LT(seconds_since(second), 10.0) << d.job_log();
  EXPECT_TRUE(pod_processes(d.pod).empty()) << "the silent pod must be deleted";
  auto job = silent_only_job(d.home);
  EXPECT_EQ(job["state"], "interrupted") << job.dump();
  EXPECT_EQ(job["error"], "run: stopped: burst cancel or burstd drain") << job.dump();
}

// Silent mid-pull, as a hostile pod would be: the run step leaves a watcher behind that, once the
// step's follower has gone, stops every process the pod's sshd starts for burst (the pull's
// commands and its SFTP server). sshd itself still answers keepalives and channel opens; no
// byte of the pull ever comes. budget.max_runtime still ends the job, with the pod deleted. The
// pod's own ~/.bashrc (its HOME is its own) sleeps 1 s, so each later command's shell (bash
// sources it for sshd) is caught by the watcher before the pull has run: without it a one-file
// pull could finish between two of the watcher's rounds. 6 s,
// not 3: the run step itself must end inside it on a loaded machine (at 3 s, six tests at a time
// once ended the job in its run step instead).
constexpr const char* kSilentPull = R"(version: 1
name: e2e-silent-pull
volume: {name: e2e-silent-pull-vol}
resources: {providers: [local]}
budget: {max_runtime: 6s}
run: |
  echo started
  mkdir -p out && echo partial > out/partial.txt
  printf 'sleep 1\n' > "$HOME/.bashrc"
  fol=$(cut -d' ' -f4 /proc/$PPID/stat)
  sshd=$(cut -d' ' -f4 /proc/$fol/stat)
  setsid sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 0.01; done; while :; do for s in /proc/[0-9]*/stat; do read -r p c st pp rest < "$s" && [ "$pp" = "$0" ] && [ "$st" != T ] && kill -STOP "$p" && echo "$p" >> "$BURST_VOLUME/stopped.pids"; done; sleep 0.05; done' "$sshd" "$fol" </dev/null >/dev/null 2>&1 &
artefacts:
  - {remote: out/partial.txt, local: ./got}
)";

TEST(E2ESilentPod, MaxRuntimeEndsAJobWhosePodGoesSilentMidPull) {
  BurstHome home;
  const std::string spec = home.write("job.yaml", kSilentPull);
  const auto start = Steady::now();
  BurstProcess p(home, {"run", spec});
  EXPECT_EQ(p.wait(60), 1) << p.out() << p.err();
  EXPECT_LT(seconds_since(start), 6 + 30) << p.out() << p.err();
  // The stopped processes outlive the pod's sshd (their pending SIGTERM waits for a SIGCONT).
  for (const auto& f : files_under(home.root()))
    if (f.size() >= 12 && f.compare(f.size() - 12, 12, "stopped.pids") == 0) {
      std::istringstream pids(read_file(f));
      for (int pid; pids >> pid;) kill(pid, SIGKILL);
    }
  auto pods = pod_ids_in(p.out());
  ASSERT_EQ(pods.size(), 1u) << p.out();
  EXPECT_TRUE(pod_processes(pods[0]).empty()) << "the silent pod must be deleted";
  EXPECT_NE(p.out().find("==> pull"), std::string::npos) << p.out();
  auto job = silent_only_job(home);
  EXPECT_EQ(job["state"], "failed");
  EXPECT_EQ(job["error"], "pull: stopped: budget.max_runtime (6 s) reached") << job.dump();
  EXPECT_FALSE(std::filesystem::exists(home.work() + "/got/partial.txt"));
}

}  // namespace
}  // namespace burst::testing

// A team on separate hosts (docs/daemon.md, "A team on PostgreSQL"): three burstd, each with its
// own HOME, state dir, config dir and host name (its own UTS namespace where `unshare --uts`
// works, else $BURST_HOST_ID, as three machines would have),
// sharing one real PostgreSQL (tests/contract/postgres_server.h), one cloud (the local cloud's
// root, which every host reaches as it would reach a provider's API) and the team's one SSH key.
// 12 jobs, 4 submitted through each daemon's socket, at concurrency 2 each under one shared
// daily cap. One daemon is killed with SIGKILL while a job of its runs its step, another once it
// holds no job, and a member on a fourth host runs `burst reap` while the killed daemon's job
// waits to be taken over. Afterwards: all 12 jobs succeeded, each step's mark written once, the
// killed daemon's job was reattached
// across hosts and succeeded, the member's reap deleted nothing, the store's queue and
// reservations are empty, no pod lives (store rows, the process table, `burst reap`), the
// ledger's total equals the sum of the per-pod bills, and no cap was exceeded.
// Its own ctest entry (daemon.team_postgres): it starts a server, and skips loudly without one.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "burst/store.h"
#include "contract/postgres_server.h"
#include "e2e/burst_harness.h"
#include "job/budget_guard.h"
#include "registry.h"
#include "util/process.h"

namespace burst::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr int kTeamJobs = 12;
constexpr double kTeamDayCap = 2.0;  // four $0.50 reservations: holds two of the six slots
constexpr double kTeamJobMax = 0.5;

// One team host: its own HOME, state and config dirs and host id; the store, the cloud and the
// team key are the team's.
struct TeamHost {
  std::string name, dir, socket, log;
  pid_t pid = -1;
  std::map<std::string, std::string> env;
  std::string state() const { return dir + "/state"; }
};

TeamHost make_team_host(const BurstHome& home, const std::string& name,
                        const std::string& config_yaml) {
  TeamHost h;
  h.name = name;
  h.dir = home.root() + "/host-" + name;
  for (const char* sub : {"/home", "/state", "/config"}) fs::create_directories(h.dir + sub);
  std::ofstream(h.dir + "/config/config.yaml") << config_yaml;
  h.socket = h.dir + "/burstd.sock";
  h.log = h.dir + "/burstd.log";
  h.env = {{"HOME", h.dir + "/home"},
           {"BURST_STATE_DIR", h.state()},
           {"BURST_CONFIG_DIR", h.dir + "/config"},
           {"BURST_HOST_ID", "host-" + name}};
  return h;
}

// Whether this machine lets the test give each daemon its own UTS namespace (its own host name,
// as separate machines have): `unshare --uts` needs root or user namespaces.
bool uts_namespaces() {
  static const bool ok = std::system("unshare --uts -- true >/dev/null 2>&1") == 0;
  return ok;
}

void start_team_daemon(const BurstHome& home, TeamHost& h) {
  const std::string yaml = h.dir + "/config/burstd.yaml";
  std::ofstream(yaml) << "socket: " << h.socket << "\nlog_file: " << h.log
                      << "\nmax_concurrent_jobs: 2\nlease: 2s\nbudget:\n  usd_per_day: "
                      << kTeamDayCap << "\n";
  auto env = home.env();
  for (const auto& [k, v] : h.env) env[k] = v;
  if (uts_namespaces()) {
    // Its own host name from gethostname(), as on a machine of its own: no BURST_HOST_ID.
    // unshare and sh exec in turn, so h.pid is burstd's.
    env.erase("BURST_HOST_ID");
    h.pid = spawn_logged(
        {"/usr/bin/unshare", "--uts", "--", "/bin/sh", "-c", "hostname \"$0\" && exec \"$@\"",
         "host-" + h.name, BURSTD_BINARY, "--config", yaml},
        env, h.log + ".err", h.log + ".err");
    return;
  }
  std::cerr << "[ NOTE ] team chaos: no UTS namespaces here (`unshare --uts` failed): the "
               "daemons tell their hosts apart by BURST_HOST_ID only\n";
  h.pid = spawn_logged({BURSTD_BINARY, "--config", yaml}, env, h.log + ".err", h.log + ".err");
}

int team_burst(const BurstHome& home, const TeamHost& h, const std::vector<std::string>& args,
               std::string* out) {
  return run_burst(home, args, out, nullptr, h.env);
}

bool team_daemon_ready(const BurstHome& home, const TeamHost& h) {
  for (int i = 0; i < 400; ++i) {
    if (fs::exists(h.socket) && team_burst(home, h, {"status", "--socket", h.socket}, nullptr) == 0)
      return true;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return false;
}

void kill_team_daemon(TeamHost& h, int sig) {
  if (h.pid <= 0) return;
  kill(h.pid, sig);
  waitpid(h.pid, nullptr, 0);
  h.pid = -1;
}

// The rows a daemon (by pid) leases now.
int leased_by(Store& store, pid_t pid) {
  auto rows = store.queued_jobs();
  if (!rows.ok()) return -1;
  const std::string mark = "|" + std::to_string(pid) + "|";
  const int64_t now = to_unix_ms(std::chrono::system_clock::now());
  int n = 0;
  for (const auto& q : *rows)
    n += q.lease_owner.find(mark) != std::string::npos && q.lease_expires_ms > now;
  return n;
}

// Waits up to `seconds` for `done`; these are wait-untils, free when the test passes, and long
// because CI runs this beside the whole suite and the hardening builds on two cores.
template <typename F>
bool wait_until(int seconds, F done) {
  for (int i = 0; i < seconds * 20; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return done();
}

TEST(TeamChaos, ThreeHostsOnePostgresKilledMidRunAndIdleRunEveryJobOnceAndLeaveNothing) {
  PostgresServer& server = PostgresServer::get();
  if (!server.skip_reason().empty())
    GTEST_SKIP() << "[ SKIPPED ] PostgreSQL team chaos test: " << server.skip_reason();
  ASSERT_TRUE(server.error().empty()) << server.error();
  ASSERT_EQ(server.run_sql(server.base_conninfo(), "CREATE SCHEMA team_chaos"), "");
  const std::string url = server.url() + "?options=-c%20search_path%3Dteam_chaos";
  const auto t0 = steady_clock::now();

  BurstHome home;  // the team's shared things: the specs, the cloud, the key
  const std::string cloud = home.root() + "/cloud";
  const std::string key = home.root() + "/team_key";
  ASSERT_EQ(std::system(("ssh-keygen -q -t ed25519 -N '' -C burst-team -f " + key).c_str()), 0);
  const std::string config = "store: " + url + "\nssh_key: " + key +
                             "\nproviders:\n  local:\n    root: " + cloud +
                             "\n    gpu_usd_per_hour: 36\n";
  const std::string marks = home.root() + "/marks";
  fs::create_directories(marks);

  std::vector<TeamHost> d = {make_team_host(home, "a", config), make_team_host(home, "b", config),
                             make_team_host(home, "c", config)};
  const TeamHost member = make_team_host(home, "d", config);  // a laptop: no daemon
  struct KillAll {
    std::vector<TeamHost>& d;
    std::string cloud;
    ~KillAll() {
      for (auto& x : d) kill_team_daemon(x, SIGKILL);
      std::error_code ec;  // a failed test must not leave the team's pods' sshds behind
      for (const auto& e : fs::directory_iterator(cloud + "/pods", ec))
        terminate_all(pod_processes(e.path().filename().string()), 1000);
    }
  } kill_all{d, cloud};
  for (auto& x : d) start_team_daemon(home, x);
  for (const auto& x : d) ASSERT_TRUE(team_daemon_ready(home, x)) << read_file(x.log + ".err");
  auto store = open_postgres_store(url);
  ASSERT_TRUE(store.ok()) << store.error().message;

  std::vector<std::string> ids;
  for (int i = 0; i < kTeamJobs; ++i) {
    const std::string name = "team-" + std::to_string(i);
    const std::string spec = home.write(
        name + ".yaml", "name: " + name + "\nresources: {providers: [local]}\nbudget: {max_usd: " +
                            std::to_string(kTeamJobMax) + "}\nrun: |\n  echo started\n  sleep 2\n" +
                            "  echo ran >> " + marks + "/" + name + "\n");
    std::string out;
    ASSERT_EQ(team_burst(home, d[i % 3], {"submit", spec, "--socket", d[i % 3].socket}, &out), 0)
        << out;
    ids.push_back(out.substr(4, out.find(" queued") - 4));
  }

  // a: killed while one of its jobs runs its step (the mark's sleep).
  std::string victim;
  wait_until(120, [&] {
    const std::string log = read_file(d[0].log);
    for (size_t at = log.find(" starting: "); at != std::string::npos && victim.empty();
         at = log.find(" starting: ", at + 1)) {
      const size_t job = log.rfind("job ", at);
      const std::string id = log.substr(job + 4, log.find(' ', job + 4) - job - 4);
      if (read_file(d[0].state() + "/logs/" + id + ".log").find("| started") != std::string::npos)
        victim = id;
    }
    return !victim.empty();
  });
  ASSERT_FALSE(victim.empty()) << read_file(d[0].log);
  kill_team_daemon(d[0], SIGKILL);
  const auto killed_at = steady_clock::now();
  const int64_t killed_ms = to_unix_ms(std::chrono::system_clock::now());

  // A member's `burst reap` on a fourth host while a's jobs wait for their takeover: every pod
  // it sees belongs to a live job of the team's daemons, so it deletes nothing.
  std::string reap_mid;
  EXPECT_EQ(team_burst(home, member, {"reap", "--json"}, &reap_mid), 0) << reap_mid;
  {
    const auto actions = nlohmann::json::parse(reap_mid, nullptr, false);
    ASSERT_TRUE(actions.is_array()) << reap_mid;
    for (const auto& a : actions)
      EXPECT_EQ(a.value("outcome", "").rfind("deleted", 0), std::string::npos)
          << "the member's reap deleted a live team pod: " << a.dump();
  }

  // c: killed once it holds no job (the queue has drained to the others, or it is between jobs).
  EXPECT_TRUE(wait_until(240, [&] { return leased_by(**store, d[2].pid) == 0; }))
      << read_file(d[2].log);
  kill_team_daemon(d[2], SIGKILL);

  // b finishes what is left, a's taken-over jobs included.
  auto all_final = [&] {
    for (const auto& id : ids) {
      auto job = (*store)->get_job(id);
      if (!job.ok() || job->state == JobState::kRunning) return false;
    }
    auto rows = (*store)->queued_jobs();
    return rows.ok() && rows->empty();
  };
  ASSERT_TRUE(wait_until(300, all_final)) << read_file(d[1].log);

  int succeeded = 0;
  for (int i = 0; i < kTeamJobs; ++i) {
    auto job = (*store)->get_job(ids[i]);
    const std::string mark = read_file(marks + "/team-" + std::to_string(i));
    const size_t runs = static_cast<size_t>(std::count(mark.begin(), mark.end(), '\n'));
    EXPECT_LE(runs, 1u) << ids[i] << " ran its step twice";
    if (job->state == JobState::kSucceeded) {
      ++succeeded;
      EXPECT_EQ(runs, 1u) << ids[i];
    } else {
      std::cerr << "team chaos: " << ids[i] << " " << to_string(job->state) << ": " << job->error
                << "\n";
      for (const auto& x : d) {
        std::istringstream lines(read_file(x.log));
        for (std::string l; std::getline(lines, l);)
          if (l.find(ids[i]) != std::string::npos) std::cerr << "  " << x.name << ": " << l << "\n";
      }
    }
  }
  // How long a's job mid-step waited for its takeover: the lease (2 s) to run out, then the
  // next look of an idle daemon (every third of a lease) or a busy one's free slot. Printed;
  // the bound only catches a takeover that never comes in time (CI runs this under load).
  int64_t resumed_after_ms = -1;
  for (const PhaseRecord& ph : *(*store)->phases(victim))
    if (ph.phase == Phase::kReattach) resumed_after_ms = ph.started_ms - killed_ms;
  EXPECT_GE(resumed_after_ms, 0) << "a's job mid-step was reattached";
  EXPECT_LT(resumed_after_ms, 60000);
  std::cerr << "team chaos: a's job mid-step reattached " << resumed_after_ms
            << " ms after the kill (lease 2000 ms)\n";
  EXPECT_EQ((*store)->get_job(victim)->state, JobState::kSucceeded)
      << "a's job mid-step was reattached from another host: " << (*store)->get_job(victim)->error
      << "\n"
      << read_file(d[1].log) << read_file(d[2].log);
  // A job of a's that had not reached its run step runs again from its plan (its pods deleted
  // first); one in its pull is reattached and pulls again (docs/daemon.md, Takeover). Either
  // way every step ran once.
  EXPECT_EQ(succeeded, kTeamJobs);

  // No pod lives: the store's rows, the process table and the reaper agree.
  EXPECT_TRUE((*store)->live_pods()->empty());
  const auto open_reservations = (*store)->open_reservations();
  ASSERT_TRUE(open_reservations.ok());
  for (const ReservationRecord& r : *open_reservations)
    ADD_FAILURE() << "reservation of " << r.job_id << " left open ("
                  << to_string((*store)->get_job(r.job_id)->state) << ")";
  double bills = 0, ledger = 0;
  const ProviderTraits* local = find_provider_traits("local");
  ASSERT_NE(local, nullptr);
  for (const auto& id : ids) {
    double job_spend = 0;
    const auto spends = (*store)->spend_of_job(id);
    ASSERT_TRUE(spends.ok());
    for (const SpendRecord& s : *spends) job_spend += s.usd;
    ledger += job_spend;
    EXPECT_LE(job_spend, kTeamJobMax) << id;
    const auto pods = (*store)->pods_of_job(id);
    ASSERT_TRUE(pods.ok());
    for (const PodRecord& p : *pods) {
      EXPECT_TRUE(pod_processes(p.pod_id).empty()) << p.pod_id;
      if (p.state == PodRecordState::kCreateFailed || p.created_ms == 0) continue;
      bills += accrued_usd({p}, from_unix_ms(p.deleted_ms), local->billing);
    }
  }
  EXPECT_GT(bills, 0);
  EXPECT_NEAR(ledger, bills, 1e-9) << "the ledger counts every pod's bill once";
  EXPECT_LE(ledger, kTeamDayCap);
  std::string reap_out;
  EXPECT_EQ(team_burst(home, member, {"reap", "--json"}, &reap_out), 0) << reap_out;
  EXPECT_EQ(reap_out.find("local-"), std::string::npos) << reap_out;

  kill_team_daemon(d[1], SIGTERM);
  int reattached = 0, run_again = 0;  // how a's jobs were taken over (timing decides the mix)
  for (const auto& x : d) {
    const std::string log = read_file(x.log);
    for (size_t at = log.find("take-over: job "); at != std::string::npos;
         at = log.find("take-over: job ", at + 1)) {
      const std::string line = log.substr(at, log.find('\n', at) - at);
      reattached += line.find(" reattached: ") != std::string::npos;
      run_again += line.find(" runs again: ") != std::string::npos;
    }
  }
  std::cerr << "team chaos: a's jobs taken over: " << reattached << " reattached, " << run_again
            << " run again; " << (uts_namespaces() ? "own UTS namespaces" : "BURST_HOST_ID only")
            << "\n";
  std::cerr << "team chaos: " << succeeded << "/" << kTeamJobs << " succeeded in "
            << std::chrono::duration_cast<milliseconds>(steady_clock::now() - t0).count()
            << " ms; a was killed "
            << std::chrono::duration_cast<milliseconds>(killed_at - t0).count() << " ms in\n";
}

}  // namespace
}  // namespace burst::testing

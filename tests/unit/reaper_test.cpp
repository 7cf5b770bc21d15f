// The one reaper (app/reaper.h) as `burst reap` and burstd use it, over FakeProvider, SQLite and
// FakeClock: a job whose recorded owner pid now belongs to another live process is treated as
// dead by both; another installation's live pod is never touched, by either; the orphan grace
// counts from the store's first-seen time, across a restart.
#include "app/reaper.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "daemon/reconciler.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_provider.h"
#include "fakes/forward_provider.h"
#include "fakes/temp_dir.h"
#include "util/proc_start.h"

extern char** environ;

namespace burst {
namespace {

using std::chrono::minutes;

// A live process that is not this one: `sleep 60`, killed and reaped when the test ends.
class ChildProcess {
 public:
  ChildProcess() {
    char sleep_path[] = "/bin/sleep";
    char seconds[] = "60";
    char* argv[] = {sleep_path, seconds, nullptr};
    EXPECT_EQ(posix_spawn(&pid_, "/bin/sleep", nullptr, nullptr, argv, environ), 0);
  }
  ~ChildProcess() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  int64_t pid() const { return pid_; }

 private:
  pid_t pid_ = 0;
};

// One installation: its own store (a state dir) on the shared cloud account.
struct Installation {
  Installation(const std::string& db, FakeClock& c, FakeProvider& fake, const std::string& dir)
      : store(open_sqlite_store(db).value()), clock(c), cloud(fake), reports(dir) {}

  ReaperDeps deps(const std::string& actor) {
    return ReaperDeps{*store,
                      clock,
                      {"fake"},
                      [this](const std::string&) -> Result<std::unique_ptr<Provider>> {
                        return std::unique_ptr<Provider>(std::make_unique<ForwardProvider>(cloud));
                      },
                      {},
                      reports,
                      actor};
  }
  daemon::Reconciler burstd(Duration grace = minutes(10)) {
    auto d = deps("burstd");
    return daemon::Reconciler(
        daemon::ReconcileDeps{d.store, d.clock, d.providers, d.make_provider, {}, reports}, grace);
  }
  std::string id() { return *store->installation_id(); }

  // A job in its run phase with a GPU pod named as the runner names it, owned by `pid`.
  std::string running_job(const std::string& job_id, int64_t pid, const std::string& start) {
    JobRecord job;
    job.id = job_id;
    job.pipeline = "tts";
    job.state = JobState::kRunning;
    job.phase = Phase::kSetup;
    job.provider = "fake";
    job.owner_pid = pid;
    job.owner_start = start;
    EXPECT_TRUE(store->create_job(job).ok());
    EXPECT_TRUE(store->begin_phase(job_id, Phase::kRun, to_unix_ms(clock.now())).ok());
    Pod pod = cloud.add_existing(pod_name(id(), job_id, "gpu"));
    PodRecord rec;
    rec.job_id = job_id;
    rec.provider = "fake";
    rec.role = "gpu";
    rec.name = pod.name;
    rec.pod_id = pod.id;
    rec.state = PodRecordState::kAlive;
    EXPECT_TRUE(store->add_pod(rec).ok());
    return pod.name;
  }

  std::unique_ptr<Store> store;
  FakeClock& clock;
  FakeProvider& cloud;
  std::string reports;
};

class ReaperTest : public ::testing::Test {
 protected:
  Installation make(const std::string& db = ":memory:") {
    return Installation(db, clock_, cloud_, dir_.path());
  }

  TempDir dir_;
  FakeClock clock_;
  FakeProvider cloud_;
};

TEST(ProcStart, TellsAProcessFromAnotherThatGotItsPid) {
  ChildProcess child;
  const std::string mine = process_start_time(getpid());
  const std::string its = process_start_time(child.pid());
  ASSERT_FALSE(mine.empty());
  ASSERT_FALSE(its.empty());
  EXPECT_NE(mine, its);
  EXPECT_EQ(process_start_time(getpid()), mine) << "stable for one process";
  EXPECT_TRUE(same_process_alive(child.pid(), its));
  EXPECT_FALSE(same_process_alive(child.pid(), mine)) << "same pid, another start: not the owner";
  EXPECT_TRUE(same_process_alive(child.pid(), "")) << "no start recorded: the pid alone";
  EXPECT_FALSE(same_process_alive(0, ""));
}

// The owner pid of a job is now another live process (the child): its start time differs from
// the one recorded, so `burst reap` fails the job and deletes its pod.
TEST_F(ReaperTest, ReusedOwnerPidIsDeadToBurstReap) {
  ChildProcess reused;
  Installation a = make();
  const std::string pod = a.running_job("j1", reused.pid(), "boot/12345");
  Reaper reaper(a.deps("burst reap"));
  std::vector<std::string> failed;
  auto actions = reaper.reap(ReapOptions{}, &failed);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].outcome, "deleted (confirmed)");
  EXPECT_FALSE(cloud_.exists_named(pod));
  auto job = a.store->get_job("j1");
  EXPECT_EQ(job->state, JobState::kFailed);
  EXPECT_EQ(job->error, "the process running it (pid " + std::to_string(reused.pid()) +
                            ") stopped during phase run; burst reap failed the job; gpu pod p1 "
                            "deleted (confirmed)");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0], "job j1: recorded as failed: " + job->error);
}

TEST_F(ReaperTest, ReusedOwnerPidIsDeadToBurstd) {
  ChildProcess reused;
  Installation a = make();
  const std::string pod = a.running_job("j1", reused.pid(), "boot/12345");
  auto lines = a.burstd().recover_jobs();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("job j1 failed: the process running it"), std::string::npos) << lines[0];
  EXPECT_FALSE(cloud_.exists_named(pod));
  EXPECT_EQ(a.store->get_job("j1")->state, JobState::kFailed);
}

TEST_F(ReaperTest, ALiveOwnerKeepsItsPodForBoth) {
  ChildProcess owner;
  Installation a = make();
  const std::string pod = a.running_job("j1", owner.pid(), process_start_time(owner.pid()));
  Reaper reaper(a.deps("burst reap"));
  auto actions = reaper.reap(ReapOptions{});
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].outcome, "skipped: job j1 is still running in another burst process");
  auto burstd = a.burstd();
  EXPECT_TRUE(burstd.recover_jobs().empty());
  EXPECT_TRUE(burstd.reap().empty());
  EXPECT_TRUE(cloud_.exists_named(pod));
  EXPECT_EQ(a.store->get_job("j1")->state, JobState::kRunning);
}

// Two state dirs on one cloud account: B never touches A's live pod, neither `burst reap` nor
// burstd however long it waits, until someone asks for --all-installations.
TEST_F(ReaperTest, AnotherInstallationsLivePodIsNeverTouched) {
  ChildProcess owner;
  Installation a = make(dir_.path() + "/a/burst.db");
  Installation b = make(dir_.path() + "/b/burst.db");
  ASSERT_NE(a.id(), b.id()) << "each state dir has its own id";
  EXPECT_EQ(a.id(), *open_sqlite_store(dir_.path() + "/a/burst.db").value()->installation_id())
      << "made once, kept in the store";
  const std::string pod = a.running_job("j1", owner.pid(), process_start_time(owner.pid()));

  Reaper cli(b.deps("burst reap"));
  auto actions = cli.reap(ReapOptions{});
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].kind, ReapOutcome::kForeign);
  EXPECT_EQ(actions[0].outcome, "of installation " + a.id() + ", not this one (" + b.id() +
                                    "): left alone; `burst reap --all-installations` deletes it");
  auto burstd = b.burstd();
  for (int pass = 0; pass < 3; ++pass) {
    (void)burstd.reap();
    clock_.advance(minutes(30));
  }
  EXPECT_TRUE(cloud_.exists_named(pod));
  EXPECT_FALSE(b.store->get_job("j1").ok()) << "B did not adopt it";
  ASSERT_EQ(cli.foreign_pods().size(), 1u);

  ReapOptions all;
  all.all_installations = true;
  actions = cli.reap(all);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].outcome, "deleted (confirmed)");
  EXPECT_FALSE(cloud_.exists_named(pod));
}

// A pod of ours the store does not know: first seen, burstd restarts 6 minutes later, and the
// pod goes 10 minutes after it was first seen, not 10 minutes after the restart.
TEST_F(ReaperTest, OrphanGraceCountsFromFirstSeenAcrossARestart) {
  const std::string db = dir_.path() + "/burst.db";
  std::string name;
  {
    Installation a = make(db);
    name = pod_name(a.id(), "lost", "gpu");
    cloud_.add_existing(name);
    auto first = a.burstd().reap();
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].kind, ReapOutcome::kWaiting);
  }
  const TimePoint first_seen = clock_.now();
  clock_.advance(minutes(6));
  Installation restarted = make(db);
  auto burstd = restarted.burstd();
  auto waiting = burstd.reap();
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting[0].outcome, "unknown to the store: deleted if still there after " +
                                    format_utc(first_seen + minutes(10)));
  clock_.advance(minutes(5));
  auto deleted = burstd.reap();
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted[0].outcome, "unknown to the store for 660 s: deleted (confirmed)");
  EXPECT_FALSE(cloud_.exists_named(name));
}

TEST_F(ReaperTest, DryRunChangesNothing) {
  Installation a = make();
  const std::string pod = a.running_job("j1", 0, "");
  cloud_.add_existing(pod_name(a.id(), "lost", "gpu"));
  Reaper reaper(a.deps("burst reap"));
  ReapOptions dry;
  dry.dry_run = true;
  auto actions = reaper.reap(dry);
  ASSERT_EQ(actions.size(), 2u);
  for (const auto& act : actions) EXPECT_EQ(act.outcome, "would delete");
  EXPECT_TRUE(cloud_.exists_named(pod));
  EXPECT_EQ(a.store->get_job("j1")->state, JobState::kRunning);
}

TEST(PodName, CarriesTheInstallationAndParsesBack) {
  EXPECT_EQ(pod_name("0a1b2c3d4e", "20261122-071500-3fa9", "gpu"),
            "burst-i0a1b2c3d4e-20261122-071500-3fa9-gpu");
  auto tagged = parse_pod_name("burst-i0a1b2c3d4e-20261122-071500-3fa9-gpu");
  ASSERT_TRUE(tagged);
  EXPECT_EQ(tagged->installation, "0a1b2c3d4e");
  EXPECT_EQ(tagged->job_id, "20261122-071500-3fa9");
  EXPECT_EQ(tagged->role, "gpu");
  auto old = parse_pod_name("burst-20261122-071500-3fa9-cpu");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->installation, "");
  EXPECT_EQ(old->job_id, "20261122-071500-3fa9");
  EXPECT_EQ(old->role, "cpu");
  EXPECT_FALSE(parse_pod_name("other-pod"));
  for (const char* odd : {"burst-", "burst--", "burst-i0a1b2c3d4e-", "burst-iZZZZZZZZZZ-j-gpu"})
    EXPECT_TRUE(parse_pod_name(odd)) << odd;  // odd, but parsed without fault
  EXPECT_EQ(parse_pod_name("burst-iZZZZZZZZZZ-j-gpu")->installation, "") << "not hex: untagged";
  EXPECT_EQ(parse_pod_name("burst-nodash")->role, "unknown");
}

}  // namespace
}  // namespace burst

// Several burstd on one store (docs/daemon.md, "Leases"), in-process with a FakeClock: two
// Schedulers (or Daemons) share one Store. A job queued through one may start on the other, never
// on both; a job whose daemon stopped renewing its lease is taken over once, by one daemon, after
// the lease ends (sooner when its owner is a dead process on this host); a daemon that lost a
// lease stops its run and leaves the row to the new holder.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "daemon/daemon.h"
#include "daemon/scheduler.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"
#include "fakes/temp_dir.h"

namespace burst::daemon {
namespace {

using std::chrono::seconds;

PipelineSpec lease_spec(const std::string& name) {
  PipelineSpec s;
  s.name = name;
  s.path = "/specs/" + name + ".yaml";
  s.run = "true";
  return s;
}

std::string this_host() {
  char buf[256] = {};
  (void)gethostname(buf, sizeof buf - 1);
  return buf;
}

class LeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(":memory:").value();
    launcher_ = std::make_unique<FakeJobLauncher>(*store_);
    launcher_->block = true;
  }
  void TearDown() override {
    launcher_->release_all();
    a_.reset();
    b_.reset();
  }
  std::unique_ptr<Scheduler> make(int max_concurrent, const std::string& owner) {
    SchedulerOptions opt;
    opt.max_concurrent = max_concurrent;
    opt.lease_owner = owner;
    opt.lease = seconds(30);
    opt.log = [this](const std::string& l) {
      std::lock_guard<std::mutex> lock(mu_);
      log_.push_back(l);
    };
    opt.take_over = [this, owner](const JobRecord& job) {
      std::lock_guard<std::mutex> lock(mu_);
      taken_.push_back(owner + ":" + job.id);
    };
    return std::make_unique<Scheduler>(clock_, *store_, *launcher_, opt);
  }
  // A job a daemon `owner` started and then stopped renewing (killed): running in the store, its
  // queue row leased until now + 30 s.
  void dead_daemons_job(const std::string& id, const std::string& owner) {
    QueuedJobRecord q;
    q.id = id;
    q.pipeline = "p";
    q.spec_path = "/specs/p.yaml";
    q.spec_text = "name: p\nrun: \"true\"\n";
    q.reason = "submitted";
    q.queued_ms = to_unix_ms(clock_.now()) - 1000;
    ASSERT_TRUE(store_->add_queued(q).ok());
    auto claimed = store_->claim_queued(owner, to_unix_ms(clock_.now()), 30000);
    ASSERT_TRUE(claimed.ok() && claimed->has_value());
    JobRecord rec;
    rec.id = id;
    rec.pipeline = "p";
    rec.spec_path = q.spec_path;
    rec.state = JobState::kRunning;
    rec.phase = Phase::kRun;
    rec.owner_pid = 999999;
    ASSERT_TRUE(store_->create_job(rec).ok());
    ASSERT_TRUE(store_->begin_phase(id, Phase::kRun, 1).ok());
  }
  std::vector<std::string> taken() {
    std::lock_guard<std::mutex> lock(mu_);
    return taken_;
  }

  FakeClock clock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<FakeJobLauncher> launcher_;
  std::unique_ptr<Scheduler> a_, b_;
  std::mutex mu_;
  std::vector<std::string> log_;
  std::vector<std::string> taken_;
};

TEST_F(LeaseTest, JobsQueuedOnOneDaemonRunOnEitherAndEachExactlyOnce) {
  a_ = make(1, "host|1|a|");
  b_ = make(1, "host|1|b|");
  std::vector<std::string> ids;
  for (const char* n : {"p1", "p2", "p3"})
    ids.push_back(
        a_->submit(lease_spec(n), "submitted", "name: " + std::string(n) + "\nrun: \"true\"\n"));
  (void)a_->tick();
  (void)b_->tick();
  ASSERT_TRUE(launcher_->wait_started(2));
  EXPECT_TRUE(a_->is_running(ids[0])) << "the oldest goes to the first daemon that asks";
  EXPECT_TRUE(b_->is_running(ids[1])) << "the other daemon takes the next one from the store";
  EXPECT_EQ(a_->running_count() + b_->running_count(), 2);
  (void)a_->tick();  // a's view drops p2, which b's lease holds
  EXPECT_EQ(a_->jobs().size(), 2u) << "a's view: its running job and p3 still queued";

  launcher_->release(ids[1]);
  for (int i = 0; i < 500 && b_->running_count() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  (void)a_->tick();  // a is full: p3 waits for b
  (void)b_->tick();
  ASSERT_TRUE(launcher_->wait_started(3));
  EXPECT_TRUE(b_->is_running(ids[2]));
  launcher_->release_all();
  ASSERT_TRUE(a_->wait_idle(seconds(10)));
  ASSERT_TRUE(b_->wait_idle(seconds(10)));
  (void)a_->tick();
  (void)b_->tick();

  auto started = launcher_->started();
  std::set<std::string> distinct(started.begin(), started.end());
  EXPECT_EQ(started.size(), 3u);
  EXPECT_EQ(distinct.size(), 3u) << "no job started twice";
  EXPECT_TRUE(store_->queued_jobs()->empty()) << "every row removed at its job's end";
  EXPECT_TRUE(taken().empty());
}

TEST_F(LeaseTest, ARunningJobsLeaseIsRenewedSoNoOtherDaemonTakesItOver) {
  a_ = make(1, "host|1|a|");
  b_ = make(1, "host|1|b|");
  const std::string id = a_->submit(lease_spec("p"), "submitted");
  (void)a_->tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  for (int i = 0; i < 6; ++i) {  // 60 s: twice the lease, renewed every 10 s
    clock_.advance(seconds(10));
    (void)a_->tick();
    (void)b_->tick();
  }
  EXPECT_TRUE(taken().empty()) << "a renews its lease; b never sees the job as abandoned";
  EXPECT_EQ(launcher_->started().size(), 1u);
  auto rows = store_->queued_jobs().value();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].lease_owner, "host|1|a|");
  EXPECT_EQ(rows[0].lease_expires_ms, to_unix_ms(clock_.now()) + 30000);
  (void)id;
}

TEST_F(LeaseTest, ADeadDaemonsJobIsTakenOverOnceAfterItsLeaseEndsAndNeverStartedAgain) {
  dead_daemons_job("j1", "elsewhere|42|x|boot/1");  // another host: only time proves it dead
  a_ = make(2, "host|1|a|");
  b_ = make(2, "host|1|b|");
  (void)a_->tick();
  (void)b_->tick();
  EXPECT_TRUE(taken().empty()) << "its lease still lives";
  clock_.advance(seconds(29));
  (void)a_->tick();
  EXPECT_TRUE(taken().empty());
  clock_.advance(seconds(1));
  (void)a_->tick();
  (void)b_->tick();
  EXPECT_EQ(taken(), std::vector<std::string>{"host|1|a|:j1"}) << "exactly one daemon takes it";
  EXPECT_TRUE(launcher_->started().empty()) << "a started job is reattached or failed, not rerun";
  auto rows = store_->queued_jobs().value();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].lease_owner, "host|1|a|");
}

TEST_F(LeaseTest, ADeadOwnerOnThisHostLosesItsLeaseAtOnce) {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);  // a pid that no longer runs
  dead_daemons_job("j1", this_host() + "|" + std::to_string(child) + "|n|");
  a_ = make(1, "host|1|a|");
  (void)a_->tick();
  EXPECT_EQ(taken(), std::vector<std::string>{"host|1|a|:j1"})
      << "a burstd restarted after kill -9 does not wait the lease out";
}

TEST_F(LeaseTest, ADaemonThatLostItsLeaseStopsItsRunAndLeavesTheRowToTheNewHolder) {
  a_ = make(1, "host|1|a|");
  b_ = make(1, "host|1|b|");
  const std::string id = a_->submit(lease_spec("p"), "submitted");
  (void)a_->tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  clock_.advance(seconds(31));  // a was stuck: it renewed nothing for a whole lease
  (void)b_->tick();
  ASSERT_EQ(taken(), std::vector<std::string>{"host|1|b|:" + id});
  (void)a_->tick();  // its renewal finds b's lease: it stops its run
  ASSERT_TRUE(a_->wait_idle(seconds(10)));
  auto job = store_->get_job(id);
  EXPECT_EQ(job->state, JobState::kInterrupted);
  auto rows = store_->queued_jobs().value();
  ASSERT_EQ(rows.size(), 1u) << "the row is b's now; a does not remove it";
  EXPECT_EQ(rows[0].lease_owner, "host|1|b|");
}

// The daemon's take-over: a job whose GPU pod cannot be found is failed (its pods deleted), its
// queue row removed and its reservation released, and the log says so.
TEST(LeaseDaemonTest, ATakenOverJobThatCannotBeReattachedIsFailedAndItsRowRemoved) {
  TempDir dir;
  FakeClock clock;
  auto store = open_sqlite_store(":memory:").value();
  FakeJobLauncher launcher(*store);
  QueuedJobRecord q;
  q.id = "j1";
  q.pipeline = "p";
  q.spec_path = dir.path() + "/p.yaml";
  q.spec_text = "name: p\nrun: \"true\"\n";
  q.queued_ms = to_unix_ms(clock.now());
  ASSERT_TRUE(store->add_queued(q).ok());
  ASSERT_TRUE(store->claim_queued("elsewhere|42|x|", to_unix_ms(clock.now()), 30000)->has_value());
  JobRecord rec;
  rec.id = "j1";
  rec.pipeline = "p";
  rec.state = JobState::kRunning;
  rec.phase = Phase::kRun;
  rec.owner_pid = 999999;
  ASSERT_TRUE(store->create_job(rec).ok());
  ASSERT_TRUE(store->begin_phase("j1", Phase::kRun, 1).ok());
  ReservationRecord r;
  r.job_id = "j1";
  r.pipeline = "p";
  r.usd = 1;
  r.day = "2026-01-01";
  r.month = "2026-01";
  ASSERT_TRUE(store->reserve(r, {}).value().empty());

  DaemonConfig config;
  config.burst.reports_dir = dir.path() + "/reports";
  config.burst.logs_dir = dir.path() + "/logs";
  std::mutex log_mu;
  std::vector<std::string> log;
  DaemonDeps deps{clock, *store, launcher, {}, nullptr, [&](const std::string& l) {
                    std::lock_guard<std::mutex> lock(log_mu);
                    log.push_back(l);
                  }};
  Daemon d(config, deps);
  ASSERT_TRUE(d.start(/*socket=*/false).ok());
  EXPECT_EQ(store->get_job("j1")->state, JobState::kRunning)
      << "start leaves a job another daemon's live lease holds alone";
  EXPECT_EQ(store->open_reservations()->size(), 1u) << "and its reservation";
  clock.advance(seconds(31));
  (void)d.scheduler().tick();
  for (int i = 0; i < 1000 && !store->queued_jobs()->empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the loop's tick may hold it
  auto job = store->get_job("j1");
  EXPECT_EQ(job->state, JobState::kFailed);
  EXPECT_NE(job->error.find("the lease of the burstd running it ended; burstd took it over and "
                            "failed it (its GPU pod is not running, no reattach)"),
            std::string::npos)
      << job->error;
  EXPECT_TRUE(store->queued_jobs()->empty());
  EXPECT_TRUE(store->open_reservations()->empty());
  EXPECT_TRUE(launcher.started().empty());
  d.stop();
}

}  // namespace
}  // namespace burst::daemon

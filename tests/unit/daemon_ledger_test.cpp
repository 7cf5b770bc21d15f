// burstd's durable queue and money ledger in process (issue 20): a new scheduler over the same
// store runs what an earlier one queued; two concurrent jobs never spend more than the daily cap
// together; a reattached job's spend counts once; a job whose reservation does not fit waits in
// the queue, saying which cap holds it; a wall clock stepping back does not delay a budget stop.
#include <gtest/gtest.h>

#include "daemon/ledger.h"
#include "daemon/scheduler.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"
#include "registry.h"

namespace burst::daemon {
namespace {

// The pods here are RunPod's: its billing rule, from its registry row.
const BillingRule& runpod_billing() { return find_provider_traits("runpod")->billing; }

using std::chrono::minutes;
using std::chrono::seconds;

const char* kSpecText = "name: p\nresources: {providers: [local]}\nrun: echo hi\n";

PipelineSpec spec_named(const std::string& name, std::optional<double> max_usd = std::nullopt) {
  PipelineSpec s;
  s.name = name;
  s.path = "/specs/" + name + ".yaml";
  s.run = "true";
  s.budget.max_usd = max_usd;
  return s;
}

class LedgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_sqlite_store(":memory:");
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    launcher_ = std::make_unique<FakeJobLauncher>(*store_);
  }
  // A job record with one RunPod pod at $3.60/h ($0.001 a second) created now.
  int64_t job_with_pod(const std::string& id, double usd_per_hour = 3.60) {
    JobRecord j;
    j.id = id;
    j.pipeline = "p";
    j.state = JobState::kRunning;
    j.created_ms = to_unix_ms(clock_.now());
    EXPECT_TRUE(store_->create_job(j).ok());
    PodRecord p;
    p.job_id = id;
    p.provider = "runpod";
    p.role = "gpu";
    p.state = PodRecordState::kAlive;
    p.usd_per_hour = usd_per_hour;
    p.created_ms = to_unix_ms(clock_.now());
    auto row = store_->add_pod(p);
    EXPECT_TRUE(row.ok());
    return *row;
  }
  std::vector<PodRecord> pods(const std::string& id) { return *store_->pods_of_job(id); }
  double total_spend() {
    LedgerCap all{"all", "", 0, "all", "", ""};
    return *store_->committed_usd(all, "", "", "");
  }

  FakeClock clock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<FakeJobLauncher> launcher_;
};

// Issue 35: jobs without budget.max_usd reserved $0, so four of them were admitted under a $0.02
// cap and spent $0.02108. Once planned, each reserves its plan's estimate before anything is
// created: the third of three $0.008 jobs under $0.02 waits until one ends; a job whose estimate
// alone is over the cap can never fit and says so; a job with max_usd keeps that bound.
TEST_F(LedgerTest, AJobWithoutMaxUsdReservesItsPlansEstimateBeforeItStarts) {
  Ledger ledger(*store_, clock_);
  ledger.set_caps(0.02, std::nullopt);
  bool never = false;
  for (const char* id : {"j1", "j2", "j3"}) {
    job_with_pod(id, 0);  // recorded, no spend yet
    EXPECT_EQ(ledger.reserve(id, spec_named(id)), "") << "admitted at $0: no plan yet";
  }
  EXPECT_EQ(ledger.reserve_estimate("j1", spec_named("j1"), 0.008, &never), "");
  EXPECT_EQ(ledger.reserve_estimate("j2", spec_named("j2"), 0.008, &never), "");
  const std::string held = ledger.reserve_estimate("j3", spec_named("j3"), 0.008, &never);
  EXPECT_EQ(held,
            "budget: burstd budget.usd_per_day ($0.0160 committed of $0.0200; this job reserves "
            "$0.0080, its plan's estimate: it has no budget.max_usd)");
  EXPECT_FALSE(never) << "it fits once another job ends";
  ledger.settle("j1");
  EXPECT_EQ(ledger.reserve_estimate("j3", spec_named("j3"), 0.008, &never), "");
  EXPECT_LE(total_spend(), 0.02 + 1e-12);

  job_with_pod("big", 0);
  EXPECT_EQ(ledger.reserve("big", spec_named("big")), "");
  EXPECT_NE(ledger.reserve_estimate("big", spec_named("big"), 0.5, &never), "");
  EXPECT_TRUE(never) << "$0.50 alone is over the $0.02 cap";

  job_with_pod("bounded", 0);
  EXPECT_EQ(ledger.reserve_estimate("bounded", spec_named("bounded", 0.001), 0.5, &never), "")
      << "budget.max_usd bounds the job; its reservation stays max_usd";
}

TEST_F(LedgerTest, UserCapHoldsOneUsersSecondJobWhileAnotherUsersRuns) {
  Ledger ledger(*store_, clock_);
  ledger.set_scoped_caps("ml", std::nullopt, std::nullopt, 1.0, std::nullopt);
  launcher_->block = true;
  SchedulerOptions opt;
  opt.max_concurrent = 3;
  opt.admit = [&](const std::string& id, const PipelineSpec& s) { return ledger.reserve(id, s); };
  opt.ended = [&](const std::string& id) { ledger.settle(id); };
  Scheduler s(clock_, *store_, *launcher_, opt);
  const std::string a1 = s.submit(spec_named("a1", 0.6), "submitted", kSpecText, "alice");
  const std::string a2 = s.submit(spec_named("a2", 0.6), "submitted", kSpecText, "alice");
  const std::string b1 = s.submit(spec_named("b1", 0.6), "submitted", kSpecText, "bob");
  s.tick();
  ASSERT_TRUE(launcher_->wait_started(2));
  EXPECT_TRUE(s.is_running(a1));
  EXPECT_TRUE(s.is_running(b1)) << "bob's cap is his own";
  std::string held;
  for (const auto& j : s.jobs())
    if (j.id == a2) held = j.held_by;
  EXPECT_EQ(held,
            "budget: burstd budget.user_usd_per_day of user alice ($0.6000 committed of $1.0000; "
            "this job reserves $0.6000, its budget.max_usd)");
  const auto open = store_->open_reservations();
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 2u);
  for (const auto& r : *open) {
    EXPECT_EQ(r.team, "ml");
    EXPECT_EQ(r.user, r.job_id == b1 ? "bob" : "alice");
  }
  launcher_->release_all();
  ASSERT_TRUE(s.wait_idle(seconds(10)));
}

TEST_F(LedgerTest, RestartedSchedulerRunsWhatTheEarlierOneQueuedAndDrainKeeps) {
  {
    Scheduler first(clock_, *store_, *launcher_, SchedulerOptions{});
    first.drain();
    ASSERT_FALSE(first.submit(spec_named("p"), "submitted", kSpecText).empty());
    first.tick();  // draining: nothing starts
  }                // gone as if killed: nothing ran
  EXPECT_TRUE(launcher_->started().empty());
  ASSERT_EQ(store_->queued_jobs()->size(), 1u) << "the queued job is a row in the store";

  Scheduler second(clock_, *store_, *launcher_, SchedulerOptions{});
  second.restore_queue();
  ASSERT_EQ(second.jobs().size(), 1u);
  second.tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  ASSERT_TRUE(second.wait_idle(seconds(10)));
  EXPECT_EQ(store_->recent_jobs(10)->at(0).state, JobState::kSucceeded);
  EXPECT_TRUE(store_->queued_jobs()->empty()) << "the row goes when the job ends";
}

TEST_F(LedgerTest, JobThatCannotReserveWaitsNamingTheCapAndStartsWhenTheFirstEnds) {
  Ledger ledger(*store_, clock_);
  ledger.set_caps(0.10, std::nullopt);
  launcher_->block = true;
  SchedulerOptions opt;
  opt.admit = [&](const std::string& id, const PipelineSpec& s) { return ledger.reserve(id, s); };
  opt.ended = [&](const std::string& id) { ledger.settle(id); };
  Scheduler s(clock_, *store_, *launcher_, opt);
  const std::string a = s.submit(spec_named("a", 0.06), "submitted", kSpecText);
  const std::string b = s.submit(spec_named("b", 0.06), "submitted", kSpecText);
  s.tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  EXPECT_EQ(s.running_count(), 1);
  std::string held;
  for (const auto& j : s.jobs())
    if (j.id == b) held = j.held_by;
  EXPECT_EQ(held,
            "budget: burstd budget.usd_per_day ($0.0600 committed of $0.1000; this job reserves "
            "$0.0600, its budget.max_usd)");
  const auto rows = store_->queued_jobs();
  ASSERT_TRUE(rows.ok());
  for (const auto& q : *rows)
    EXPECT_EQ(q.held_by, q.id == b ? held : "") << "a restarted burstd reads it too";

  const auto next = s.tick();
  ASSERT_TRUE(next.has_value()) << "a held job wakes the loop again (a new day frees the cap)";
  EXPECT_LE(*next, clock_.now() + minutes(1)) << "or sooner: the running job's lease renewal";

  launcher_->release(a);
  ASSERT_TRUE(s.wait_idle(seconds(10)));
  s.tick();
  ASSERT_TRUE(launcher_->wait_started(2)) << "a's reservation was released when it ended";
  launcher_->release_all();
  ASSERT_TRUE(s.wait_idle(seconds(10)));
}

// The overshoot: each job saw the whole remaining daily budget and both spent it. Here
// each runner's check (as job/job_watchdog.cpp does it every few seconds) sees what the other
// has committed, and a stopped job's pod is deleted at once.
TEST_F(LedgerTest, TwoConcurrentJobsNeverExceedTheDailyCapTogether) {
  Ledger ledger(*store_, clock_);
  ledger.set_caps(0.10, std::nullopt);
  ASSERT_EQ(ledger.reserve("a", spec_named("p")), "");
  ASSERT_EQ(ledger.reserve("b", spec_named("p")), "");
  const int64_t pod_a = job_with_pod("a"), pod_b = job_with_pod("b");
  std::map<std::string, int64_t> live{{"a", pod_a}, {"b", pod_b}};
  auto caps_a = ledger.caps_for("a"), caps_b = ledger.caps_for("b");
  for (int t = 0; t < 300 && !live.empty(); t += 5) {
    clock_.advance(seconds(5));
    for (const std::string id : {"a", "b"}) {
      if (!live.count(id)) continue;
      if (budget_stop_reason(pods(id), clock_.now(), id == "a" ? caps_a : caps_b, runpod_billing())
              .empty())
        continue;
      PodRecord p = pods(id).front();
      p.state = PodRecordState::kDeleted;
      p.deleted_ms = to_unix_ms(clock_.now());
      ASSERT_TRUE(store_->update_pod(p).ok());
      ledger.settle(id);
      live.erase(id);
    }
  }
  EXPECT_TRUE(live.empty()) << "both were stopped";
  const double billed = accrued_usd(pods("a"), clock_.now(), runpod_billing()) +
                        accrued_usd(pods("b"), clock_.now(), runpod_billing());
  EXPECT_LE(billed, 0.10);
  EXPECT_NEAR(total_spend(), billed, 1e-9) << "the ledger holds exactly what the pods cost";
}

// After a restart the job's spend so far was in the global "spent today" and in its own accrued
// cost, so a $0.15 cap stopped it near $0.075. Its own spend now counts once, and a second
// daemon recording the same pod continues the same entry.
TEST_F(LedgerTest, ReattachedJobsSpendCountsOnceAndContinuesTheSameEntry) {
  {
    Ledger before(*store_, clock_);
    before.set_caps(0.15, std::nullopt);
    ASSERT_EQ(before.reserve("a", spec_named("p")), "");
    job_with_pod("a", 0.60);  // $0.01 a minute
    clock_.advance(minutes(5));
    before.record("a");
  }                            // burstd killed
  clock_.advance(minutes(5));  // $0.10 so far
  Ledger after(*store_, clock_);
  after.set_caps(0.15, std::nullopt);
  after.settle_stale([](const std::string& id) { return id == "a"; });  // reattached
  auto caps = after.caps_for("a");
  EXPECT_EQ(budget_stop_reason(pods("a"), clock_.now(), caps, runpod_billing()), "")
      << "$0.10 + 30 s margin is under $0.15";
  auto rows = store_->spend_of_job("a");
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_NEAR(rows->front().usd, 0.10, 1e-6);
  clock_.advance(minutes(4) + seconds(40));  // $0.1467 + margin: crosses
  EXPECT_NE(budget_stop_reason(pods("a"), clock_.now(), caps, runpod_billing()), "");
}

// Issue 35: a running job kept the cap it started with, so raising the daily cap by a reload
// (SIGHUP) still budget-stopped it. Its guard now reads the cap as it is at each check.
TEST_F(LedgerTest, ARunningJobReadsTheCapAsItIsNowNotAsItWasAtStart) {
  Ledger ledger(*store_, clock_);
  ledger.set_caps(0.05, std::nullopt);
  ASSERT_EQ(ledger.reserve("a", spec_named("p")), "");
  job_with_pod("a", 0.60);  // $0.01 a minute
  auto caps = ledger.caps_for("a");
  clock_.advance(minutes(5) + seconds(30));  // $0.055: over the $0.05 it started with
  EXPECT_NE(budget_stop_reason(pods("a"), clock_.now(), caps, runpod_billing()), "");
  ledger.set_caps(0.50, std::nullopt);  // the operator raises it (a reload)
  EXPECT_EQ(budget_stop_reason(pods("a"), clock_.now(), caps, runpod_billing()), "")
      << "the raised cap holds the running job";
  ledger.set_caps(0.02, std::nullopt);  // and lowers it
  EXPECT_NE(budget_stop_reason(pods("a"), clock_.now(), caps, runpod_billing()), "");
  ledger.set_caps(std::nullopt, std::nullopt);  // and removes it
  EXPECT_EQ(budget_stop_reason(pods("a"), clock_.now(), caps, runpod_billing()), "");
}

// Issue 35: the team's caps in one place. A cap set in the store (`burst caps set`, any host)
// replaces burstd.yaml's of the same scope and period, holds new reservations, and reaches a
// job already running (within kStoredCapsTtl), even one that started with no cap at all.
TEST_F(LedgerTest, ACapSetInTheStoreReplacesTheFilesAndReachesARunningJob) {
  Ledger ledger(*store_, clock_);
  ledger.set_scoped_caps("ml", 10.0, std::nullopt, std::nullopt, std::nullopt);  // the file's
  ASSERT_EQ(ledger.reserve("a", spec_named("p")), "");
  job_with_pod("a", 0.60);  // $0.01 a minute
  auto caps = ledger.caps_for("a");
  clock_.advance(minutes(5) + seconds(30));  // $0.055 accrued
  EXPECT_EQ(budget_stop_reason(pods("a"), clock_.now(), caps, runpod_billing()), "");

  ASSERT_TRUE(store_->set_cap({"team", "ml", "day", std::nullopt, 0.05, "ana", 1}).ok());
  EXPECT_EQ(budget_stop_reason(pods("a"), clock_.now(), caps, runpod_billing()), "")
      << "not before the daemon asks the store again";
  clock_.advance(kStoredCapsTtl);
  const std::string stop = budget_stop_reason(pods("a"), clock_.now(), caps, runpod_billing());
  EXPECT_NE(stop.find("team ml cap per day (burst caps, set by ana)"), std::string::npos) << stop;

  ASSERT_TRUE(store_->set_cap({"team", "ml", "day", std::nullopt, std::nullopt, "ana", 2}).ok());
  ASSERT_TRUE(store_->set_cap({"pipeline", "p", "month", std::nullopt, 0.04, "bo", 3}).ok());
  clock_.advance(kStoredCapsTtl);
  const std::string by_pipeline =
      budget_stop_reason(pods("a"), clock_.now(), caps, runpod_billing());
  EXPECT_NE(by_pipeline.find("pipeline p cap per month (burst caps, set by bo)"), std::string::npos)
      << "a cap that did not exist when the job started holds it: " << by_pipeline;
  EXPECT_NE(ledger.reserve("b", spec_named("p", 0.01)), "") << "and holds new jobs of p";
  EXPECT_EQ(ledger.reserve("c", spec_named("q", 0.01)), "") << "not other pipelines'";

  ASSERT_TRUE(
      store_->set_cap({"pipeline", "p", "month", std::nullopt, std::nullopt, "bo", 4}).ok());
  ASSERT_TRUE(store_->set_cap({"user", "*", "day", std::nullopt, 0.0, "bo", 5}).ok());
  clock_.advance(kStoredCapsTtl);
  EXPECT_EQ(budget_stop_reason(pods("a"), clock_.now(), caps, runpod_billing()), "")
      << "a job no user submitted falls under no user cap";
}

TEST(BillingClock, AWallClockSteppedBackKeepsTheBudgetCheckOnTime) {
  FakeClock wall;
  auto mono = std::chrono::steady_clock::time_point();
  BillingClock billing([&] { return mono; });
  PodRecord p;
  p.provider = "runpod";
  p.state = PodRecordState::kAlive;
  p.usd_per_hour = 3.60;  // $0.001 a second
  p.created_ms = to_unix_ms(wall.now());
  const std::vector<BudgetCap> caps{{0.10, "budget.max_usd"}};
  wall.advance(seconds(60));
  mono += seconds(60);
  EXPECT_EQ(budget_stop_reason({p}, billing.now(wall.now()), caps, runpod_billing()), "");
  wall.advance(-std::chrono::hours(1));  // NTP steps the wall clock back an hour
  mono += seconds(20);
  const TimePoint t = billing.now(wall.now());
  EXPECT_EQ(to_unix_ms(t) - p.created_ms, 80000) << "80 s of monotonic time have passed";
  EXPECT_NE(budget_stop_reason({p}, t, caps, runpod_billing()), "")
      << "80 s + 30 s margin crosses $0.10";
}

}  // namespace
}  // namespace burst::daemon

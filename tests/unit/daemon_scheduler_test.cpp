// burstd's scheduler, driven by a FakeClock: cron fires, no self-overlap, the concurrency limit,
// the missed-run policy on start, cancel and drain. Jobs run through FakeJobLauncher, which
// blocks until the test releases them, so "running" is a state the test controls.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "daemon/pipelines.h"
#include "daemon/scheduler.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"
#include "fakes/temp_dir.h"

namespace burst::daemon {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

PipelineSpec scheduler_spec(const std::string& name, const std::string& cron = "",
                            bool overlap = false, const std::string& missed = "run-once") {
  PipelineSpec s;
  s.name = name;
  s.path = "/specs/" + name + ".yaml";
  s.run = "true";
  if (!cron.empty()) {
    Schedule sch;
    sch.cron = cron;
    sch.overlap = overlap;
    sch.missed = missed;
    s.schedule = sch;
  }
  return s;
}

ScheduledPipeline scheduled(const std::string& name, const std::string& cron, bool overlap = false,
                            const std::string& missed = "run-once") {
  auto compiled = compile_schedule(scheduler_spec(name, cron, overlap, missed));
  EXPECT_TRUE(compiled.ok()) << compiled.error().message;
  return std::move(*compiled);
}

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_sqlite_store(":memory:");
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    launcher_ = std::make_unique<FakeJobLauncher>(*store_);
    launcher_->block = true;
  }
  void TearDown() override {
    launcher_->release_all();
    sched_.reset();
  }
  Scheduler& make(int max_concurrent = 2) {
    SchedulerOptions opt;
    opt.max_concurrent = max_concurrent;
    opt.log = [this](const std::string& l) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_.push_back(l);
    };
    sched_ = std::make_unique<Scheduler>(clock_, *store_, *launcher_, opt);
    return *sched_;
  }
  int count_jobs(const std::string& state) {
    auto jobs = store_->recent_jobs(100);
    int n = 0;
    for (const auto& j : *jobs) n += to_string(j.state) == state;
    return n;
  }
  bool logged(const std::string& needle) {
    std::lock_guard<std::mutex> lock(log_mu_);  // the loop's thread logs too
    for (const auto& l : log_)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }
  // Bounded real-time waits for what the loop's thread does (the fake clock never moves here).
  template <typename Pred>
  static bool eventually(Pred pred) {
    for (int i = 0; i < 2000 && !pred(); ++i) std::this_thread::sleep_for(milliseconds(5));
    return pred();
  }
  bool wait_for_sleepers(int n) {
    return eventually([&] { return clock_.waiting() >= n; });
  }

  FakeClock clock_;  // 2026-01-01T00:00:00Z
  std::unique_ptr<Store> store_;
  std::unique_ptr<FakeJobLauncher> launcher_;
  std::unique_ptr<Scheduler> sched_;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

TEST_F(SchedulerTest, EveryMinuteRunsTwiceAndNeverOverlapsItself) {
  Scheduler& s = make();
  s.set_pipelines({scheduled("nightly", "* * * * *")}, /*apply_missed=*/true);
  EXPECT_EQ(s.tick(), from_unix_ms(1767225600000 + 60000)) << "next fire 00:01";
  EXPECT_TRUE(launcher_->started().empty()) << "nothing is due at start";

  clock_.advance(minutes(1));  // 00:01: first run
  s.tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  clock_.advance(minutes(1));  // 00:02: the first run is still going
  s.tick();
  EXPECT_EQ(s.jobs().size(), 1u) << "the 00:02 fire is skipped, not queued";
  EXPECT_TRUE(logged("skipped: its previous run is still going"));

  launcher_->release_all();
  ASSERT_TRUE(s.wait_idle(seconds(10)));
  clock_.advance(minutes(1));  // 00:03: second run
  s.tick();
  ASSERT_TRUE(launcher_->wait_started(2));
  ASSERT_TRUE(s.wait_idle(seconds(10)));

  EXPECT_EQ(launcher_->started().size(), 2u);
  EXPECT_EQ(launcher_->max_active(), 1);
  EXPECT_EQ(count_jobs("succeeded"), 2);
  auto last = store_->last_fire("nightly");
  ASSERT_TRUE(last.ok() && last->has_value());
  EXPECT_EQ(format_utc(from_unix_ms(**last)), "2026-01-01T00:03:00Z");
}

TEST_F(SchedulerTest, OverlapTrueLetsTheNextFireStartWhileThePreviousRuns) {
  Scheduler& s = make();
  s.set_pipelines({scheduled("often", "* * * * *", /*overlap=*/true)}, true);
  clock_.advance(minutes(1));
  s.tick();
  clock_.advance(minutes(1));
  s.tick();
  ASSERT_TRUE(launcher_->wait_started(2));
  EXPECT_EQ(launcher_->max_active(), 2);
}

TEST_F(SchedulerTest, ConcurrencyLimitHoldsTheRestInTheQueue) {
  Scheduler& s = make(/*max_concurrent=*/2);
  for (int i = 0; i < 5; ++i) s.submit(scheduler_spec("p" + std::to_string(i)), "submitted");
  s.tick();
  ASSERT_TRUE(launcher_->wait_started(2));
  EXPECT_EQ(s.running_count(), 2);
  int queued = 0;
  for (const auto& j : s.jobs()) queued += j.state == JobState::kQueued;
  EXPECT_EQ(queued, 3);

  launcher_->block = false;
  launcher_->release_all();
  for (int round = 0; round < 5 && launcher_->started().size() < 5; ++round) {
    ASSERT_TRUE(s.wait_idle(seconds(10)));
    s.tick();
  }
  ASSERT_TRUE(s.wait_idle(seconds(10)));
  EXPECT_EQ(launcher_->started().size(), 5u);
  EXPECT_EQ(launcher_->max_active(), 2);
  EXPECT_EQ(count_jobs("succeeded"), 5);
}

TEST_F(SchedulerTest, SubmittedRunOfABusyPipelineWaitsForThePreviousOne) {
  Scheduler& s = make(4);
  s.submit(scheduler_spec("same"), "submitted");
  s.submit(scheduler_spec("same"), "submitted");
  s.tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  EXPECT_EQ(s.running_count(), 1) << "the second waits: overlap is false";
  launcher_->block = false;
  launcher_->release_all();
  ASSERT_TRUE(s.wait_idle(seconds(10)));
  s.tick();
  ASSERT_TRUE(launcher_->wait_started(2));
  EXPECT_EQ(launcher_->max_active(), 1);
}

TEST_F(SchedulerTest, MissedRunOncePolicyRunsOnceOnStart) {
  ASSERT_TRUE(store_->set_last_fire("hourly", 1767225600000).ok());  // 00:00
  clock_.advance(minutes(5 * 60 + 30));                              // 05:30: 5 fires missed
  Scheduler& s = make();
  s.set_pipelines({scheduled("hourly", "@hourly")}, true);
  auto jobs = s.jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].reason, "missed run (run-once, 5 fire time(s) missed)");
  EXPECT_EQ(format_utc(from_unix_ms(**store_->last_fire("hourly"))), "2026-01-01T05:00:00Z");
  EXPECT_EQ(format_utc(*s.next_fire("hourly")), "2026-01-01T06:00:00Z");
}

// A team's daemons on one store listing the same pipeline (docs/daemon.md, "Leases"): each fire
// time becomes one job, whichever daemon claims it, on start (catch-up) and on the clock.
TEST_F(SchedulerTest, TwoDaemonsOnOneStoreFireEachScheduledTimeOnce) {
  ASSERT_TRUE(store_->set_last_fire("hourly", 1767225600000).ok());  // 00:00
  clock_.advance(minutes(5 * 60 + 30));                              // 05:30: 5 fires missed
  auto jobs_made = [this] { return store_->queued_jobs().value().size(); };
  // No slots (max_concurrent 0): nothing starts, so every job either daemon made stays a queue
  // row (a started job's row and the launcher's record of it are not in step; the test raced).
  Scheduler& a = make(0);
  std::vector<std::string> b_log;
  SchedulerOptions b_opt;
  b_opt.max_concurrent = 0;
  b_opt.log = [&b_log](const std::string& l) { b_log.push_back(l); };
  Scheduler b(clock_, *store_, *launcher_, b_opt);
  a.set_pipelines({scheduled("hourly", "@hourly")}, true);
  b.set_pipelines({scheduled("hourly", "@hourly")}, true);
  EXPECT_EQ(jobs_made(), 1u) << "one catch-up run, not one per daemon";

  clock_.advance(minutes(31));  // 06:01: the 06:00 fire is due on both
  b.tick();
  a.tick();
  EXPECT_EQ(jobs_made(), 2u) << "the 06:00 fire queued once";
  bool told = false;
  for (const auto& l : b_log) told = told || l.find("another burstd") != std::string::npos;
  EXPECT_TRUE(told || logged("taken by another burstd on this store"))
      << "the daemon that lost a claim says so";
  EXPECT_TRUE(launcher_->started().empty());
}

TEST_F(SchedulerTest, MissedSkipPolicyDropsThemAndRecordsTheLatest) {
  ASSERT_TRUE(store_->set_last_fire("hourly", 1767225600000).ok());
  clock_.advance(minutes(5 * 60 + 30));
  Scheduler& s = make();
  s.set_pipelines({scheduled("hourly", "@hourly", false, "skip")}, true);
  EXPECT_TRUE(s.jobs().empty());
  EXPECT_TRUE(logged("skipped 5 fire time(s) missed while burstd was down"));
  EXPECT_EQ(format_utc(from_unix_ms(**store_->last_fire("hourly"))), "2026-01-01T05:00:00Z");
}

TEST_F(SchedulerTest, NewPipelineIsRecordedAsFiredNowSoALaterRestartCatchesUp) {
  Scheduler& s = make();
  s.set_pipelines({scheduled("fresh", "@hourly")}, true);
  EXPECT_TRUE(s.jobs().empty());
  EXPECT_EQ(format_utc(from_unix_ms(**store_->last_fire("fresh"))), "2026-01-01T00:00:00Z");
}

TEST_F(SchedulerTest, CancelDropsAQueuedJobAndInterruptsARunningOne) {
  Scheduler& s = make(1);
  std::string a = s.submit(scheduler_spec("a"), "submitted");
  std::string b = s.submit(scheduler_spec("b"), "submitted");
  s.tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  ASSERT_TRUE(s.cancel(b).ok());
  auto rec = store_->get_job(b);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->state, JobState::kInterrupted);
  EXPECT_EQ(rec->error, "cancelled while queued; nothing was created");

  ASSERT_TRUE(s.cancel(a).ok());
  ASSERT_TRUE(s.wait_idle(seconds(10)));
  EXPECT_EQ(store_->get_job(a)->state, JobState::kInterrupted);
  EXPECT_EQ(s.cancel("nope").error().code, ErrorCode::kNotFound);
}

TEST_F(SchedulerTest, DrainStartsNothingNewAndDropsFires) {
  Scheduler& s = make();
  s.set_pipelines({scheduled("m", "* * * * *")}, true);
  s.submit(scheduler_spec("q"), "submitted");
  s.drain();
  clock_.advance(minutes(1));
  s.tick();
  EXPECT_TRUE(launcher_->started().empty());
  EXPECT_TRUE(logged("dropped: burstd is draining"));
}

TEST_F(SchedulerTest, LoopWakesWhenToldBeforeItsFireTime) {
  Scheduler& s = make();
  s.set_pipelines({scheduled("loop", "*/5 * * * *")}, true);
  std::thread loop([&] { s.run_loop(); });
  ASSERT_TRUE(wait_for_sleepers(1));
  s.submit(scheduler_spec("adhoc"), "submitted");  // a submit wakes the loop; the clock stays put
  EXPECT_TRUE(launcher_->wait_started(1));
  EXPECT_EQ(launcher_->started().at(0).rfind("adhoc:", 0), 0u);
  s.stop();
  loop.join();
}

// The loop, not the test, fires the schedule: `* * * * *` on a FakeClock whose advance() ends the
// loop's timed wait (no wake()). Each run outlasts a minute, so the next fire comes while it is
// going: it is skipped, and the two runs never overlap.
TEST_F(SchedulerTest, LoopFiresEveryMinuteOnTheClockAndNeverOverlaps) {
  Scheduler& s = make();
  s.set_pipelines({scheduled("tick", "* * * * *")}, true);
  std::thread loop([&] { s.run_loop(); });
  ASSERT_TRUE(wait_for_sleepers(1));
  EXPECT_TRUE(launcher_->started().empty()) << "nothing is due before 00:01";

  clock_.advance(minutes(1));  // 00:01: the loop wakes by itself and fires
  ASSERT_TRUE(launcher_->wait_started(1));
  ASSERT_TRUE(wait_for_sleepers(1));
  clock_.advance(minutes(1));  // 00:02: the first run is still going
  ASSERT_TRUE(eventually([&] { return logged("skipped: its previous run is still going"); }));
  EXPECT_EQ(s.jobs().size(), 1u) << "the 00:02 fire is skipped, not queued";

  launcher_->release_all();
  ASSERT_TRUE(s.wait_idle(seconds(10)));
  ASSERT_TRUE(wait_for_sleepers(1));
  clock_.advance(minutes(1));  // 00:03: second run
  ASSERT_TRUE(launcher_->wait_started(2));
  ASSERT_TRUE(s.wait_idle(seconds(10)));
  s.stop();
  loop.join();

  EXPECT_EQ(launcher_->max_active(), 1);
  EXPECT_EQ(count_jobs("succeeded"), 2);
  auto last = store_->last_fire("tick");
  ASSERT_TRUE(last.ok() && last->has_value());
  EXPECT_EQ(format_utc(from_unix_ms(**last)), "2026-01-01T00:03:00Z");
}

TEST_F(SchedulerTest, StopEndsALoopThatWaitsForNothing) {
  Scheduler& s = make();
  std::thread loop([&] { s.run_loop(); });  // no pipelines: an untimed wait
  ASSERT_TRUE(wait_for_sleepers(1));
  s.stop();
  loop.join();
}

TEST(DaemonStore, LastFireIsAbsentUntilSetAndThenReplaced) {
  auto store = open_sqlite_store(":memory:").value();
  auto none = store->last_fire("p");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(store->set_last_fire("p", 5).ok());
  ASSERT_TRUE(store->set_last_fire("p", 7).ok());
  EXPECT_EQ(**store->last_fire("p"), 7);
  EXPECT_FALSE(store->last_fire("other")->has_value());
}

TEST(DaemonPipelines, InvalidCronIsRejectedWithFileLineColumnAndField) {
  TempDir dir;
  dir.write("bad.yaml", "name: bad\nrun: echo hi\nschedule:\n  cron: \"0 25 * * *\"\n");
  dir.write("good.yaml", "name: good\nrun: echo hi\nschedule: {cron: \"@daily\"}\n");
  dir.write("plain.yaml", "name: plain\nrun: echo hi\n");
  DaemonConfig c;
  c.pipelines_dir = dir.path();
  PipelineLoad load = load_pipelines(c);
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_EQ(load.errors[0],
            dir.path() + "/bad.yaml:4:12: schedule.cron: hour: 25 is out of range 0-23");
  ASSERT_EQ(load.scheduled.size(), 1u);
  EXPECT_EQ(load.scheduled[0].spec.name, "good");
  EXPECT_EQ(load.unscheduled.size(), 1u);
}

}  // namespace
}  // namespace burst::daemon

// The job watchdog (job/job_watchdog.h) on a FakeClock, with check() called as its thread would:
// which deadline fires and what it is called, and that sessions are aborted only once the job
// thread has shown no progress for the grace period after a stop.
#include "job/job_watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "fakes/fake_clock.h"

namespace burst {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class CountingSession : public RemoteSession {
 public:
  Result<int> exec(const std::string&, const OutputSink&, const std::function<bool()>&) override {
    return 0;
  }
  Result<std::string> run_capture(const std::string&) override { return std::string(); }
  Status upload(const std::string&, const std::string&, uint32_t, int64_t) override {
    return Status::Ok();
  }
  Status write_file(const std::string&, const std::string&, uint32_t) override {
    return Status::Ok();
  }
  Status mkdirs(const std::string&, uint32_t) override { return Status::Ok(); }
  Result<RemoteFileInfo> stat(const std::string&) override { return RemoteFileInfo{}; }
  Status download(const std::string&, const std::string&) override { return Status::Ok(); }
  void abort() override { ++aborts; }
  std::atomic<int> aborts{0};
};

struct Fixture {
  FakeClock clock;
  std::atomic<int> interrupts{0};
  std::vector<PodRecord> pods;
  WatchdogConfig config;
  Fixture() {  // the tests count from 5 s, whatever the defaults
    config.grace = seconds(5);
    config.deadline_grace = seconds(5);
  }
  std::unique_ptr<JobWatchdog> dog;
  void make() {
    dog = std::make_unique<JobWatchdog>(
        clock, [this] { return interrupts.load(); }, [this] { return pods; }, config);
  }
};

TEST(JobWatchdog, NothingFiresWhileEveryLimitHolds) {
  Fixture f;
  f.config.caps = {{1.0, "budget.max_usd"}};
  f.make();
  CountingSession s;
  f.dog->attach(&s);
  f.dog->set_runtime_limit(f.clock.now(), 30);
  f.clock.advance(seconds(29));
  EXPECT_EQ(f.dog->check(), "");
  EXPECT_FALSE(f.dog->fired());
  EXPECT_EQ(s.aborts, 0);
}

TEST(JobWatchdog, MaxRuntimeFiresAndAStuckJobHasItsSessionsAborted) {
  Fixture f;
  f.make();
  CountingSession s;
  f.dog->attach(&s);
  f.dog->set_runtime_limit(f.clock.now(), 30);
  f.clock.advance(seconds(31));
  EXPECT_EQ(f.dog->check(), "stopped: budget.max_runtime (30 s) reached");
  EXPECT_EQ(s.aborts, 0) << "the job thread gets the grace period to stop by itself";
  f.clock.advance(seconds(4));
  f.dog->check();
  EXPECT_EQ(s.aborts, 0);
  f.clock.advance(seconds(1));
  f.dog->check();
  EXPECT_EQ(s.aborts, 1);
  EXPECT_TRUE(f.dog->aborted());
}

TEST(JobWatchdog, AJobThatKeepsMovingAfterAStopIsNotAborted) {
  // A healthy pull after Ctrl-C keeps reporting progress: it is left to finish.
  Fixture f;
  f.make();
  CountingSession s;
  f.dog->attach(&s);
  f.interrupts = 1;
  EXPECT_EQ(f.dog->check(), "stopped: Ctrl-C or SIGTERM");
  for (int i = 0; i < 10; ++i) {
    f.clock.advance(seconds(2));
    f.dog->progress();
    f.dog->check();
  }
  EXPECT_EQ(s.aborts, 0);
  EXPECT_FALSE(f.dog->aborted());
  f.clock.advance(seconds(6));
  f.dog->check();
  EXPECT_EQ(s.aborts, 1);
}

TEST(JobWatchdog, TheStopRequestNamesItsSource) {
  Fixture f;
  f.config.stop_source = "burst cancel or burstd drain";
  f.make();
  f.interrupts = 1;
  EXPECT_EQ(f.dog->check(), "stopped: burst cancel or burstd drain");
}

TEST(JobWatchdog, TheMoneyCapFiresOnTheStoresPods) {
  Fixture f;
  f.config.caps = {{0.10, "budget.max_usd"}};
  PodRecord p;
  p.row_id = 1;
  p.provider = "runpod";
  p.state = PodRecordState::kAlive;
  p.usd_per_hour = 3.60;  // $0.001 a second
  p.created_ms = to_unix_ms(f.clock.now());
  f.pods = {p};
  f.make();
  f.clock.advance(seconds(60));
  EXPECT_EQ(f.dog->check(), "");
  f.clock.advance(seconds(11));
  EXPECT_EQ(f.dog->check(),
            "stopped by budget: accrued $0.1010 would cross cap $0.1000 (budget.max_usd)");
}

TEST(JobWatchdog, TheRuntimeLimitEndsWithTheTeardownAndTheFirstReasonStays) {
  Fixture f;
  f.make();
  f.dog->set_runtime_limit(f.clock.now(), 10);
  f.dog->clear_runtime_limit();
  f.clock.advance(seconds(60));
  EXPECT_EQ(f.dog->check(), "");
  f.interrupts = 1;
  EXPECT_EQ(f.dog->check(), "stopped: Ctrl-C or SIGTERM");
  f.dog->set_runtime_limit(f.clock.now() - seconds(100), 10);
  EXPECT_EQ(f.dog->check(), "stopped: Ctrl-C or SIGTERM");
}

TEST(JobWatchdog, TheDeadlineAbortsEvenAJobThatKeepsMoving) {
  // A sync or pull that trickles bytes past budget.deadline has no stop of its own: the
  // deadline does not wait for it to go quiet (issue 29).
  Fixture f;
  f.make();
  CountingSession s;
  f.dog->attach(&s);
  f.dog->set_deadline(f.clock.now(), 20);
  f.clock.advance(seconds(20));
  EXPECT_EQ(f.dog->check(), "");
  EXPECT_FALSE(f.dog->deadline_passed());
  f.clock.advance(seconds(1));
  EXPECT_EQ(f.dog->check(), "stopped: budget.deadline (20 s) reached");
  EXPECT_TRUE(f.dog->deadline_passed());
  for (int i = 0; i < 4; ++i) {
    f.clock.advance(seconds(1));
    f.dog->progress();
    f.dog->check();
  }
  EXPECT_EQ(s.aborts, 0) << "the job thread gets the grace period to stop its step";
  f.clock.advance(seconds(1));
  f.dog->progress();
  f.dog->check();
  EXPECT_EQ(s.aborts, 1);
  CountingSession later;  // a session opened after the deadline is aborted too
  f.dog->attach(&later);
  f.dog->progress();
  f.dog->check();
  EXPECT_EQ(later.aborts, 1);
}

TEST(JobWatchdog, TheDeadlinePassingAfterCtrlCStillHardensTheStop) {
  // Ctrl-C first lets a moving pull finish; the deadline passing later does not.
  Fixture f;
  f.make();
  CountingSession s;
  f.dog->attach(&s);
  f.dog->set_deadline(f.clock.now(), 20);
  f.interrupts = 1;
  EXPECT_EQ(f.dog->check(), "stopped: Ctrl-C or SIGTERM");
  for (int i = 0; i < 20; ++i) {
    f.clock.advance(seconds(1));
    f.dog->progress();
    f.dog->check();
  }
  EXPECT_EQ(s.aborts, 0);
  f.clock.advance(seconds(1));
  f.dog->progress();
  f.dog->check();
  EXPECT_TRUE(f.dog->deadline_passed());
  EXPECT_EQ(f.dog->deadline_reason(), "stopped: budget.deadline (20 s) reached");
  EXPECT_EQ(f.dog->reason(), "stopped: Ctrl-C or SIGTERM") << "the first reason stays";
  f.clock.advance(seconds(5));
  f.dog->progress();
  f.dog->check();
  EXPECT_EQ(s.aborts, 1);
}

TEST(JobWatchdog, ADetachedSessionIsNeverAborted) {
  Fixture f;
  f.make();
  CountingSession s;
  f.dog->attach(&s);
  f.dog->detach(&s);
  f.interrupts = 1;
  f.dog->check();
  f.clock.advance(seconds(60));
  f.dog->check();
  EXPECT_EQ(s.aborts, 0);
}

TEST(JobWatchdog, ItsThreadAbortsABlockedSessionWithoutTheJobThread) {
  // The job thread is "blocked": nothing calls check() or progress(); the thread does it alone.
  Fixture f;
  f.config.period = milliseconds(5);
  f.config.grace = seconds(0);
  f.make();
  CountingSession s;
  f.dog->attach(&s);
  f.dog->start();
  f.interrupts = 1;  // read by the watchdog's thread only after the store below is visible
  for (int i = 0; i < 400 && s.aborts == 0; ++i) std::this_thread::sleep_for(milliseconds(5));
  f.dog->stop();
  EXPECT_GE(s.aborts, 1);
  EXPECT_EQ(f.dog->reason(), "stopped: Ctrl-C or SIGTERM");
}

}  // namespace
}  // namespace burst

// The scheduler never holds its state lock over a store call (daemon/scheduler.h): with a store
// whose calls block like a slow PostgreSQL round trip (fakes/gated_store.h), jobs(), the running
// count and a job's end still answer while a tick waits in the store. And wait_idle() waits on
// the injected clock, as its contract says. Every wait here is bounded: a scheduler that holds
// its lock over the store fails these tests in seconds, it does not hang them.
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "daemon/scheduler.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"
#include "fakes/gated_store.h"

namespace burst::daemon {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

PipelineSpec io_spec(const std::string& name) {
  PipelineSpec s;
  s.name = name;
  s.path = "/specs/" + name + ".yaml";
  s.run = "true";
  return s;
}

class SchedulerStoreIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_sqlite_store(":memory:");
    ASSERT_TRUE(s.ok());
    real_ = std::move(*s);
    store_ = std::make_unique<GatedStore>(*real_);
    launcher_ = std::make_unique<FakeJobLauncher>(*real_);
    launcher_->block = true;
    SchedulerOptions opt;
    opt.max_concurrent = 1;
    sched_ = std::make_unique<Scheduler>(clock_, *store_, *launcher_, opt);
  }
  void TearDown() override {
    store_->open();
    if (ticker_.joinable()) ticker_.join();
    launcher_->release_all();
    sched_.reset();
  }
  // Runs tick() on its own thread; it blocks in the first armed store call.
  void tick_in_background() {
    ticker_ = std::thread([this] { sched_->tick(); });
  }
  // Runs `f` on another thread and says whether it returned within two seconds (a scheduler that
  // holds its lock over the store makes it wait for the gate: then the gate opens, so the test
  // fails at once rather than hanging).
  template <typename F>
  bool answers(F f) {
    auto done = std::async(std::launch::async, std::move(f));
    if (done.wait_for(seconds(2)) == std::future_status::ready) return true;
    store_->open();
    return false;
  }

  FakeClock clock_;
  std::unique_ptr<Store> real_;
  std::unique_ptr<GatedStore> store_;
  std::unique_ptr<FakeJobLauncher> launcher_;
  std::unique_ptr<Scheduler> sched_;
  std::thread ticker_;
};

TEST_F(SchedulerStoreIoTest, JobsAnswersWhileATickWaitsToClaimAJob) {
  const std::string id = sched_->submit(io_spec("waits"), "submitted");
  ASSERT_FALSE(id.empty());
  store_->arm({"claim_queued"});
  tick_in_background();
  ASSERT_TRUE(store_->wait_entered()) << "the tick claims the queued job from the store";

  std::vector<JobView> seen;
  EXPECT_TRUE(answers([&] { seen = sched_->jobs(); })) << "jobs() waited for the store";
  EXPECT_TRUE(answers([&] { (void)sched_->running_count(); }));
  EXPECT_TRUE(answers([&] { (void)sched_->next_fire("waits"); }));
  store_->open();
  ticker_.join();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].id, id);
  EXPECT_EQ(seen[0].state, JobState::kQueued) << "still queued while its claim was in flight";
  ASSERT_TRUE(launcher_->wait_started(1)) << "the claim went through once the store answered";
  EXPECT_EQ(sched_->jobs().at(0).state, JobState::kRunning);
}

TEST_F(SchedulerStoreIoTest, ARunningJobEndsAndIsCancelledWhileATickWaitsInTheStore) {
  const std::string running = sched_->submit(io_spec("running"), "submitted");
  sched_->tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  const std::string queued = sched_->submit(io_spec("queued"), "submitted");
  // The next tick reads the queue's rows and renews leases: a slow store at each.
  clock_.advance(seconds(20));
  store_->arm({"queued_jobs", "renew_lease"});
  tick_in_background();
  ASSERT_TRUE(store_->wait_entered());

  EXPECT_TRUE(answers([&] { return sched_->is_running(running); }));
  EXPECT_TRUE(answers([&] { (void)sched_->cancel(running); })) << "cancel waited for the store";
  EXPECT_TRUE(answers([&] { return sched_->wait_idle(minutes(1)); }))
      << "the job's end waited for the store (" << store_->entered() << ")";
  EXPECT_EQ(sched_->running_count(), 0);
  std::vector<JobView> left = sched_->jobs();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].id, queued);
}

TEST_F(SchedulerStoreIoTest, WaitIdleTimesOutOnTheInjectedClock) {
  sched_->submit(io_spec("long"), "submitted");
  sched_->tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  auto idle = std::async(std::launch::async, [&] { return sched_->wait_idle(minutes(10)); });
  struct EndJobOnExit {  // a wait_idle() on real time would hold the future's destructor 10 min
    FakeJobLauncher& launcher;
    ~EndJobOnExit() { launcher.release_all(); }
  } end_job{*launcher_};
  // The wait sleeps on a Waiter of the FakeClock: only the clock ends it, never real time.
  bool waiting = false;
  for (int i = 0; i < 1000 && !waiting; ++i) {
    waiting = clock_.waiting() > 0;
    if (!waiting) std::this_thread::sleep_for(milliseconds(5));
  }
  ASSERT_TRUE(waiting) << "wait_idle() does not wait on the clock";
  EXPECT_EQ(idle.wait_for(milliseconds(100)), std::future_status::timeout);
  clock_.advance(minutes(9));
  EXPECT_EQ(idle.wait_for(milliseconds(100)), std::future_status::timeout) << "9 of 10 minutes";
  clock_.advance(minutes(1));
  ASSERT_EQ(idle.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_FALSE(idle.get()) << "the job still runs: not idle";
  launcher_->release_all();
  EXPECT_TRUE(sched_->wait_idle(minutes(1)));
}

}  // namespace
}  // namespace burst::daemon

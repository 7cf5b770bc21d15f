// `burst reap`, the real binary, on a job whose recorded owner pid now belongs to another live
// process: the start time differs, so the job is failed (burstd judges it the same way:
// ReaperTest.ReusedOwnerPidIsDeadToBurstd). The same pid with its own start time is left alone.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>

#include "burst/store.h"
#include "e2e/burst_harness.h"
#include "util/proc_start.h"

namespace burst::testing {
namespace {

void record_running_job(const BurstHome& home, const std::string& id, pid_t owner,
                        const std::string& start) {
  std::filesystem::create_directories(home.state());
  auto store = open_sqlite_store(home.state() + "/burst.db");
  ASSERT_TRUE(store.ok()) << store.error().message;
  JobRecord job;
  job.id = id;
  job.pipeline = "reused";
  job.state = JobState::kRunning;
  job.phase = Phase::kPlan;
  job.provider = "local";
  job.owner_pid = owner;
  job.owner_start = start;
  ASSERT_TRUE((*store)->create_job(job).ok());
}

TEST(E2EReap, AJobWhoseOwnerPidNowBelongsToAnotherProcessIsFailed) {
  BurstHome home;
  const pid_t other = spawn_logged({"/bin/sleep", "60"}, {}, "/dev/null", "/dev/null");
  ASSERT_GT(other, 0);
  record_running_job(home, "j-alive", other, process_start_time(other));
  record_running_job(home, "j-reused", other, "an earlier process/1234");

  std::string out, err;
  EXPECT_EQ(run_burst(home, {"reap"}, &out, &err), 0) << out << err;
  EXPECT_NE(out.find("job j-reused: recorded as failed: the process running it (pid " +
                     std::to_string(other) +
                     ") stopped during phase plan; burst reap failed the job; no pod was alive"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("j-alive"), std::string::npos) << "its owner lives: " << out;
  auto store = open_sqlite_store(home.state() + "/burst.db");
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->get_job("j-reused")->state, JobState::kFailed);
  EXPECT_EQ((*store)->get_job("j-alive")->state, JobState::kRunning);
  ::kill(other, SIGKILL);
  ::waitpid(other, nullptr, 0);
}

}  // namespace
}  // namespace burst::testing

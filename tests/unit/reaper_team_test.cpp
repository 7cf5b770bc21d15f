// Issue 35: a team on separate hosts shares one store, so "is this job alive" must mean the same on
// every host. A daemon's job (a queue row) lives while its lease does, plus the takeover grace,
// whatever a member's laptop sees of the daemon's pid; a `burst run` job's pid is judged only on
// the host that recorded it; a pod another host deleted first ends its bill at that delete.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/reaper.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_provider.h"
#include "fakes/forward_provider.h"
#include "fakes/temp_dir.h"
#include "job/pod_lifecycle.h"
#include "util/proc_start.h"

namespace burst {
namespace {

using std::chrono::minutes;

// A pid that names no process: a child that has exited and been reaped.
int64_t dead_pid() {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

// BURST_HOST_ID for one test: this test process plays one host of the team.
class AsHost {
 public:
  explicit AsHost(const char* id) { setenv("BURST_HOST_ID", id, 1); }
  ~AsHost() { unsetenv("BURST_HOST_ID"); }
};

class ReaperTeamTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = open_sqlite_store(":memory:").value(); }
  ReaperDeps deps() {
    return ReaperDeps{*store_,
                      clock_,
                      {"fake"},
                      [this](const std::string&) -> Result<std::unique_ptr<Provider>> {
                        return std::unique_ptr<Provider>(std::make_unique<ForwardProvider>(cloud_));
                      },
                      {},
                      dir_.path(),
                      "burst reap"};
  }
  // A running job with a live GPU pod, its owner recorded as (pid, start).
  std::string running_job(const std::string& id, int64_t pid, const std::string& start) {
    JobRecord job;
    job.id = id;
    job.pipeline = "tts";
    job.state = JobState::kRunning;
    job.phase = Phase::kRun;
    job.provider = "fake";
    job.owner_pid = pid;
    job.owner_start = start;
    EXPECT_TRUE(store_->create_job(job).ok());
    Pod pod = cloud_.add_existing(pod_name(*store_->installation_id(), id, "gpu"));
    PodRecord rec;
    rec.job_id = id;
    rec.provider = "fake";
    rec.role = "gpu";
    rec.name = pod.name;
    rec.pod_id = pod.id;
    rec.state = PodRecordState::kAlive;
    rec.created_ms = to_unix_ms(clock_.now());
    EXPECT_TRUE(store_->add_pod(rec).ok());
    return pod.name;
  }
  // The job's queue row, claimed by a daemon on another host for `lease`.
  void leased(const std::string& id, Duration lease) {
    QueuedJobRecord q;
    q.id = id;
    q.pipeline = "tts";
    q.spec_path = "/specs/tts.yaml";
    q.queued_ms = to_unix_ms(clock_.now());
    ASSERT_TRUE(store_->add_queued(q).ok());
    auto claimed = store_->claim_queued("daemon-host|4242|1|daemon-host@boot/1",
                                        to_unix_ms(clock_.now()), lease.count());
    ASSERT_TRUE(claimed.ok() && *claimed);
  }

  TempDir dir_;
  FakeClock clock_;
  FakeProvider cloud_;
  std::unique_ptr<Store> store_;
};

TEST(ProcStartAcrossHosts, APidRecordedOnAnotherHostIsNotJudgedHere) {
  const int64_t gone = dead_pid();
  AsHost laptop("laptop");
  EXPECT_FALSE(same_process_alive(gone, "laptop@boot/1")) << "this host's dead pid: dead";
  EXPECT_TRUE(same_process_alive(gone, "daemon-host@boot/1"))
      << "another host's pid: only its own host (or its lease) can tell";
  EXPECT_EQ(process_start_time(getpid()).rfind("laptop@", 0), 0u) << "the token names its host";
  EXPECT_TRUE(same_process_alive(getpid(), process_start_time(getpid())));
}

// On main a member's `burst reap` judged a burstd job by a pid of the daemon's host and deleted
// its pod while the daemon ran it. A live lease now keeps it, however the pid looks from here.
TEST_F(ReaperTeamTest, AMembersReapLeavesADaemonsLeasedJobAlone) {
  const std::string pod = running_job("j1", dead_pid(), "boot/1");  // a pid that means nothing here
  leased("j1", std::chrono::seconds(30));
  Reaper reaper(deps());
  auto actions = reaper.reap(ReapOptions{});
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].kind, ReapOutcome::kSkipped) << actions[0].outcome;
  EXPECT_TRUE(cloud_.exists_named(pod));
  EXPECT_EQ(store_->get_job("j1")->state, JobState::kRunning);

  clock_.advance(minutes(5));  // the lease ended: the team's other daemons take it over
  EXPECT_TRUE(reaper.job_alive(*store_->get_job("j1")));
  clock_.advance(minutes(6));  // and none did within the grace: nobody will finish it
  EXPECT_FALSE(reaper.job_alive(*store_->get_job("j1")));
  actions = reaper.reap(ReapOptions{});
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].outcome, "deleted (confirmed)");
  EXPECT_FALSE(cloud_.exists_named(pod));
}

// A `burst run` job of a teammate's laptop (no daemon): its pid is only judged on that laptop.
TEST_F(ReaperTeamTest, ABurstRunJobOfAnotherHostIsLeftToThatHost) {
  AsHost me("my-laptop");
  const std::string pod = running_job("j1", dead_pid(), "their-laptop@boot/1");
  Reaper reaper(deps());
  auto actions = reaper.reap(ReapOptions{});
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].kind, ReapOutcome::kSkipped) << actions[0].outcome;
  EXPECT_TRUE(cloud_.exists_named(pod));
}

// On main a pod deleted by another host at +70 s was billed until the daemon's own delete at
// +671 s. The first verified delete ends the bill.
TEST_F(ReaperTeamTest, APodsBillEndsAtTheFirstVerifiedDeleteOfAnyHost) {
  running_job("j1", getpid(), process_start_time(getpid()));
  PodRecord mine = store_->pods_of_job("j1")->front();  // the daemon's copy of the row
  clock_.advance(std::chrono::seconds(70));
  {
    PodRecord theirs = mine;  // a member's reap on another host
    ASSERT_TRUE(delete_and_verify(*store_, cloud_, clock_, &theirs).ok());
  }
  const int64_t first = store_->pods_of_job("j1")->front().deleted_ms;
  clock_.advance(std::chrono::seconds(600));
  ASSERT_TRUE(delete_and_verify(*store_, cloud_, clock_, &mine).ok());
  EXPECT_EQ(mine.deleted_ms, first);
  EXPECT_EQ(store_->pods_of_job("j1")->front().deleted_ms, first);
  EXPECT_EQ(store_->pods_of_job("j1")->front().state, PodRecordState::kDeleted);
}

}  // namespace
}  // namespace burst

// burstd's crash recovery and reap against FakeProvider: a job left running by a dead burstd is
// failed with its pod deleted and says why; a burst-* pod unknown to the store is deleted only
// after the grace period; a live job's pods are left alone.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "daemon/reconciler.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_provider.h"
#include "fakes/forward_provider.h"
#include "fakes/temp_dir.h"

namespace burst::daemon {
namespace {

using std::chrono::minutes;

class ReconcilerTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = open_sqlite_store(":memory:").value(); }

  Reconciler make() {
    ReconcileDeps d{*store_,
                    clock_,
                    {"fake"},
                    [this](const std::string&) -> Result<std::unique_ptr<Provider>> {
                      return std::unique_ptr<Provider>(std::make_unique<ForwardProvider>(cloud_));
                    },
                    [this](const JobRecord& j) { return alive_.count(j.id) > 0; },
                    dir_.path()};
    if (reattach_)
      d.reattach = [this](const JobRecord& j, const std::string& why) {
        reattached_.push_back(j.id + ": " + why);
        return true;
      };
    d.restart = [this](const JobRecord& j, const std::string& why) {
      restarted_.push_back(j.id + ": " + why);
      return true;
    };
    return Reconciler(d, minutes(10));
  }
  // A job whose daemon died in its setup phase (sync ended, setup open, its run step never
  // started), its GPU pod alive.
  std::string job_in_setup(const std::string& id) {
    JobRecord job;
    job.id = id;
    job.pipeline = "tts";
    job.state = JobState::kRunning;
    job.phase = Phase::kSync;
    job.provider = "fake";
    job.owner_pid = 999999;
    EXPECT_TRUE(store_->create_job(job).ok());
    const int64_t t = to_unix_ms(clock_.now());
    EXPECT_TRUE(store_->begin_phase(id, Phase::kSync, t).ok());
    EXPECT_TRUE(store_->end_phase(id, Phase::kSync, t, Outcome::kOk, "").ok());
    EXPECT_TRUE(store_->begin_phase(id, Phase::kSetup, t).ok());
    Pod pod = cloud_.add_existing("burst-" + id + "-gpu");
    PodRecord rec;
    rec.job_id = id;
    rec.provider = "fake";
    rec.role = "gpu";
    rec.name = pod.name;
    rec.pod_id = pod.id;
    rec.state = PodRecordState::kAlive;
    rec.created_ms = t;
    EXPECT_TRUE(store_->add_pod(rec).ok());
    return pod.id;
  }
  // A job in phase `run` with a live GPU pod, as a killed burstd leaves it.
  std::string running_job(const std::string& id) {
    JobRecord job;
    job.id = id;
    job.pipeline = "tts";
    job.state = JobState::kRunning;
    job.phase = Phase::kSetup;  // the last phase that ended; "run" is open
    job.provider = "fake";
    job.owner_pid = 999999;
    EXPECT_TRUE(store_->create_job(job).ok());
    EXPECT_TRUE(store_->begin_phase(id, Phase::kRun, to_unix_ms(clock_.now())).ok());
    Pod pod = cloud_.add_existing("burst-" + id + "-gpu");
    PodRecord rec;
    rec.job_id = id;
    rec.provider = "fake";
    rec.role = "gpu";
    rec.name = pod.name;
    rec.pod_id = pod.id;
    rec.state = PodRecordState::kAlive;
    rec.created_ms = to_unix_ms(clock_.now());
    EXPECT_TRUE(store_->add_pod(rec).ok());
    return pod.id;
  }

  TempDir dir_;
  FakeClock clock_;
  FakeProvider cloud_;
  std::unique_ptr<Store> store_;
  std::set<std::string> alive_;
  bool reattach_ = false;
  std::vector<std::string> reattached_, restarted_;
};

TEST_F(ReconcilerTest, JobOfADeadDaemonIsFailedItsPodDeletedAndTheReportSaysSo) {
  std::string pod = running_job("j1");
  Reconciler r = make();
  auto lines = r.recover_jobs();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_FALSE(cloud_.exists_named("burst-j1-gpu"));

  auto job = store_->get_job("j1");
  EXPECT_EQ(job->state, JobState::kFailed);
  EXPECT_EQ(job->error,
            "the process running it (pid 999999) stopped during phase run; burstd failed the job "
            "on restart (reattach is off, no reattach); gpu pod " +
                pod + " deleted (confirmed)");
  auto phases = *store_->phases("j1");
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].outcome, Outcome::kInterrupted);
  EXPECT_EQ(phases[1].phase, Phase::kRecover);
  EXPECT_EQ(phases[1].outcome, Outcome::kOk);
  EXPECT_TRUE(store_->live_pods()->empty());

  std::ifstream f(job->report_path);
  ASSERT_TRUE(f.good()) << job->report_path;
  auto report = nlohmann::json::parse(f);
  EXPECT_EQ(report["job"]["state"], "failed");
  EXPECT_NE(report["job"]["error"].get<std::string>().find("stopped during phase run"),
            std::string::npos);
}

TEST_F(ReconcilerTest, RunPhaseJobWithARunningPodIsHandedToReattachAndKeepsItsPod) {
  reattach_ = true;
  std::string pod = running_job("j1");
  Reconciler r = make();
  auto lines = r.recover_jobs();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "job j1 reattached: the process running it (pid 999999) stopped during "
            "phase run");
  ASSERT_EQ(reattached_.size(), 1u);
  EXPECT_EQ(reattached_[0],
            "j1: the process running it (pid 999999) stopped during phase run; burstd restarted "
            "and reattached");
  EXPECT_TRUE(cloud_.exists_named("burst-j1-gpu")) << "the pod is the reattached run's";
  EXPECT_EQ(store_->get_job("j1")->state, JobState::kRunning);
  EXPECT_EQ(store_->phases("j1")->back().ended_ms, 0) << "the run phase stays open";
}

TEST_F(ReconcilerTest, RunPhaseJobWhosePodIsGoneIsFailedNotReattached) {
  reattach_ = true;
  std::string pod = running_job("j1");
  ASSERT_TRUE(cloud_.delete_pod(pod).ok());
  Reconciler r = make();
  (void)r.recover_jobs();
  EXPECT_TRUE(reattached_.empty());
  auto job = store_->get_job("j1");
  EXPECT_EQ(job->state, JobState::kFailed);
  EXPECT_NE(job->error.find("(its GPU pod is not running, no reattach)"), std::string::npos)
      << job->error;
}

// Issue 35: a daemon killed before a job's step left nothing to reattach to; the daemon taking
// it over deletes its pods (verified) and runs it again, rather than failing it.
TEST_F(ReconcilerTest, ATakenOverJobWhoseStepNeverStartedRunsAgainWithItsPodsDeleted) {
  std::string pod = job_in_setup("j1");
  Reconciler r = make();
  const std::string line = r.recover_job(*store_->get_job("j1"), /*take_over=*/true);
  EXPECT_EQ(line.rfind("job j1 runs again: the process running it (pid 999999) stopped during "
                       "phase setup (gpu pod " +
                           pod + " deleted (confirmed))",
                       0),
            0u)
      << line;
  ASSERT_EQ(restarted_.size(), 1u);
  EXPECT_NE(restarted_[0].find("ended before its run step; burstd took it over and runs it again"),
            std::string::npos)
      << restarted_[0];
  EXPECT_TRUE(reattached_.empty());
  EXPECT_FALSE(cloud_.exists_named("burst-j1-gpu")) << "its pod is deleted before it runs again";
  EXPECT_TRUE(store_->live_pods()->empty());
  EXPECT_EQ(store_->get_job("j1")->state, JobState::kRunning) << "the restarted run's to finish";
  auto phases = *store_->phases("j1");
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[1].phase, Phase::kSetup);
  EXPECT_EQ(phases[1].outcome, Outcome::kInterrupted);
  EXPECT_EQ(phases[2].phase, Phase::kRecover);
  EXPECT_EQ(phases[2].outcome, Outcome::kOk);
  EXPECT_NE(phases[2].detail.find("; running the job again"), std::string::npos)
      << phases[2].detail;
}

TEST_F(ReconcilerTest, AJobRunAgainTwiceIsFailedTheThirdTime) {
  job_in_setup("j1");
  Reconciler r = make();
  for (int i = 0; i < kMaxRestarts; ++i) (void)r.recover_job(*store_->get_job("j1"), true);
  ASSERT_EQ(restarted_.size(), static_cast<size_t>(kMaxRestarts));
  const std::string line = r.recover_job(*store_->get_job("j1"), true);
  EXPECT_EQ(restarted_.size(), static_cast<size_t>(kMaxRestarts)) << line;
  auto job = store_->get_job("j1");
  EXPECT_EQ(job->state, JobState::kFailed);
  EXPECT_NE(job->error.find("(it was run again 2 times already, no reattach)"), std::string::npos)
      << job->error;
}

TEST_F(ReconcilerTest, ATakenOverJobWhoseRunStepBeganIsNeverRunAgain) {
  std::string pod = running_job("j1");  // its run phase open: reattach is the only way on
  ASSERT_TRUE(store_->end_phase("j1", Phase::kRun, 1, Outcome::kOk, "exit 0").ok());
  ASSERT_TRUE(store_->begin_phase("j1", Phase::kDeleteGpu, 2).ok());  // killed while deleting
  Reconciler r = make();
  (void)r.recover_job(*store_->get_job("j1"), /*take_over=*/true);
  EXPECT_TRUE(restarted_.empty()) << (restarted_.empty() ? "" : restarted_[0]);
  auto job = store_->get_job("j1");
  EXPECT_EQ(job->state, JobState::kFailed);
  EXPECT_NE(job->error.find("(its run step may have started, no reattach)"), std::string::npos)
      << job->error;
  EXPECT_FALSE(cloud_.exists_named("burst-j1-gpu"));
}

TEST_F(ReconcilerTest, AJobTakenOverInItsPullIsReattachedAndItsOldPullClosed) {
  reattach_ = true;
  std::string pod = running_job("j1");
  ASSERT_TRUE(store_->end_phase("j1", Phase::kRun, 1, Outcome::kOk, "exit 0").ok());
  ASSERT_TRUE(store_->begin_phase("j1", Phase::kPull, 2).ok());  // killed while pulling
  Reconciler r = make();
  const std::string line = r.recover_job(*store_->get_job("j1"), /*take_over=*/true);
  EXPECT_EQ(line.rfind("job j1 reattached: ", 0), 0u) << line;
  EXPECT_TRUE(restarted_.empty());
  ASSERT_EQ(reattached_.size(), 1u);
  EXPECT_TRUE(cloud_.exists_named("burst-j1-gpu")) << "its artefacts are still on it";
  auto phases = *store_->phases("j1");
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[1].phase, Phase::kPull);
  EXPECT_EQ(phases[1].outcome, Outcome::kInterrupted);
  EXPECT_GT(phases[1].ended_ms, 0);
}

TEST_F(ReconcilerTest, LiveJobsAreLeftAlone) {
  running_job("j2");
  alive_.insert("j2");
  Reconciler r = make();
  EXPECT_TRUE(r.recover_jobs().empty());
  auto actions = r.reap();
  EXPECT_TRUE(actions.empty());
  EXPECT_TRUE(cloud_.exists_named("burst-j2-gpu"));
  EXPECT_EQ(store_->get_job("j2")->state, JobState::kRunning);
}

TEST_F(ReconcilerTest, UnknownPodOfThisInstallationIsDeletedOnlyAfterTheGracePeriod) {
  const std::string name = pod_name(*store_->installation_id(), "elsewhere", "gpu");
  cloud_.add_existing(name);
  cloud_.add_existing("not-ours");
  Reconciler r = make();
  auto first = r.reap();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_NE(first[0].outcome.find("unknown to the store: deleted if still there after"),
            std::string::npos);
  EXPECT_TRUE(cloud_.exists_named(name));

  clock_.advance(minutes(11));
  auto second = r.reap();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].outcome, "unknown to the store for 660 s: deleted (confirmed)");
  EXPECT_FALSE(cloud_.exists_named(name));
  EXPECT_TRUE(cloud_.exists_named("not-ours")) << "only burst-* pods are ours";
  EXPECT_EQ(store_->get_job("elsewhere")->error,
            "adopted by burstd: a burst-* pod the store had no record of");
}

TEST_F(ReconcilerTest, UntaggedAndOtherInstallationsPodsAreLeftAloneWhateverTheirAge) {
  cloud_.add_existing("burst-elsewhere-gpu");                // made before installation ids
  cloud_.add_existing(pod_name("0123456789", "j9", "gpu"));  // another state dir's
  Reconciler r = make();
  for (int pass = 0; pass < 3; ++pass) {
    auto actions = r.reap();
    ASSERT_EQ(actions.size(), 2u);
    EXPECT_EQ(actions[0].kind, ReapOutcome::kForeign);
    EXPECT_NE(actions[0].outcome.find("untagged"), std::string::npos) << actions[0].outcome;
    EXPECT_NE(actions[1].outcome.find("of installation 0123456789, not this one"),
              std::string::npos)
        << actions[1].outcome;
    clock_.advance(minutes(30));
  }
  EXPECT_TRUE(cloud_.exists_named("burst-elsewhere-gpu"));
  EXPECT_TRUE(cloud_.exists_named(pod_name("0123456789", "j9", "gpu")));
}

TEST_F(ReconcilerTest, PodRowOfAFinishedJobIsDeletedByReap) {
  running_job("j3");
  JobRecord job = *store_->get_job("j3");
  job.state = JobState::kFailed;
  ASSERT_TRUE(store_->update_job(job).ok());
  Reconciler r = make();
  auto actions = r.reap();
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].outcome, "deleted (confirmed)");
  EXPECT_FALSE(cloud_.exists_named("burst-j3-gpu"));
}

}  // namespace
}  // namespace burst::daemon

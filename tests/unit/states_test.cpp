// burst/states.h: every job and pod-row state survives to_string/from_string, the strings are
// exactly the ones the store, the API and the reports always used, and unknown text is refused.
#include "burst/states.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace burst {
namespace {

TEST(States, EveryJobStateRoundTripsThroughItsStoredString) {
  const std::vector<std::pair<JobState, std::string>> all = {
      {JobState::kQueued, "queued"},
      {JobState::kRunning, "running"},
      {JobState::kSucceeded, "succeeded"},
      {JobState::kFailed, "failed"},
      {JobState::kInterrupted, "interrupted"}};
  for (const auto& [state, text] : all) {
    EXPECT_EQ(to_string(state), text);
    EXPECT_EQ(job_state_from_string(text), state) << text;
  }
  // The list above is the whole enum: one past the last value has no name.
  EXPECT_STREQ(to_string(static_cast<JobState>(all.size())), "?");
}

TEST(States, EveryPodRecordStateRoundTripsThroughItsStoredString) {
  const std::vector<std::pair<PodRecordState, std::string>> all = {
      {PodRecordState::kCreating, "creating"},
      {PodRecordState::kAlive, "alive"},
      {PodRecordState::kDeleting, "deleting"},
      {PodRecordState::kDeleted, "deleted"},
      {PodRecordState::kCreateFailed, "create-failed"}};
  for (const auto& [state, text] : all) {
    EXPECT_EQ(to_string(state), text);
    EXPECT_EQ(pod_record_state_from_string(text), state) << text;
  }
  EXPECT_STREQ(to_string(static_cast<PodRecordState>(all.size())), "?");
}

TEST(States, EveryPhaseAndOutcomeRoundTripsThroughItsStoredString) {
  const std::vector<std::pair<Phase, std::string>> phases = {
      {Phase::kPlan, "plan"},
      {Phase::kProvision, "provision"},
      {Phase::kWaitSsh, "wait-for-ssh"},
      {Phase::kSync, "sync"},
      {Phase::kSetup, "setup"},
      {Phase::kRun, "run"},
      {Phase::kPull, "pull"},
      {Phase::kDeleteGpu, "delete-gpu-pod"},
      {Phase::kCpuProvision, "cpu-provision"},
      {Phase::kUpload, "upload"},
      {Phase::kDeleteCpu, "delete-cpu-pod"},
      {Phase::kUploadOnGpu, "upload-on-gpu-pod"},
      {Phase::kUploadLocal, "upload-local"},
      {Phase::kReport, "report"},
      {Phase::kDone, "done"},
      {Phase::kReattach, "reattach"},
      {Phase::kRecover, "recover"},
      {Phase::kPrepareCpu, "prepare-cpu-provision"},
      {Phase::kPrepare, "prepare"},
      {Phase::kDeletePrepareCpu, "delete-prepare-cpu-pod"},
      {Phase::kQueued, "queued"},
      {Phase::kReap, "reap"}};
  for (const auto& [phase, text] : phases) {
    EXPECT_EQ(to_string(phase), text);
    EXPECT_EQ(phase_from_string(text), phase) << text;
  }
  EXPECT_STREQ(to_string(static_cast<Phase>(phases.size())), "?");

  const std::vector<std::pair<Outcome, std::string>> outcomes = {
      {Outcome::kOk, "ok"},
      {Outcome::kFailed, "failed"},
      {Outcome::kInterrupted, "interrupted"},
      {Outcome::kConnectionLost, "connection-lost"},
      {Outcome::kSkipped, "skipped"}};
  for (const auto& [outcome, text] : outcomes) {
    EXPECT_EQ(to_string(outcome), text);
    EXPECT_EQ(outcome_from_string(text), outcome) << text;
  }
  EXPECT_STREQ(to_string(static_cast<Outcome>(outcomes.size())), "?");
  EXPECT_STREQ(to_string(std::optional<Outcome>()), "") << "a phase in progress has no outcome";
}

TEST(States, UnknownTextIsRefusedNeverDefaulted) {
  for (const char* s : {"", "Running", "running ", "finished", "?", "create_failed"}) {
    EXPECT_FALSE(job_state_from_string(s).has_value()) << s;
    EXPECT_FALSE(pod_record_state_from_string(s).has_value()) << s;
    EXPECT_FALSE(phase_from_string(s).has_value()) << s;
    EXPECT_FALSE(outcome_from_string(s).has_value()) << s;
  }
  EXPECT_FALSE(job_state_from_string("alive").has_value()) << "a pod state is not a job state";
  EXPECT_FALSE(pod_record_state_from_string("failed").has_value());
}

TEST(States, PodMayExistUntilDeletedOrCreateFailed) {
  EXPECT_TRUE(may_exist(PodRecordState::kCreating));
  EXPECT_TRUE(may_exist(PodRecordState::kAlive));
  EXPECT_TRUE(may_exist(PodRecordState::kDeleting));
  EXPECT_FALSE(may_exist(PodRecordState::kDeleted));
  EXPECT_FALSE(may_exist(PodRecordState::kCreateFailed));
}

TEST(States, StreamsPrintTheStoredString) {
  std::ostringstream o;
  o << JobState::kInterrupted << " " << PodRecordState::kCreateFailed;
  EXPECT_EQ(o.str(), "interrupted create-failed");
}

}  // namespace
}  // namespace burst

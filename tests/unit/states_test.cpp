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

TEST(States, UnknownTextIsRefusedNeverDefaulted) {
  for (const char* s : {"", "Running", "running ", "done", "?", "create_failed"}) {
    EXPECT_FALSE(job_state_from_string(s).has_value()) << s;
    EXPECT_FALSE(pod_record_state_from_string(s).has_value()) << s;
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

// Creating and deleting pods so none is lost: the store hears of a pod before the provider does,
// and a pod is recorded as deleted only once the provider no longer has it. Uses the real SQLite
// store in memory, an in-memory provider and a fake clock (retries and polls take no real time).
#include "job/pod_lifecycle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "fakes/fake_clock.h"
#include "fakes/fake_provider.h"

namespace burst {
namespace {

class PodLifecycle : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_sqlite_store(":memory:");
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_ = std::move(*s);
    JobRecord job;
    job.id = "j1";
    job.pipeline = "render";
    job.state = JobState::kRunning;
    job.created_ms = to_unix_ms(clock_.now());
    ASSERT_TRUE(store_->create_job(job).ok());
    record_.job_id = "j1";
    record_.role = "gpu";
    record_.gpu_type = "RTX_4090";
    record_.gpu_count = 1;
    record_.usd_per_hour = 0.69;
    record_.price_source = "live offer";
  }

  static PodRequest request() {
    PodRequest r;
    r.name = pod_name("j1", "gpu");
    r.job_id = "j1";
    r.gpu_type = "RTX_4090";
    r.image = "ubuntu:22.04";
    return r;
  }

  // The one pod row of job j1, as the store has it now.
  PodRecord stored() {
    auto rows = store_->pods_of_job("j1");
    EXPECT_TRUE(rows.ok());
    EXPECT_EQ(rows.ok() ? rows->size() : 0u, 1u);
    return rows.ok() && rows->size() == 1 ? rows->front() : PodRecord{};
  }

  int count_calls(const std::string& call) const {
    return static_cast<int>(std::count(provider_.calls_.begin(), provider_.calls_.end(), call));
  }

  // Creates the pod successfully; returns its id.
  std::string create_ok() {
    auto pod = create_recorded_pod(*store_, provider_, clock_, request(), &record_);
    EXPECT_TRUE(pod.ok()) << pod.error().message;
    provider_.calls_.clear();
    return pod.ok() ? pod->id : "";
  }

  FakeClock clock_;
  FakeProvider provider_;
  std::unique_ptr<Store> store_;
  PodRecord record_;
};

TEST_F(PodLifecycle, RowIsCreatingBeforeTheProviderIsAskedAndAliveAfter) {
  bool hook_ran = false;
  provider_.on_create = [&](const PodRequest& req) {
    hook_ran = true;
    PodRecord row = stored();
    EXPECT_EQ(row.state, PodRecordState::kCreating);
    EXPECT_EQ(row.name, req.name);
    EXPECT_EQ(row.pod_id, "");
    EXPECT_EQ(row.provider, "fake");
    EXPECT_EQ(row.created_ms, to_unix_ms(clock_.now()));
    auto live = store_->live_pods();
    ASSERT_TRUE(live.ok());
    EXPECT_EQ(live->size(), 1u);  // reap would find it by name
  };
  auto pod = create_recorded_pod(*store_, provider_, clock_, request(), &record_);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_TRUE(hook_ran);
  EXPECT_EQ(provider_.calls_, std::vector<std::string>{"create burst-j1-gpu"});
  EXPECT_EQ(pod->id, "p1");
  EXPECT_EQ(pod->name, "burst-j1-gpu");

  PodRecord row = stored();
  EXPECT_EQ(row.state, PodRecordState::kAlive);
  EXPECT_EQ(row.pod_id, "p1");
  EXPECT_EQ(row.row_id, record_.row_id);
  EXPECT_EQ(row.gpu_type, "RTX_4090");
  EXPECT_DOUBLE_EQ(row.usd_per_hour, 0.69);
  EXPECT_EQ(row.deleted_ms, 0);
}

TEST_F(PodLifecycle, CreateTimeoutThatMadeThePodIsFoundByNameAndDeleted) {
  provider_.create_fails_after_creating = true;
  auto pod = create_recorded_pod(*store_, provider_, clock_, request(), &record_);
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error().code, ErrorCode::kTimeout);
  EXPECT_TRUE(provider_.exists_named("burst-j1-gpu"));  // the leak this guards against
  EXPECT_EQ(stored().state, PodRecordState::kCreating);
  EXPECT_EQ(stored().pod_id, "");

  // As reap would: start from what the store knows.
  auto live = store_->live_pods();
  ASSERT_TRUE(live.ok());
  ASSERT_EQ(live->size(), 1u);
  PodRecord from_store = live->front();
  provider_.calls_.clear();
  Status st = delete_and_verify(*store_, provider_, clock_, &from_store);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(provider_.calls_, (std::vector<std::string>{"list", "delete p1", "get p1"}));
  EXPECT_FALSE(provider_.exists_named("burst-j1-gpu"));
  PodRecord row = stored();
  EXPECT_EQ(row.state, PodRecordState::kDeleted);
  EXPECT_EQ(row.pod_id, "p1");
  EXPECT_EQ(row.deleted_ms, to_unix_ms(clock_.now()));
}

TEST_F(PodLifecycle, CreateTimeoutThatMadeNothingEndsCreateFailedWithoutADelete) {
  provider_.create_errors = {make_error(ErrorCode::kTimeout, "gateway timeout")};
  ASSERT_FALSE(create_recorded_pod(*store_, provider_, clock_, request(), &record_).ok());
  EXPECT_EQ(stored().state, PodRecordState::kCreating);
  Status st = delete_and_verify(*store_, provider_, clock_, &record_);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(count_calls("list"), 1);
  EXPECT_EQ(count_calls("delete p1"), 0);
  EXPECT_EQ(stored().state, PodRecordState::kCreateFailed);
  EXPECT_TRUE(store_->live_pods()->empty());
}

// The driver's API call has already retried what it may (http/api_call.h): no second layer here.
TEST_F(PodLifecycle, AListThatCannotBeReadIsAnErrorWithoutASecondRetryLayer) {
  provider_.list_errors.push_back(make_error(ErrorCode::kUnavailable, "list: not JSON"));
  Status st = check_list_readable(provider_);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "refusing to create a pod, because fake's pod list cannot be read (burst could not "
            "find the pod again): list: not JSON");
  EXPECT_EQ(count_calls("list"), 1) << "retries live in the API call, not here too";
  EXPECT_EQ(clock_.total_slept(), Duration(0));
}

TEST_F(PodLifecycle, CreateNoCapacityMarksTheRowCreateFailed) {
  provider_.create_errors = {make_error(ErrorCode::kNoCapacity, "no RTX_4090 in eu")};
  auto pod = create_recorded_pod(*store_, provider_, clock_, request(), &record_);
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(pod.error().message, "no RTX_4090 in eu");  // the provider's own words
  PodRecord row = stored();
  EXPECT_EQ(row.state, PodRecordState::kCreateFailed);
  EXPECT_EQ(row.deleted_ms, to_unix_ms(clock_.now()));
  EXPECT_TRUE(store_->live_pods()->empty());
}

TEST_F(PodLifecycle, OnlyErrorsThatProveNoPodWasMadeMarkCreateFailed) {
  const struct {
    ErrorCode code;
    const char* state;
  } cases[] = {{ErrorCode::kInvalid, "create-failed"},     {ErrorCode::kAuth, "create-failed"},
               {ErrorCode::kNoCapacity, "create-failed"},  {ErrorCode::kNotFound, "create-failed"},
               {ErrorCode::kRateLimited, "create-failed"}, {ErrorCode::kUnavailable, "creating"},
               {ErrorCode::kTimeout, "creating"},          {ErrorCode::kConnection, "creating"},
               {ErrorCode::kInternal, "creating"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(to_string(c.code));
    provider_.create_errors = {make_error(c.code, "boom")};
    PodRecord rec = record_;
    ASSERT_FALSE(create_recorded_pod(*store_, provider_, clock_, request(), &rec).ok());
    auto rows = store_->pods_of_job("j1");
    ASSERT_TRUE(rows.ok());
    EXPECT_EQ(to_string(rows->back().state), std::string(c.state));
  }
}

// A retryable error that reaches the lifecycle is one the API call already gave up on: the row
// stays "deleting" and the next delete_and_verify (burst reap's) finishes the job.
TEST_F(PodLifecycle, DeleteErrorIsNotRetriedAgainHereAndReapFinishesIt) {
  const std::string id = create_ok();
  provider_.delete_errors = {make_error(ErrorCode::kUnavailable, "503 (gave up after 5 attempts)")};
  provider_.on_delete = [&](const std::string&) {
    EXPECT_EQ(stored().state, PodRecordState::kDeleting);
  };
  Status st = delete_and_verify(*store_, provider_, clock_, &record_);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "delete fake pod " + id + ": 503 (gave up after 5 attempts)");
  EXPECT_EQ(count_calls("delete " + id), 1);
  EXPECT_EQ(stored().state, PodRecordState::kDeleting) << "left for burst reap";
  Status again = delete_and_verify(*store_, provider_, clock_, &record_);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(stored().state, PodRecordState::kDeleted);
}

TEST_F(PodLifecycle, NonRetryableDeleteErrorFailsAtOnceAndLeavesDeleting) {
  const std::string id = create_ok();
  provider_.delete_errors = {make_error(ErrorCode::kAuth, "401 bad key")};
  Status st = delete_and_verify(*store_, provider_, clock_, &record_);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kAuth);
  EXPECT_EQ(st.error().message, "delete fake pod " + id + ": 401 bad key");
  EXPECT_EQ(count_calls("delete " + id), 1);
  EXPECT_EQ(clock_.total_slept(), Duration(0));
  EXPECT_EQ(stored().state, PodRecordState::kDeleting);
}

TEST_F(PodLifecycle, DeleteThatTakesEffectLaterEndsDeleted) {
  const std::string id = create_ok();
  provider_.delete_takes_effect_after_n_gets = 3;
  const int64_t asked_ms = to_unix_ms(clock_.now());
  Status st = delete_and_verify(*store_, provider_, clock_, &record_);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(count_calls("get " + id), 4);  // three still there, the fourth not found
  EXPECT_EQ(clock_.total_slept(), Duration(200 + 400 + 800));
  PodRecord row = stored();
  EXPECT_EQ(row.state, PodRecordState::kDeleted);
  EXPECT_EQ(row.deleted_ms, to_unix_ms(clock_.now()));
  EXPECT_EQ(row.deleted_ms, asked_ms + 1400);  // confirmed when gone, not when asked
  EXPECT_TRUE(store_->live_pods()->empty());
}

TEST_F(PodLifecycle, DeleteThatNeverTakesEffectTimesOutAndStaysDeleting) {
  const std::string id = create_ok();
  provider_.delete_takes_effect_after_n_gets = -1;
  const TimePoint start = clock_.now();
  Status st = delete_and_verify(*store_, provider_, clock_, &record_);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kTimeout);
  EXPECT_EQ(st.error().message, "delete fake pod " + id + ": still present after the deadline");
  EXPECT_TRUE(provider_.exists_named("burst-j1-gpu"));
  PodRecord row = stored();
  EXPECT_EQ(row.state, PodRecordState::kDeleting);
  EXPECT_EQ(row.deleted_ms, 0);
  auto live = store_->live_pods();
  ASSERT_TRUE(live.ok());
  EXPECT_EQ(live->size(), 1u);  // left for `burst reap`
  EXPECT_LE(clock_.now() - start, std::chrono::minutes(5));
  EXPECT_GT(clock_.now() - start, std::chrono::minutes(4));
}

TEST_F(PodLifecycle, DeletingAnAlreadyGonePodSucceeds) {
  const std::string id = create_ok();
  ASSERT_TRUE(provider_.delete_pod(id).ok());  // gone behind our back (console, spot reclaim)
  provider_.calls_.clear();
  Status st = delete_and_verify(*store_, provider_, clock_, &record_);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(provider_.calls_, (std::vector<std::string>{"delete " + id, "get " + id}));
  EXPECT_EQ(stored().state, PodRecordState::kDeleted);
}

}  // namespace
}  // namespace burst

// Every cloud driver against its emulator with every fault knob: one parameterised suite over
// the table of per-provider expectations (cloud_faults_cases.cpp). The job's own pod lifecycle
// (create_recorded_pod, wait_until_running, delete_and_verify with SQLite in memory) runs on a
// fake clock, so backoff and polling take no real time; the emulator and its sshd pods are real.
// In each test the emulator's own state is the judge: no pod is left running at the end, and the
// error a user would see says what happened. What only one provider has is in
// cloud_faults_only_test.cpp.
#include <gtest/gtest.h>

#include "http/curl_http_client.h"
#include "integration/cloud_faults_fixture.h"

namespace burst {
namespace {

using fakecloud::Faults;

class Faulted : public CloudFaults, public ::testing::WithParamInterface<CloudCase> {
 protected:
  Faulted() : CloudFaults(GetParam()) {}
};

TEST_P(Faulted, HappyPathLeavesNothing) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  auto running = wait_running(pod->id);
  ASSERT_TRUE(running.ok()) << running.error().message;
  EXPECT_EQ(running->ssh.host, "127.0.0.1");
  if (!c_.ssh_user.empty()) {
    EXPECT_EQ(running->ssh.user, c_.ssh_user);
  }
  if (!c_.volume_path.empty()) {
    EXPECT_EQ(running->volume_path, c_.volume_path);
  }
  const auto made = cloud_.state().all_pods();
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].public_key, c_.public_key);
  EXPECT_EQ(made[0].mount_path, c_.mount_path);
  if (!c_.pod_region.empty()) {
    EXPECT_EQ(made[0].region, c_.pod_region);
  }
  if (c_.label_is_name) {
    EXPECT_EQ(made[0].name, "burst-j1-gpu") << "the label is our tag";
  }
  if (c_.pins_volume_id) {
    EXPECT_FALSE(made[0].volume_id.empty());
  }
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_EQ(rec.state, PodRecordState::kDeleted);
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, LatencyBelowTheTimeoutIsOnlySlow) {
  Faults f;
  f.latency_ms = 150;
  set(f);
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  ASSERT_TRUE(wait_running(pod->id).ok());
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, LatencyAboveTheTimeoutIsATimeoutThatSaysSo) {
  Faults f;
  f.latency_ms = 700;
  set(f);
  auto slow = provider(c_.key, Duration(250));
  auto offers = slow->offers(true);
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.error().code, ErrorCode::kTimeout);
  EXPECT_NE(offers.error().message.find(c_.slow_offers), std::string::npos)
      << offers.error().message;
  if (c_.slow_offers_gave_up) {
    EXPECT_NE(offers.error().message.find("gave up after 5 attempts"), std::string::npos)
        << offers.error().message;
  }
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, A5xxOnCreateIsCheckedByNameBeforeSendingAgain) {
  Faults f;
  f.errors_5xx = 2;  // the create's 503, then the name lookup's 503 (a read: retried)
  PodRequest req = request();
  arm_create(f);
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pods_named(req.name), 1) << "exactly one pod: the 503 create made none, the retry one";
  EXPECT_EQ(requests(c_.create_method, c_.create_path, 503), 1);
  if (c_.create_ok_status) {
    EXPECT_EQ(requests(c_.create_method, c_.create_path, c_.create_ok_status), 1);
  }
  EXPECT_GE(requests("GET", c_.lookup_path, 200), 1) << "looked the name up before re-sending";
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, ALong5xxBurstFailsSayingWhatTheServerSaid) {
  Faults f;
  f.errors_5xx = 50;
  f.status_5xx = 502;
  set(f);
  auto offers = driver_->offers(true);
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(offers.error().message, c_.long_5xx);
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, RateLimitWithRetryAfterIsWaitedOutEvenForCreate) {
  Faults f;
  f.rate_limits = 2;
  f.retry_after_s = c_.retry_after_s;
  PodRequest req = request();
  arm_create(f);
  const Duration slept_before = clock_.total_slept();
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(clock_.total_slept() - slept_before, Duration(2 * 1000 * c_.retry_after_s))
      << "Retry-After: " << c_.retry_after_s << ", twice";
  EXPECT_EQ(requests(c_.create_method, c_.create_path, 429), 2);
  EXPECT_EQ(pods_named(req.name), 1);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, RateLimitWithoutRetryAfterBacksOffThenSaysItWasRateLimited) {
  Faults f;
  f.rate_limits = 3;
  set(f);
  auto pods = driver_->list_pods();
  ASSERT_TRUE(pods.ok()) << pods.error().message;
  EXPECT_GT(clock_.total_slept(), Duration(0));
  EXPECT_EQ(requests("GET", c_.list_path, 429), 3);

  f.rate_limits = 20;  // more than the retry budget: the user hears it was rate limiting
  set(f);
  auto again = driver_->list_pods();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kRateLimited);
  EXPECT_NE(again.error().message.find(c_.rate_limited), std::string::npos)
      << again.error().message;
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, ACreateThatTimesOutButMadeThePodIsFoundByNameNotRepeated) {
  driver_ = provider(c_.key, Duration(1000));
  PodRequest req = request();
  Faults f;
  f.create_timeouts = 1;
  f.hang_ms = 1500;  // the driver gives up after 1 s
  set(f);
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pod->name, req.name);
  EXPECT_EQ(pods_named(req.name), 1) << "the create was sent again";
  if (c_.count_create_after_timeout) {
    EXPECT_EQ(requests(c_.create_method, c_.create_path, c_.create_ok_status), 1);
  }
  EXPECT_EQ(rec.state, PodRecordState::kAlive);
  EXPECT_EQ(rec.pod_id, pod->id);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, APodStuckProvisioningTimesOutAndIsStillDeleted) {
  Faults f;
  f.stuck_provisioning = true;
  set(f);
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  auto running = wait_running(pod->id);
  ASSERT_FALSE(running.ok());
  EXPECT_EQ(running.error().code, ErrorCode::kTimeout);
  // The provider's last words on the pod follow where its API has them (Vast's status_msg).
  const std::string said = c_.name == "vast" ? " (vast says: Pulling image)" : "";
  EXPECT_EQ(running.error().message,
            "pod " + pod->id + " was not running with SSH by the deadline" + said);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, ADeleteThatLingersIsPolledUntilReallyGone) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  ASSERT_TRUE(wait_running(pod->id).ok());
  Faults f;
  f.delete_lingers = 4;
  set(f);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_EQ(rec.state, PodRecordState::kDeleted);
  EXPECT_GE(requests("GET", c_.get_path + pod->id, 200), c_.lingering_gets)
      << "it was seen still there";
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, ADeleteThatNeverTakesFailsLoudlyNamingThePodThenReapWorks) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  Faults f;
  f.delete_lingers = 100000;
  set(f);
  Status st = verify_delete(&rec);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "delete " + c_.name + " pod " + pod->id + ": still present after the deadline");
  EXPECT_EQ(rec.state, PodRecordState::kDeleting) << "left for burst reap";
  EXPECT_EQ(live().size(), 1u);
  set(Faults{});  // the provider recovers; reap's delete_and_verify deletes it
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, AMalformedListIsAnErrorNeverZeroPods) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  Faults f;
  f.malformed_list = true;
  set(f);
  auto pods = driver_->list_pods();
  ASSERT_FALSE(pods.ok()) << "a malformed list read as " << pods->size() << " pods";
  EXPECT_EQ(pods.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(pods.error().message.find(c_.malformed_list), std::string::npos)
      << pods.error().message;
  // A pod whose id was never learned must not be concluded "never created".
  PodRecord lost = rec;
  lost.pod_id.clear();
  Status st = verify_delete(&lost);
  ASSERT_FALSE(st.ok());
  if (c_.lost_pod_names_itself) {
    EXPECT_NE(st.error().message.find("find pod burst-j1-gpu"), std::string::npos)
        << st.error().message;
  }
  EXPECT_NE(lost.state, PodRecordState::kCreateFailed);
  set(Faults{});
  ASSERT_TRUE(verify_delete(&lost).ok());
  EXPECT_EQ(lost.pod_id, pod->id);
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, NoCapacityShowsInOffersAndCreateSaysSo) {
  PodRequest req = request();
  if (c_.offers_before_no_capacity) {
    ASSERT_TRUE(driver_->offers(true).ok());
  }
  Faults f;
  f.no_capacity = {c_.no_capacity_id};
  set(f);
  auto offers = driver_->offers(true);
  ASSERT_TRUE(offers.ok()) << offers.error().message;
  int listed = 0;
  for (const auto& o : *offers)
    if (o.gpu_type == c_.gpu_type) {
      ++listed;
      EXPECT_FALSE(o.available) << o.region;
    }
  switch (c_.no_capacity_offers) {
    case NoCapacityOffers::kListedUnavailable:
      break;
    case NoCapacityOffers::kListedOnceUnavailable:
      EXPECT_EQ(listed, 1) << "listed once, without a region";
      break;
    case NoCapacityOffers::kNotListed:
      EXPECT_EQ(listed, 0) << "a rented offer was listed";
      break;
  }
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(pod.error().message, c_.no_capacity_error(req));
  EXPECT_EQ(rec.state, PodRecordState::kCreateFailed);
  EXPECT_EQ(pods_named(req.name), 0);
  EXPECT_TRUE(live().empty());
}

// Faults::capacity (a count per GPU type, learned only at create as on the real APIs): that many
// pods are made, the next create is refused the provider's published no-capacity way
// (kNoCapacity, nothing made), and a deleted pod frees its place.
TEST_P(Faulted, ACapacityCountLetsThatManyPodsThroughThenRefusesAsNoCapacity) {
  Faults f;
  f.capacity = {{c_.no_capacity_id, 1}};
  set(f);
  const PodRequest first = request("gpu0");
  PodRecord rec0 = record("gpu0");
  auto made = create(first, &rec0);
  ASSERT_TRUE(made.ok()) << made.error().message;
  const PodRequest second = request("gpu1");
  PodRecord rec1 = record("gpu1");
  auto refused = create(second, &rec1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kNoCapacity) << refused.error().message;
  EXPECT_EQ(rec1.state, PodRecordState::kCreateFailed);
  EXPECT_EQ(pods_named(second.name), 0);
  ASSERT_TRUE(verify_delete(&rec0).ok());
  PodRecord rec2 = record("gpu1");
  auto again = create(second, &rec2);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(verify_delete(&rec2).ok());
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, AuthFailureSaysTheKeyWasRefusedWithoutShowingIt) {
  PodRequest req = request();  // its volume exists before the key is refused
  Faults f;
  f.auth_failure = true;
  set(f);
  ErrorCode code = ErrorCode::kInternal;
  if (c_.auth_call == Call::kCreate) {
    PodRecord rec = record();
    auto pod = create(req, &rec);
    ASSERT_FALSE(pod.ok());
    EXPECT_EQ(pod.error().code, ErrorCode::kAuth);
    EXPECT_EQ(pod.error().message, c_.auth_error);
    EXPECT_EQ(rec.state, PodRecordState::kCreateFailed);
  } else {
    EXPECT_EQ(fails(*driver_, c_.auth_call, &code), c_.auth_error);
    EXPECT_EQ(code, ErrorCode::kAuth);
  }
  EXPECT_EQ(pods_made(), 0);

  set(Faults{});
  auto wrong = provider(c_.wrong_key, Duration(5000));
  code = ErrorCode::kInternal;
  const std::string refused = fails(*wrong, c_.wrong_key_call, &code);
  EXPECT_FALSE(refused.empty());
  EXPECT_EQ(code, ErrorCode::kAuth) << refused;
  EXPECT_EQ(refused.find(c_.wrong_key), std::string::npos) << refused;

  auto none = provider("", Duration(5000));
  EXPECT_EQ(fails(*none, c_.no_key_call, &code), c_.no_key_error);
  EXPECT_EQ(pods_made(), 0);
  EXPECT_TRUE(live().empty());
}

TEST_P(Faulted, KnobsCanBeSetOverTheAdminPath) {
  auto http = make_curl_http_client();
  auto r = http->send({"POST",
                       cloud_.base_url() + "/_fake/faults?provider=" + c_.name,
                       {},
                       R"({"errors_5xx":1,"status_5xx":500})",
                       false});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(cloud_.state().faults(c_.name).errors_5xx, 1);
  auto st = http->send({"GET", cloud_.base_url() + "/_fake/state", {}, "", true});
  ASSERT_TRUE(st.ok());
  EXPECT_NE(st->body.find("\"errors_5xx\":1"), std::string::npos);
  EXPECT_TRUE(live().empty());
}

INSTANTIATE_TEST_SUITE_P(Clouds, Faulted,
                         ::testing::Values(runpod_case(), lambda_case(), vast_case()),
                         [](const ::testing::TestParamInfo<CloudCase>& i) { return i.param.name; });

}  // namespace
}  // namespace burst

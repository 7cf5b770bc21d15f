// The Lambda driver against the emulator with every fault knob. The job's own pod lifecycle
// (create_recorded_pod, wait_until_running, delete_and_verify with SQLite in memory) runs on a
// fake clock, so backoff and polling take no real time; the emulator and its sshd pods are real.
// In each test the emulator's own state is the judge: no instance is left running at the end,
// and the error a user would see says what happened.
#include <gtest/gtest.h>

#include "http/curl_http_client.h"
#include "integration/cloud_faults_fixture.h"
#include "lambda/lambda_provider.h"

namespace burst {
namespace {

using fakecloud::Faults;
constexpr const char* kKey = "secret_FAULTTESTKEY_lambda_0123456789";
constexpr const char* kPub = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFaultsKey faults";

class LambdaFaults : public CloudFaultsTest {
 protected:
  LambdaFaults() : CloudFaultsTest("lambda", kKey, "/api/v1") {}

  std::unique_ptr<Provider> provider(const std::string& key, Duration timeout) override {
    LambdaOptions o;
    o.base_url = cloud_.provider_url("lambda");
    o.api_key = key;
    CurlOptions c;
    c.total_timeout = timeout;
    return make_lambda_provider(o, make_curl_http_client(c), clock_);
  }

  PodRequest request(const std::string& role = "gpu") {
    auto vol = driver_->ensure_volume("faults-vol", 10, "us-west-1");
    EXPECT_TRUE(vol.ok()) << vol.error().message;
    PodRequest r;
    r.job_id = "j1";
    r.name = pod_name("j1", role);
    r.gpu_type = "A10";
    r.gpu_count = 1;
    r.image = "python:3.11-slim";
    r.volume_id = vol.ok() ? vol->id : "";
    r.mount_path = "/workspace";
    r.ssh_public_key = kPub;
    return r;
  }

  PodRecord record(const std::string& role = "gpu") {
    PodRecord rec;
    rec.job_id = "j1";
    rec.role = role;
    rec.gpu_type = "A10";
    rec.gpu_count = 1;
    return rec;
  }

  // One instance made and deleted, so the driver knows the instance types, the file system and
  // its registered key: the next create's first request is the launch itself.
  void warm_up() {
    PodRecord rec = record("warm");
    auto pod = create(request("warm"), &rec);
    ASSERT_TRUE(pod.ok()) << pod.error().message;
    ASSERT_TRUE(verify_delete(&rec).ok());
  }
};

TEST_F(LambdaFaults, HappyPathRegistersTheKeyMountsTheFileSystemAndLeavesNothing) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  auto running = wait_running(pod->id);
  ASSERT_TRUE(running.ok()) << running.error().message;
  EXPECT_EQ(running->ssh.host, "127.0.0.1");
  EXPECT_EQ(running->ssh.user, "ubuntu");
  EXPECT_EQ(running->volume_path, "/lambda/nfs/faults-vol");
  const auto made = cloud_.state().all_pods();
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].public_key, kPub);
  EXPECT_EQ(made[0].mount_path, "/lambda/nfs/faults-vol");
  EXPECT_EQ(made[0].region, "us-west-1");
  EXPECT_EQ(requests("POST", "/ssh-keys", 200), 1) << "the key was registered once";
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_EQ(rec.state, "deleted");
  EXPECT_GE(requests("POST", "/instance-operations/terminate", 200), 1);
  EXPECT_TRUE(live().empty());
  // A second instance reuses the registered key.
  PodRecord rec2 = record("again");
  ASSERT_TRUE(create(request("again"), &rec2).ok());
  EXPECT_EQ(requests("POST", "/ssh-keys", 200), 1);
  ASSERT_TRUE(verify_delete(&rec2).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(LambdaFaults, LatencyBelowTheTimeoutIsOnlySlowAboveItATimeoutThatSaysSo) {
  Faults f;
  f.latency_ms = 150;
  set(f);
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  ASSERT_TRUE(wait_running(pod->id).ok());
  ASSERT_TRUE(verify_delete(&rec).ok());
  f.latency_ms = 700;
  set(f);
  auto slow = provider(kKey, Duration(250));
  auto offers = slow->offers(true);
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.error().code, ErrorCode::kTimeout);
  EXPECT_NE(offers.error().message.find("lambda: GET /lambda/api/v1/instance-types: GET 127.0.0.1"),
            std::string::npos)
      << offers.error().message;
  EXPECT_TRUE(live().empty());
}

TEST_F(LambdaFaults, A5xxOnLaunchIsCheckedByNameBeforeLaunchingAgain) {
  warm_up();
  PodRequest req = request();
  Faults f;
  f.errors_5xx = 2;  // the launch's 503, then the name lookup's 503 (a read: retried)
  set(f);
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pods_named(req.name), 1) << "exactly one instance";
  EXPECT_EQ(requests("POST", "/instance-operations/launch", 503), 1);
  EXPECT_GE(requests("GET", "/instances", 200), 1) << "looked the name up before re-sending";
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());

  f.errors_5xx = 50;  // a long burst: the user hears what the server said
  f.status_5xx = 502;
  set(f);
  auto offers = driver_->offers(true);
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(
      offers.error().message,
      "offers: lambda: GET /lambda/api/v1/instance-types: HTTP 502: provider/internal-unavailable: "
      "Provider unavailable (Try again shortly) (gave up after 5 attempts)");
  EXPECT_TRUE(live().empty());
}

TEST_F(LambdaFaults, RateLimitWithRetryAfterIsWaitedOutEvenForLaunch) {
  warm_up();
  PodRequest req = request();
  Faults f;
  f.rate_limits = 2;
  f.retry_after_s = 12;  // Lambda allows one launch per 12 s
  set(f);
  const Duration slept_before = clock_.total_slept();
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(clock_.total_slept() - slept_before, Duration(24000)) << "Retry-After: 12, twice";
  EXPECT_EQ(requests("POST", "/instance-operations/launch", 429), 2);
  EXPECT_EQ(pods_named(req.name), 1);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(LambdaFaults, RateLimitWithoutRetryAfterBacksOffThenSaysItWasRateLimited) {
  Faults f;
  f.rate_limits = 3;
  set(f);
  auto pods = driver_->list_pods();
  ASSERT_TRUE(pods.ok()) << pods.error().message;
  EXPECT_GT(clock_.total_slept(), Duration(0));
  EXPECT_EQ(requests("GET", "/instances", 429), 3);
  f.rate_limits = 20;
  set(f);
  auto again = driver_->list_pods();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kRateLimited);
  EXPECT_NE(again.error().message.find("HTTP 429: global/rate-limited"), std::string::npos)
      << again.error().message;
  EXPECT_TRUE(live().empty());
}

TEST_F(LambdaFaults, ALaunchThatTimesOutButMadeTheInstanceIsFoundByNameNotRepeated) {
  PodRequest req = request();
  Faults f;
  f.create_timeouts = 1;
  f.hang_ms = 1500;  // the driver gives up after 1 s
  set(f);
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pod->name, req.name);
  EXPECT_EQ(pods_named(req.name), 1) << "the launch was sent again";
  EXPECT_EQ(rec.state, "alive");
  EXPECT_EQ(rec.pod_id, pod->id);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(LambdaFaults, AnInstanceStuckBootingTimesOutAndIsStillTerminated) {
  Faults f;
  f.stuck_provisioning = true;
  set(f);
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  auto running = wait_running(pod->id);
  ASSERT_FALSE(running.ok());
  EXPECT_EQ(running.error().code, ErrorCode::kTimeout);
  EXPECT_EQ(running.error().message,
            "pod " + pod->id + " was not running with SSH by the deadline");
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(LambdaFaults, ATerminateThatLingersIsPolledThroughTerminating) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  ASSERT_TRUE(wait_running(pod->id).ok());
  Faults f;
  f.delete_lingers = 4;
  set(f);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_EQ(rec.state, "deleted");
  int terminating = 0;
  for (const auto& e : cloud_.state().request_log())
    terminating += e.path == "/lambda/api/v1/instances/" + pod->id && e.status == 200;
  EXPECT_GE(terminating, 2) << "it was seen still terminating";
  EXPECT_TRUE(live().empty());

  PodRecord rec2 = record("never");  // a terminate that never takes: loud, then reap works
  auto pod2 = create(request("never"), &rec2);
  ASSERT_TRUE(pod2.ok()) << pod2.error().message;
  f.delete_lingers = 100000;
  set(f);
  Status st = verify_delete(&rec2);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "delete lambda pod " + pod2->id + ": still present after the deadline");
  EXPECT_EQ(rec2.state, "deleting") << "left for burst reap";
  set(Faults{});
  ASSERT_TRUE(verify_delete(&rec2).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(LambdaFaults, AMalformedListIsAnErrorNeverZeroInstances) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  Faults f;
  f.malformed_list = true;
  set(f);
  auto pods = driver_->list_pods();
  ASSERT_FALSE(pods.ok()) << "a malformed list read as " << pods->size() << " instances";
  EXPECT_EQ(pods.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(
      pods.error().message.find("lambda: list instances: the response is not the documented JSON"),
      std::string::npos)
      << pods.error().message;
  PodRecord lost = rec;  // an id never learned must not mean "never created"
  lost.pod_id.clear();
  Status st = verify_delete(&lost);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(lost.state, "create-failed");
  set(Faults{});
  ASSERT_TRUE(verify_delete(&lost).ok());
  EXPECT_EQ(lost.pod_id, pod->id);
  EXPECT_TRUE(live().empty());
}

TEST_F(LambdaFaults, NoCapacityShowsInOffersAndLaunchSaysSo) {
  PodRequest req = request();
  ASSERT_TRUE(driver_->offers(true).ok());
  Faults f;
  f.no_capacity = {"gpu_1x_a10"};
  set(f);
  auto offers = driver_->offers(true);
  ASSERT_TRUE(offers.ok()) << offers.error().message;
  int a10 = 0;
  for (const auto& o : *offers)
    if (o.gpu_type == "A10") {
      ++a10;
      EXPECT_FALSE(o.available) << o.region;
    }
  EXPECT_EQ(a10, 1) << "listed once, without a region";
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(
      pod.error().message,
      "create pod burst-j1-gpu: lambda: POST /lambda/api/v1/instance-operations/launch: HTTP 400: "
      "instance-operations/launch/insufficient-capacity: Not enough capacity to fulfill "
      "launch request. (Choose an instance type with more availability, or try again "
      "later.)");
  EXPECT_EQ(rec.state, "create-failed");
  EXPECT_EQ(pods_named(req.name), 0);
  EXPECT_TRUE(live().empty());
}

TEST_F(LambdaFaults, AuthFailureSaysTheKeyWasRefusedWithoutShowingIt) {
  Faults f;
  f.auth_failure = true;
  set(f);
  auto offers = driver_->offers(true);
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.error().code, ErrorCode::kAuth);
  EXPECT_EQ(
      offers.error().message,
      "offers: lambda: GET /lambda/api/v1/instance-types: HTTP 401: global/invalid-api-key: API "
      "key was invalid, expired, or deleted. (Check your API key.)");
  set(Faults{});
  auto wrong = provider("secret_wrong_key_000", Duration(1000));
  auto list = wrong->list_pods();
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().code, ErrorCode::kAuth);
  EXPECT_EQ(list.error().message.find("secret_wrong_key_000"), std::string::npos);
  auto none = provider("", Duration(1000));
  auto vols = none->list_volumes();
  ASSERT_FALSE(vols.ok());
  EXPECT_EQ(vols.error().message,
            "lambda: no API key (set LAMBDA_API_KEY, or providers.lambda.api_key in config.yaml)");
  EXPECT_EQ(cloud_.state().all_pods().size(), 0u);
  EXPECT_TRUE(live().empty());
}

}  // namespace
}  // namespace burst

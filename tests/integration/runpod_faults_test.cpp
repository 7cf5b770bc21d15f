// The RunPod driver against the emulator with every fault knob. The job's own pod lifecycle
// (create_recorded_pod, wait_until_running, delete_and_verify with SQLite in memory) runs on a
// fake clock, so backoff and polling take no real time; the emulator and its sshd pods are real.
// In each test the emulator's own state is the judge: no pod is left running at the end, and the
// error a user would see says what happened.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>

#include "http/curl_http_client.h"
#include "integration/cloud_faults_fixture.h"
#include "runpod/runpod_provider.h"

namespace burst {
namespace {

using fakecloud::Faults;
constexpr const char* kKey = "rpa_FAULTTESTKEY0123456789";
constexpr const char* kGpu = "NVIDIA GeForce RTX 4090";

class RunpodFaults : public CloudFaultsTest {
 protected:
  RunpodFaults() : CloudFaultsTest("runpod", kKey) {}

  std::unique_ptr<Provider> provider(const std::string& key, Duration timeout) override {
    RunpodOptions o;
    o.base_url = cloud_.provider_url("runpod");
    o.api_key = key;
    CurlOptions c;
    c.total_timeout = timeout;
    return make_runpod_provider(o, make_curl_http_client(c), clock_);
  }

  PodRequest request() {
    auto vol = driver_->ensure_volume("faults-vol", 10, "US-KS-2");
    EXPECT_TRUE(vol.ok()) << vol.error().message;
    PodRequest r;
    r.job_id = "j1";
    r.name = pod_name("j1", "gpu");
    r.gpu_type = "RTX_4090";
    r.image = "python:3.11-slim";
    r.volume_id = vol.ok() ? vol->id : "";
    r.mount_path = "/workspace";
    r.ssh_public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFaultsKey faults";
    return r;
  }

  PodRecord record() {
    PodRecord rec;
    rec.job_id = "j1";
    rec.role = "gpu";
    rec.gpu_type = "RTX_4090";
    rec.gpu_count = 1;
    return rec;
  }
};

TEST_F(RunpodFaults, HappyPathLeavesNothing) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  auto running = wait_running(pod->id);
  ASSERT_TRUE(running.ok()) << running.error().message;
  EXPECT_EQ(running->ssh.host, "127.0.0.1");
  const auto made = cloud_.state().all_pods();
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].public_key, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFaultsKey faults");
  EXPECT_EQ(made[0].mount_path, "/workspace");
  EXPECT_FALSE(made[0].volume_id.empty());
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_EQ(rec.state, "deleted");
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, LatencyBelowTheTimeoutIsOnlySlow) {
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

TEST_F(RunpodFaults, LatencyAboveTheTimeoutIsATimeoutThatSaysSo) {
  Faults f;
  f.latency_ms = 700;
  set(f);
  auto slow = provider(kKey, Duration(250));
  auto offers = slow->offers(true);
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.error().code, ErrorCode::kTimeout);
  EXPECT_NE(offers.error().message.find("runpod: GET /v2/catalog/gpus: GET 127.0.0.1:"),
            std::string::npos)
      << offers.error().message;
  EXPECT_NE(offers.error().message.find("gave up after 5 attempts"), std::string::npos)
      << offers.error().message;
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, A5xxBurstIsRetriedForReadsAndACreateIsCheckedByNameFirst) {
  PodRequest req = request();
  Faults f;
  // The account key list's 503 (best effort, one try: the run goes on), the create's 503, then
  // the name lookup's 503 (retried).
  f.errors_5xx = 3;
  set(f);
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pods_made(), 1) << "exactly one pod: the 503 create made none, the retry one";
  EXPECT_EQ(requests("POST", "/v2/pods", 503), 1);
  EXPECT_EQ(requests("POST", "/v2/pods", 201), 1);
  EXPECT_GE(requests("GET", "/v2/pods?", 200), 1) << "looked the name up before re-sending";
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, ALong5xxBurstFailsSayingWhatTheServerSaid) {
  Faults f;
  f.errors_5xx = 50;
  f.status_5xx = 502;
  set(f);
  auto offers = driver_->offers(true);
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(offers.error().message,
            "offers: runpod: GET /v2/catalog/gpus: HTTP 502: upstream temporarily unavailable "
            "(gave up after 5 attempts)");
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, RateLimitWithRetryAfterIsWaitedOutEvenForCreate) {
  PodRequest req = request();
  Faults f;
  f.rate_limits = 3;  // the account key list's (best effort: not waited for), the create's two
  f.retry_after_s = 4;
  set(f);
  const Duration slept_before = clock_.total_slept();
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(clock_.total_slept() - slept_before, Duration(8000)) << "Retry-After: 4, twice";
  EXPECT_EQ(pods_made(), 1);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, RateLimitWithoutRetryAfterBacksOff) {
  Faults f;
  f.rate_limits = 3;
  set(f);
  auto pods = driver_->list_pods();
  ASSERT_TRUE(pods.ok()) << pods.error().message;
  EXPECT_GT(clock_.total_slept(), Duration(0));
  EXPECT_EQ(requests("GET", "/v2/pods", 429), 3);

  f.rate_limits = 20;  // more than the retry budget: the user hears it was rate limiting
  set(f);
  auto again = driver_->list_pods();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kRateLimited);
  EXPECT_NE(again.error().message.find("HTTP 429: rate limit exceeded"), std::string::npos)
      << again.error().message;
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, ACreateThatTimesOutButMadeThePodIsFoundByNameNotRepeated) {
  PodRequest req = request();
  Faults f;
  f.create_timeouts = 1;
  f.hang_ms = 1500;  // the driver gives up after 1 s
  set(f);
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pod->name, req.name);
  EXPECT_EQ(pods_made(), 1) << "the create was sent again";
  EXPECT_EQ(rec.state, "alive");
  EXPECT_EQ(rec.pod_id, pod->id);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, APodStuckProvisioningTimesOutAndIsStillDeleted) {
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

TEST_F(RunpodFaults, ADeleteThatLingersIsPolledUntilReallyGone) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  ASSERT_TRUE(wait_running(pod->id).ok());
  Faults f;
  f.delete_lingers = 4;
  set(f);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_EQ(rec.state, "deleted");
  EXPECT_GE(requests("GET", "/v2/pods/" + pod->id, 200), 3) << "it was seen still running";
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, ADeleteThatNeverTakesFailsLoudlyNamingThePodThenReapWorks) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  Faults f;
  f.delete_lingers = 100000;
  set(f);
  Status st = verify_delete(&rec);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "delete runpod pod " + pod->id + ": still present after the deadline");
  EXPECT_EQ(rec.state, "deleting") << "left for burst reap";
  EXPECT_EQ(live().size(), 1u);
  set(Faults{});  // the provider recovers; reap's retry deletes it
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, AMalformedListIsAnErrorNeverZeroPods) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  Faults f;
  f.malformed_list = true;
  set(f);
  auto pods = driver_->list_pods();
  ASSERT_FALSE(pods.ok()) << "a malformed list read as " << pods->size() << " pods";
  EXPECT_EQ(pods.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(pods.error().message.find("runpod: list pods: the response is not the documented JSON"),
            std::string::npos)
      << pods.error().message;
  // A pod whose id was never learned must not be concluded "never created".
  PodRecord lost = rec;
  lost.pod_id.clear();
  Status st = verify_delete(&lost);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("find pod burst-j1-gpu"), std::string::npos)
      << st.error().message;
  EXPECT_NE(lost.state, "create-failed");
  set(Faults{});
  ASSERT_TRUE(verify_delete(&lost).ok());
  EXPECT_EQ(lost.pod_id, pod->id);
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, NoCapacityShowsInOffersAndCreateSaysSo) {
  PodRequest req = request();
  Faults f;
  f.no_capacity = {kGpu};
  set(f);
  auto offers = driver_->offers(true);
  ASSERT_TRUE(offers.ok()) << offers.error().message;
  for (const auto& o : *offers)
    if (o.gpu_type == "RTX_4090") {
      EXPECT_FALSE(o.available) << o.region;
    }
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(pod.error().message,
            "create pod burst-j1-gpu: runpod: POST /v2/pods: HTTP 400: There are no longer any "
            "instances available with the requested specifications. Please refresh and try "
            "again.");
  EXPECT_EQ(rec.state, "create-failed");
  EXPECT_EQ(pods_made(), 0);
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, AuthFailureSaysTheKeyWasRefusedWithoutShowingIt) {
  PodRequest req = request();
  Faults f;
  f.auth_failure = true;
  set(f);
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error().code, ErrorCode::kAuth);
  EXPECT_EQ(pod.error().message,
            "create pod burst-j1-gpu: runpod: POST /v2/pods: HTTP 401: invalid bearer token");
  EXPECT_EQ(rec.state, "create-failed");
  EXPECT_EQ(pods_made(), 0);

  set(Faults{});
  auto wrong = provider("rpa_wrong_key_000", Duration(1000));
  auto offers = wrong->offers(true);
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.error().code, ErrorCode::kAuth);
  EXPECT_EQ(offers.error().message.find("rpa_wrong_key_000"), std::string::npos);

  auto none = provider("", Duration(1000));
  auto list = none->list_pods();
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().message,
            "runpod: no API key (set RUNPOD_API_KEY, or providers.runpod.api_key in config.yaml)");
  EXPECT_TRUE(live().empty());
}

TEST_F(RunpodFaults, KnobsCanBeSetOverTheAdminPath) {
  auto http = make_curl_http_client();
  auto r = http->send({"POST",
                       cloud_.base_url() + "/_fake/faults?provider=runpod",
                       {},
                       R"({"errors_5xx":1,"status_5xx":500})",
                       false});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(cloud_.state().faults("runpod").errors_5xx, 1);
  auto st = http->send({"GET", cloud_.base_url() + "/_fake/state", {}, "", true});
  ASSERT_TRUE(st.ok());
  EXPECT_NE(st->body.find("\"errors_5xx\":1"), std::string::npos);
  EXPECT_TRUE(live().empty());
}

// errno of a TCP connect to host:port (0: it connected).
int connect_errno(const std::string& host, int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, host.c_str(), &a.sin_addr);
  const int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  const int err = rc == 0 ? 0 : errno;
  ::close(fd);
  return err;
}

// The user's own keys stay on the account; burst's is added once, with a GET and a merged PUT.
TEST_F(RunpodFaults, BurstsKeyIsMergedIntoTheAccountsKeysNeverReplacingThem) {
  const std::string users = "ssh-rsa AAAAB3NzaC1yc2EUserKey me@laptop";
  cloud_.state().set_account_keys("runpod", {users});
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(cloud_.state().account_keys("runpod"),
            (std::vector<std::string>{users, request().ssh_public_key}));
  EXPECT_EQ(requests("PUT", "/v2/account/ssh-keys", 200), 1);
  PodRecord again = record();
  PodRequest second = request();
  second.name = "burst-j2-gpu";
  auto pod2 = create(second, &again);
  ASSERT_TRUE(pod2.ok()) << pod2.error().message;
  EXPECT_EQ(requests("PUT", "/v2/account/ssh-keys", 200), 1) << "registered once";
  EXPECT_EQ(cloud_.state().account_keys("runpod").size(), 2u);
  ASSERT_TRUE(verify_delete(&rec).ok());
  ASSERT_TRUE(verify_delete(&again).ok());
  EXPECT_TRUE(live().empty());
}

// The image has no sshd and its start command does not work: the pod still turns RUNNING with
// ssh.direct (the 22/tcp mapping, as documented), but nothing listens there.
TEST_F(RunpodFaults, AnImageWithoutSshdAndNoWorkingBootstrapRefusesConnections) {
  Faults f;
  f.no_ssh_bootstrap = true;
  set(f);
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  auto running = wait_running(pod->id);
  ASSERT_TRUE(running.ok()) << running.error().message;
  ASSERT_GT(running->ssh.port, 0);
  EXPECT_EQ(connect_errno(running->ssh.host, running->ssh.port), ECONNREFUSED);
  ASSERT_EQ(cloud_.state().all_pods().size(), 1u);
  EXPECT_FALSE(cloud_.state().all_pods()[0].sshd);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());

  // The same image with the bootstrap working: sshd answers on the published port.
  set(Faults{});
  PodRecord ok = record();
  PodRequest req = request();
  req.name = "burst-j3-gpu";
  auto good = create(req, &ok);
  ASSERT_TRUE(good.ok()) << good.error().message;
  auto up = wait_running(good->id);
  ASSERT_TRUE(up.ok()) << up.error().message;
  EXPECT_EQ(connect_errno(up->ssh.host, up->ssh.port), 0);
  ASSERT_TRUE(verify_delete(&ok).ok());
  EXPECT_TRUE(live().empty());
}

// The emulator models RunPod, not burst: a pod created straight through the API with an image
// that has no sshd and no start command is RUNNING with ssh.direct and refuses connections; a
// RunPod image with startSsh gets the account's keys; a bad key list is a 422.
TEST_F(RunpodFaults, EmulatorGivesSshOnlyWhereThePodWouldReallyHaveIt) {
  auto http = make_curl_http_client();
  const std::string base = cloud_.provider_url("runpod");
  auto send = [&](const std::string& method, const std::string& path, const std::string& body) {
    return http->send(
        {method, base + path, {{"Authorization", std::string("Bearer ") + kKey}}, body, true});
  };
  const std::string key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAccountKey me@laptop";
  auto bad = send("PUT", "/v2/account/ssh-keys", R"({"keys":["not a key"]})");
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->status, 422) << bad->body;
  auto put = send("PUT", "/v2/account/ssh-keys", R"({"keys":[")" + key + R"("]})");
  ASSERT_TRUE(put.ok());
  EXPECT_EQ(put->status, 200) << put->body;

  const std::string plain = R"({"name":"plain","image":"python:3.11-slim","ports":["22/tcp"],)"
                            R"("gpu":{"id":"NVIDIA L4"}})";
  const std::string official = R"({"name":"official","image":"runpod/pytorch:2.4.0",)"
                               R"("ports":["22/tcp"],"startSsh":true,"gpu":{"id":"NVIDIA L4"}})";
  for (const std::string& body : {plain, official}) {
    auto made = send("POST", "/v2/pods", body);
    ASSERT_TRUE(made.ok());
    ASSERT_EQ(made->status, 201) << made->body;
    const std::string id = nlohmann::json::parse(made->body)["id"];
    auto running = wait_running(id);
    ASSERT_TRUE(running.ok()) << running.error().message;
    ASSERT_GT(running->ssh.port, 0) << "ssh.direct is published either way";
    const bool official_image = body == official;
    EXPECT_EQ(connect_errno(running->ssh.host, running->ssh.port),
              official_image ? 0 : ECONNREFUSED)
        << body;
    for (const auto& p : cloud_.state().all_pods()) {
      if (p.id == id) {
        EXPECT_EQ(p.public_key, official_image ? key : "") << body;
      }
    }
    ASSERT_EQ(send("DELETE", "/v2/pods/" + id, "")->status, 204);
  }
  EXPECT_TRUE(live().empty());
}

}  // namespace
}  // namespace burst

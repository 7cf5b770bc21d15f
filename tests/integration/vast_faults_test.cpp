// The Vast driver against the emulator with every fault knob. The job's own pod lifecycle
// (create_recorded_pod, wait_until_running, delete_and_verify with SQLite in memory) runs on a
// fake clock, so backoff and polling take no real time; the emulator and its sshd pods are real.
// In each test the emulator's own state is the judge: no pod is left running at the end, and the
// error a user would see says what happened.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "http/api_call.h"
#include "http/curl_http_client.h"
#include "integration/cloud_faults_fixture.h"
#include "vast/vast_provider.h"

namespace burst {
namespace {

using fakecloud::Faults;
constexpr const char* kKey = "vast_FAULTTESTKEY0123456789abcdef";
constexpr const char* kRegion = "Washington, US (machine 41201)";
constexpr const char* kPubKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIVastFaultsKey faults";

// Lets a test arm a knob exactly when a given request goes out (e.g. only the create's PUT).
class HookedHttp : public HttpClient {
 public:
  HookedHttp(std::unique_ptr<HttpClient> inner, std::function<void(const HttpRequest&)>* hook)
      : inner_(std::move(inner)), hook_(hook) {}
  Result<HttpResponse> send(const HttpRequest& r) override {
    if (*hook_) (*hook_)(r);
    return inner_->send(r);
  }

 private:
  std::unique_ptr<HttpClient> inner_;
  std::function<void(const HttpRequest&)>* hook_;
};

class VastFaults : public CloudFaultsTest {
 protected:
  VastFaults() : CloudFaultsTest("vast", kKey) {}

  std::unique_ptr<Provider> provider(const std::string& key, Duration timeout) override {
    VastOptions o;
    o.base_url = cloud_.provider_url("vast");
    o.api_key = key;
    CurlOptions c;
    c.total_timeout = timeout;
    return make_vast_provider(o, std::make_unique<HookedHttp>(make_curl_http_client(c), &hook_),
                              clock_);
  }

  // Arms `f` just before the next instance create (PUT /api/v0/asks/...) goes out.
  void on_create(const Faults& f) {
    hook_ = [this, f](const HttpRequest& r) {
      if (r.method == "PUT" && r.url.find("/api/v0/asks/") != std::string::npos) {
        set(f);
        hook_ = nullptr;
      }
    };
  }

  PodRequest request() {
    auto vol = driver_->ensure_volume("faults-vol", 10, kRegion);
    EXPECT_TRUE(vol.ok()) << vol.error().message;
    PodRequest r;
    r.job_id = "j1";
    r.name = pod_name("j1", "gpu");
    r.gpu_type = "RTX_4090";
    r.image = "python:3.11-slim";
    r.volume_id = vol.ok() ? vol->id : "";
    r.mount_path = "/workspace";
    r.ssh_public_key = kPubKey;
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

  std::function<void(const HttpRequest&)> hook_;
};

TEST_F(VastFaults, HappyPathPutsThePodOnTheVolumesMachineWithTheAccountKey) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  auto running = wait_running(pod->id);
  ASSERT_TRUE(running.ok()) << running.error().message;
  EXPECT_EQ(running->ssh.host, "127.0.0.1");
  EXPECT_EQ(running->ssh.user, "root");
  const auto made = cloud_.state().all_pods();
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].public_key, kPubKey);
  EXPECT_EQ(made[0].name, "burst-j1-gpu") << "the label is our tag";
  EXPECT_EQ(made[0].mount_path, "/workspace");
  EXPECT_EQ(made[0].region, "41201") << "the volume's machine";
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_EQ(rec.state, "deleted");
  EXPECT_GE(requests("GET", "/api/v1/instances/", 200), 0);
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, LatencyBelowTheTimeoutIsOnlySlow) {
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

TEST_F(VastFaults, LatencyAboveTheTimeoutIsATimeoutThatSaysSo) {
  Faults f;
  f.latency_ms = 700;
  set(f);
  auto slow = provider(kKey, Duration(250));
  auto offers = slow->offers(true);
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.error().code, ErrorCode::kTimeout);
  EXPECT_NE(offers.error().message.find("vast: POST /vast/api/v0/bundles/: POST 127.0.0.1"),
            std::string::npos)
      << offers.error().message;
  EXPECT_NE(offers.error().message.find("gave up after 5 attempts"), std::string::npos)
      << offers.error().message;
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, A5xxOnCreateIsCheckedByLabelBeforeSendingAgain) {
  PodRequest req = request();
  Faults f;
  f.errors_5xx = 2;  // the create's 503, then the label lookup's 503 (retried)
  on_create(f);
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pods_made(), 1) << "exactly one instance: the 503 create made none, the retry one";
  EXPECT_EQ(requests("PUT", "/api/v0/asks/", 503), 1);
  EXPECT_EQ(requests("PUT", "/api/v0/asks/", 200), 1);
  EXPECT_GE(requests("GET", "/api/v1/instances/", 200), 1) << "looked the label up first";
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, ALong5xxBurstFailsSayingWhatTheServerSaid) {
  Faults f;
  f.errors_5xx = 50;
  f.status_5xx = 502;
  set(f);
  auto offers = driver_->offers(true);
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(offers.error().message,
            "offers: vast: POST /vast/api/v0/bundles/: HTTP 502: server_error: upstream "
            "temporarily unavailable (gave up after 5 attempts)");
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, RateLimitWithRetryAfterIsWaitedOutEvenForCreate) {
  PodRequest req = request();
  Faults f;
  f.rate_limits = 2;
  f.retry_after_s = 4;
  on_create(f);
  const Duration slept_before = clock_.total_slept();
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(clock_.total_slept() - slept_before, Duration(8000)) << "Retry-After: 4, twice";
  EXPECT_EQ(requests("PUT", "/api/v0/asks/", 429), 2);
  EXPECT_EQ(pods_made(), 1);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, RateLimitWithoutRetryAfterBacksOffAsVastSendsNone) {
  Faults f;
  f.rate_limits = 3;
  set(f);
  auto pods = driver_->list_pods();
  ASSERT_TRUE(pods.ok()) << pods.error().message;
  EXPECT_GT(clock_.total_slept(), Duration(0));
  EXPECT_EQ(requests("GET", "/api/v1/instances/", 429), 3);

  f.rate_limits = 20;  // more than the retry budget: the user hears it was rate limiting
  set(f);
  auto again = driver_->list_pods();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kRateLimited);
  EXPECT_NE(again.error().message.find("HTTP 429: API requests too frequent"), std::string::npos)
      << again.error().message;
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, ACreateThatTimesOutButMadeTheInstanceIsFoundByLabelNotRepeated) {
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
  EXPECT_EQ(requests("PUT", "/api/v0/asks/", 200), 1);
  EXPECT_EQ(rec.state, "alive");
  EXPECT_EQ(rec.pod_id, pod->id);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, AnInstanceStuckProvisioningTimesOutAndIsStillDestroyed) {
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

TEST_F(VastFaults, ADestroyThatLingersIsPolledUntilReallyGone) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  ASSERT_TRUE(wait_running(pod->id).ok());
  Faults f;
  f.delete_lingers = 4;
  set(f);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_EQ(rec.state, "deleted");
  EXPECT_GE(requests("GET", "/api/v0/instances/" + pod->id, 200), 3) << "seen still running";
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, ADestroyThatNeverTakesFailsLoudlyNamingTheInstanceThenReapWorks) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  Faults f;
  f.delete_lingers = 100000;
  set(f);
  Status st = verify_delete(&rec);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "delete vast pod " + pod->id + ": still present after the deadline");
  EXPECT_EQ(rec.state, "deleting") << "left for burst reap";
  EXPECT_EQ(live().size(), 1u);
  set(Faults{});  // the provider recovers; reap's retry destroys it
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, AMalformedListIsAnErrorNeverZeroInstances) {
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
      pods.error().message.find("vast: list instances: the response is not the documented JSON"),
      std::string::npos)
      << pods.error().message;
  // An instance whose id was never learned must not be concluded "never created".
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

TEST_F(VastFaults, NoCapacityShowsInOffersAndCreateSaysSo) {
  PodRequest req = request();
  Faults f;
  f.no_capacity = {"RTX 4090"};
  set(f);
  auto offers = driver_->offers(true);
  ASSERT_TRUE(offers.ok()) << offers.error().message;
  for (const auto& o : *offers) EXPECT_NE(o.gpu_type, "RTX_4090") << "a rented offer was listed";
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(pod.error().message,
            "create instance burst-j1-gpu: vast: no rentable RTX_4090 x1 offer on machine 41201 "
            "(where volume " +
                req.volume_id + " lives)");
  EXPECT_EQ(rec.state, "create-failed");
  EXPECT_EQ(pods_made(), 0);
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, AnOfferTakenBetweenSearchAndCreateFallsToTheNextOne) {
  PodRequest req = request();
  req.volume_id.clear();  // any machine: 412020 (Quebec) is cheapest, then 412010
  // Another tenant rents the cheapest offer right before our PUT lands.
  hook_ = [this](const HttpRequest& r) {
    if (r.method == "PUT" && r.url.find("/api/v0/asks/412020/") != std::string::npos) {
      fakecloud::FakePod other;
      other.provider = "vast";
      other.id = "99";
      other.name = "someone-else";
      other.extra = {{"ask_id", 412020}};
      ASSERT_TRUE(cloud_.state().create_pod(other).ok());
    }
  };
  PodRecord rec = record();
  auto pod = create(req, &rec);
  hook_ = nullptr;
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(requests("PUT", "/api/v0/asks/412020/", 410), 1);
  EXPECT_EQ(requests("PUT", "/api/v0/asks/412010/", 200), 1);
  EXPECT_EQ(pods_made(), 2);
  ASSERT_TRUE(verify_delete(&rec).ok());
  ASSERT_TRUE(cloud_.state().delete_pod("vast", "99"));
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, AuthFailureSaysTheKeyWasRefusedWithoutShowingIt) {
  PodRequest req = request();
  Faults f;
  f.auth_failure = true;
  set(f);
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error().code, ErrorCode::kAuth);
  EXPECT_EQ(pod.error().message,
            "create instance burst-j1-gpu: list ssh keys: vast: GET /vast/api/v0/ssh/: HTTP 401: "
            "auth_error: Invalid user key");
  EXPECT_EQ(rec.state, "create-failed");
  EXPECT_EQ(pods_made(), 0);

  set(Faults{});
  auto wrong = provider("vast_wrong_key_000", Duration(1000));
  auto offers = wrong->offers(true);
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.error().code, ErrorCode::kAuth);
  EXPECT_EQ(offers.error().message.find("vast_wrong_key_000"), std::string::npos);

  auto none = provider("", Duration(1000));
  auto list = none->list_pods();
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().message,
            "vast: no API key (set VAST_API_KEY, or providers.vast.api_key in config.yaml)");
  EXPECT_TRUE(live().empty());
}

TEST_F(VastFaults, ANewVolumeIsAnnouncedColdNamingTheMachineItDoesNotReach) {
  // Vast volumes live on one machine: a run planned on another machine gets a new, empty one.
  auto first = driver_->ensure_volume("cache", 10, kRegion);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_NE(first->note.find("created empty on machine 41201"), std::string::npos) << first->note;
  EXPECT_EQ(first->note.find("stays there"), std::string::npos) << "no other volume yet";

  auto other = driver_->ensure_volume("cache", 10, "Quebec, CA (machine 41202)");
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_NE(other->id, first->id);
  EXPECT_NE(other->note.find("created empty on machine 41202"), std::string::npos) << other->note;
  EXPECT_NE(other->note.find("on machine 41201 stays there"), std::string::npos) << other->note;

  auto again = driver_->ensure_volume("cache", 10, kRegion);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->id, first->id);
  EXPECT_TRUE(again->note.empty()) << "an existing volume is warm: " << again->note;
  EXPECT_EQ(cloud_.state().volumes("vast").size(), 2u);
}

}  // namespace
}  // namespace burst

namespace burst {
namespace {

// The emulator's answers follow Vast's spec where they used to follow burst: a loading instance
// leaves out ssh_host / ssh_port / public_ipaddr / ports (non-nullable in the spec) rather than
// sending null; a destroyed one is showInstance's documented 400; a bad key on offer search is
// searchOffers' documented 404 "Invalid user key"; an undocumented search field is refused. The
// driver reads each of them right.
TEST_F(VastFaults, EmulatorAnswersAsTheSpecDocumentsAndTheDriverReadsThem) {
  auto http = make_curl_http_client({});
  const std::string base = cloud_.provider_url("vast");
  auto get = [&](const std::string& path) {
    return http->send(bearer_request("GET", base + path, kKey));
  };
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  auto loading = get("/api/v0/instances/" + pod->id + "/");
  ASSERT_TRUE(loading.ok());
  auto j = nlohmann::json::parse(loading->body);
  ASSERT_TRUE(j["instances"].is_object()) << loading->body;
  if (j["instances"]["actual_status"] != "running") {
    for (const char* k : {"ssh_host", "ssh_port", "public_ipaddr", "ports"}) {
      EXPECT_FALSE(j["instances"].contains(k)) << k << ": " << loading->body;
    }
  }
  ASSERT_TRUE(wait_running(pod->id).ok());
  auto running = nlohmann::json::parse(get("/api/v0/instances/" + pod->id + "/")->body);
  EXPECT_TRUE(running["instances"]["ssh_port"].is_number_integer()) << running.dump();
  ASSERT_TRUE(verify_delete(&rec).ok());
  auto gone = get("/api/v0/instances/" + pod->id + "/");
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->status, 400);
  EXPECT_EQ(nlohmann::json::parse(gone->body)["error"], "invalid_args") << gone->body;
  auto read = driver_->get_pod(pod->id);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, ErrorCode::kNotFound) << read.error().message;

  auto bad = http->send(bearer_request("POST", base + "/api/v0/bundles/", "wrong", "{}"));
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->status, 404);
  EXPECT_EQ(nlohmann::json::parse(bad->body)["msg"], "Invalid user key") << bad->body;
  auto odd = http->send(bearer_request("POST", base + "/api/v0/bundles/", kKey,
                                       R"({"gpu_nmae": {"eq": "RTX 4090"}})"));
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->status, 400) << odd->body;
  EXPECT_TRUE(live().empty());
}

}  // namespace
}  // namespace burst

// What only one cloud has, beside the parameterised fault suite (cloud_faults_test.cpp) on the
// same fixture and table row: RunPod's account key list and SSH bootstrap, Vast's offers taken
// between search and create and its per-machine volumes, Lambda's one registered key, and each
// emulator answering as its provider's spec documents.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <nlohmann/json.hpp>

#include "http/api_call.h"
#include "http/curl_http_client.h"
#include "integration/cloud_faults_fixture.h"

namespace burst {
namespace {

using fakecloud::Faults;

class RunpodFaults : public CloudFaults {
 protected:
  RunpodFaults() : CloudFaults(runpod_case()) {}
};
class LambdaFaults : public CloudFaults {
 protected:
  LambdaFaults() : CloudFaults(lambda_case()) {}
};
class VastFaults : public CloudFaults {
 protected:
  VastFaults() : CloudFaults(vast_case()) {}
};

// Lambda registers burst's key once (POST /ssh-keys) and a second instance reuses it; a
// terminate is Lambda's delete.
TEST_F(LambdaFaults, TheKeyIsRegisteredOnceAndASecondInstanceReusesIt) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  ASSERT_TRUE(wait_running(pod->id).ok());
  EXPECT_EQ(requests("POST", "/ssh-keys", 200), 1) << "the key was registered once";
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_GE(requests("POST", "/instance-operations/terminate", 200), 1);
  EXPECT_TRUE(live().empty());
  PodRecord rec2 = record("again");
  ASSERT_TRUE(create(request("again"), &rec2).ok());
  EXPECT_EQ(requests("POST", "/ssh-keys", 200), 1);
  ASSERT_TRUE(verify_delete(&rec2).ok());
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

// A spot pod goes through GraphQL's podRentInterruptable at the type's minimumBidPrice x 1.10; a
// rent whose answer is lost is found by name in the v2 list, not rented twice; v2 reads it, and
// once RunPod stops it (EXITED) it is a preemption, which a delete still cleans up.
TEST_F(RunpodFaults, ASpotPodIsRentedThroughGraphqlOnceAndReadsPreemptedWhenExited) {
  driver_ = provider(c_.key, Duration(1000));
  auto offers = driver_->offers(true);
  ASSERT_TRUE(offers.ok()) << offers.error().message;
  bool priced = false;
  for (const auto& o : *offers)
    if (o.gpu_type == "RTX_4090" && o.gpu_count == 2 && o.spot_usd_per_hour)
      priced = std::abs(*o.spot_usd_per_hour - 0.77) < 1e-9;  // 0.35 x 1.10 per GPU, x 2
  EXPECT_TRUE(priced);
  PodRequest req = request();
  req.spot = true;
  Faults f;
  f.create_timeouts = 1;
  f.hang_ms = 1500;  // the driver gives up after 1 s
  set(f);
  PodRecord rec = record();
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pods_named(req.name), 1) << "the rent was sent again";
  EXPECT_EQ(requests("POST", "/v2/pods", 201), 0) << "a spot pod is never a v2 create";
  ASSERT_EQ(cloud_.state().all_pods().size(), 1u);
  EXPECT_EQ(cloud_.state().all_pods()[0].extra.value("bidPerGpu", 0.0), 0.385);
  auto up = wait_running(pod->id);
  ASSERT_TRUE(up.ok()) << up.error().message;
  EXPECT_FALSE(up->preempted);
  ASSERT_TRUE(cloud_.state().preempt("runpod", pod->id));
  auto taken = driver_->get_pod(pod->id);
  ASSERT_TRUE(taken.ok()) << taken.error().message;
  EXPECT_TRUE(taken->preempted);
  EXPECT_EQ(taken->state, PodState::kStopping);
  EXPECT_EQ(taken->status_note, "EXITED: RunPod stopped the interruptible pod");
  ASSERT_TRUE(verify_delete(&rec).ok());
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
        {method, base + path, {{"Authorization", std::string("Bearer ") + c_.key}}, body, true});
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

TEST_F(VastFaults, AnOfferTakenBetweenSearchAndCreateFallsToTheNextOne) {
  PodRequest req = request();
  req.volume_id.clear();  // any machine: 412020 (Quebec) is cheapest, then 412010
  // Another tenant rents the cheapest offer's machine (both its GPUs) right before our PUT lands.
  hook_ = [this](const HttpRequest& r) {
    if (r.method == "PUT" && r.url.find("/api/v0/asks/412020/") != std::string::npos) {
      fakecloud::FakePod other;
      other.provider = "vast";
      other.id = "99";
      other.name = "someone-else";
      other.gpu_count = 2;
      other.extra = {{"ask_id", 412021}, {"machine_id", 41202}};
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

TEST_F(VastFaults, ANewVolumeIsAnnouncedColdNamingTheMachineItDoesNotReach) {
  // Vast volumes live on one machine: a run planned on another machine gets a new, empty one.
  auto first = driver_->ensure_volume("cache", 10, c_.region);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_NE(first->note.find("created empty on machine 41201"), std::string::npos) << first->note;
  EXPECT_EQ(first->note.find("stays there"), std::string::npos) << "no other volume yet";

  auto other = driver_->ensure_volume("cache", 10, "Quebec, CA (machine 41202)");
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_NE(other->id, first->id);
  EXPECT_NE(other->note.find("created empty on machine 41202"), std::string::npos) << other->note;
  EXPECT_NE(other->note.find("on machine 41201 stays there"), std::string::npos) << other->note;

  auto again = driver_->ensure_volume("cache", 10, c_.region);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->id, first->id);
  EXPECT_TRUE(again->note.empty()) << "an existing volume is warm: " << again->note;
  EXPECT_EQ(cloud_.state().volumes("vast").size(), 2u);
}

// The emulator's answers follow Vast's spec where they used to follow burst: a loading instance
// leaves out ssh_host / ssh_port / public_ipaddr / ports (non-nullable in the spec) rather than
// sending null; a destroyed one is showInstance's documented 400; a bad key on offer search is
// searchOffers' documented 404 "Invalid user key"; an undocumented search field is refused. The
// driver reads each of them right.
TEST_F(VastFaults, EmulatorAnswersAsTheSpecDocumentsAndTheDriverReadsThem) {
  auto http = make_curl_http_client({});
  const std::string base = cloud_.provider_url("vast");
  auto get = [&](const std::string& path) {
    return http->send(bearer_request("GET", base + path, c_.key));
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
  // destroyInstance documents no request body, so the driver's DELETE carries none.
  int destroys = 0;
  for (const auto& e : cloud_.state().request_log())
    if (e.method == "DELETE" && e.path == "/vast/api/v0/instances/" + pod->id + "/") {
      ++destroys;
      EXPECT_EQ(e.body, "") << "destroyInstance takes no body";
    }
  EXPECT_GE(destroys, 1);
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
  auto odd = http->send(bearer_request("POST", base + "/api/v0/bundles/", c_.key,
                                       R"({"gpu_nmae": {"eq": "RTX 4090"}})"));
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->status, 400) << odd->body;
  EXPECT_TRUE(live().empty());
}

}  // namespace
}  // namespace burst

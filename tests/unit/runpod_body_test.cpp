// The exact JSON the RunPod driver sends, pinned, and every field checked against RunPod v2's
// CreatePodRequest / CreateNetworkVolumeRequest (field names and types from runpod/docs
// api-reference-v2/openapi.json; both schemas reject unknown fields).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "runpod/runpod_graphql.h"
#include "runpod/runpod_json.h"
#include "runpod/runpod_provider.h"
#include "runpod/runpod_ssh.h"
#include "vast/vast_json.h"

namespace burst {
namespace {

using nlohmann::json;

PodRequest gpu_request() {
  PodRequest r;
  r.name = "burst-j42-gpu";
  r.job_id = "j42";
  r.gpu = true;
  r.gpu_type = "RTX_4090";
  r.gpu_count = 2;
  r.image = "python:3.11-slim";
  r.volume_id = "agv6w2qcg7";
  r.mount_path = "/workspace";
  r.ssh_public_key = "ssh-ed25519 AAAAkey burst";
  r.env = {{"TTS_STEPS", "8"}};
  r.ports = {22, 8888};
  return r;
}

// CreatePodRequest's properties and their JSON types (spec).
void expect_valid_create_pod(const json& b) {
  const std::map<std::string, json::value_t> props = {{"args", json::value_t::string},
                                                      {"disk", json::value_t::number_integer},
                                                      {"env", json::value_t::object},
                                                      {"image", json::value_t::string},
                                                      {"ports", json::value_t::array},
                                                      {"registry", json::value_t::string},
                                                      {"name", json::value_t::string},
                                                      {"cloud", json::value_t::string},
                                                      {"cpu", json::value_t::object},
                                                      {"dataCenterIds", json::value_t::array},
                                                      {"globalNetworking", json::value_t::boolean},
                                                      {"gpu", json::value_t::object},
                                                      {"mounts", json::value_t::object},
                                                      {"startJupyter", json::value_t::boolean},
                                                      {"startSsh", json::value_t::boolean},
                                                      {"templateId", json::value_t::string}};
  ASSERT_TRUE(b.is_object());
  ASSERT_TRUE(b.contains("name"));
  EXPECT_NE(b.contains("gpu"), b.contains("cpu")) << "exactly one of gpu/cpu";
  for (const auto& [k, v] : b.items()) {
    auto it = props.find(k);
    ASSERT_NE(it, props.end()) << "not in CreatePodRequest: " << k;
    // An integer reads back as unsigned when it is not negative: both are JSON integers.
    if (it->second == json::value_t::number_integer)
      EXPECT_TRUE(v.is_number_integer()) << k;
    else
      EXPECT_EQ(v.type(), it->second) << k;
  }
  for (const auto& [k, v] : b["env"].items()) EXPECT_TRUE(v.is_string()) << k;
  for (const auto& p : b["ports"]) EXPECT_TRUE(p.is_string());
  if (b.contains("gpu")) {
    for (const auto& [k, v] : b["gpu"].items())
      EXPECT_TRUE(k == "id" || k == "count") << "not in CreateGpuConfig: " << k;
    EXPECT_TRUE(b["gpu"]["id"].is_string());
    EXPECT_TRUE(b["gpu"]["count"].is_number_integer());
    EXPECT_TRUE(b["cloud"] == "SECURE" || b["cloud"] == "COMMUNITY");
  } else {
    for (const auto& [k, v] : b["cpu"].items())
      EXPECT_TRUE(k == "id" || k == "vcpuCount") << "not in CreateCpuConfig: " << k;
    EXPECT_GE(b["cpu"]["vcpuCount"].get<int>(), 2);
    EXPECT_FALSE(b.contains("mounts") && b["mounts"].contains("persistent"));
  }
  if (b.contains("mounts")) {
    for (const auto& [k, v] : b["mounts"].items()) EXPECT_EQ(k, "network");
    ASSERT_LE(b["mounts"]["network"].size(), 1u);  // maxItems 1
    for (const auto& [k, v] : b["mounts"]["network"][0].items()) {
      EXPECT_TRUE(k == "volumeId" || k == "path") << "not in NetworkMount: " << k;
      EXPECT_TRUE(v.is_string());
    }
  }
}

// python:3.11-slim runs no sshd: the start command installs one (pinned in runpod_ssh_test).
std::string without_bootstrap(const std::string& body) {
  json b = json::parse(body);
  EXPECT_EQ(b.value("args", ""), *runpod_ssh_bootstrap_args("ssh-ed25519 AAAAkey burst"));
  b.erase("args");
  return b.dump();
}

TEST(RunpodBody, GpuPodIsPinned) {
  const std::string body =
      runpod_create_pod_body(gpu_request(), "NVIDIA GeForce RTX 4090", 2, "US-KS-2", "SECURE");
  EXPECT_EQ(
      without_bootstrap(body),
      R"({"cloud":"SECURE","dataCenterIds":["US-KS-2"],"env":{"PUBLIC_KEY":"ssh-ed25519 )"
      R"(AAAAkey burst","TTS_STEPS":"8"},"gpu":{"count":2,"id":"NVIDIA GeForce RTX 4090"},)"
      R"("image":"python:3.11-slim","mounts":{"network":[{"path":"/workspace","volumeId":)"
      R"("agv6w2qcg7"}]},"name":"burst-j42-gpu","ports":["22/tcp","8888/tcp"],"startSsh":true})");
  expect_valid_create_pod(json::parse(body));
}

TEST(RunpodBody, CpuPodIsPinned) {
  PodRequest r = gpu_request();
  r.name = "burst-j42-cpu";
  r.gpu = false;
  r.gpu_count = 0;
  r.ports = {};
  const std::string body = runpod_create_pod_body(r, "cpu3c", 2, "US-KS-2", "SECURE");
  EXPECT_EQ(without_bootstrap(body),
            R"({"cpu":{"id":"cpu3c","vcpuCount":2},"dataCenterIds":["US-KS-2"],"env":)"
            R"({"PUBLIC_KEY":"ssh-ed25519 AAAAkey burst","TTS_STEPS":"8"},"image":)"
            R"("python:3.11-slim","mounts":{"network":[{"path":"/workspace","volumeId":)"
            R"("agv6w2qcg7"}]},"name":"burst-j42-cpu","ports":["22/tcp"],"startSsh":true})");
  expect_valid_create_pod(json::parse(body));
}

TEST(RunpodBody, PodWithoutVolumeOrDataCentreLeavesThemOut) {
  PodRequest r = gpu_request();
  r.volume_id.clear();
  json b = json::parse(runpod_create_pod_body(r, "NVIDIA L4", 2, "", "SECURE"));
  EXPECT_FALSE(b.contains("mounts"));
  EXPECT_FALSE(b.contains("dataCenterIds"));
  expect_valid_create_pod(b);
}

// resources.disk_gb travels as CreatePodRequest.disk (GB); unset, the field is left out and RunPod
// applies its default.
TEST(RunpodBody, ThePodsOwnDiskIsSentOnlyWhenGiven) {
  PodRequest r = gpu_request();
  EXPECT_FALSE(
      json::parse(runpod_create_pod_body(r, "NVIDIA L4", 2, "", "SECURE")).contains("disk"));
  r.disk_gb = 300;
  json b = json::parse(runpod_create_pod_body(r, "NVIDIA L4", 2, "", "SECURE"));
  EXPECT_EQ(b["disk"], 300);
  expect_valid_create_pod(b);
}

TEST(RunpodBody, NetworkVolumeIsPinnedAndSizeClampedToTheSpecsRange) {
  EXPECT_EQ(runpod_create_volume_body("tts-cache", 50, "EU-RO-1"),
            R"({"dataCenter":"EU-RO-1","name":"tts-cache","size":50})");
  EXPECT_EQ(json::parse(runpod_create_volume_body("v", 1, "EU-RO-1"))["size"], 10);
  EXPECT_EQ(json::parse(runpod_create_volume_body("v", 10000, "EU-RO-1"))["size"], 4096);
}

TEST(RunpodJson, MapsGpuIdsToCatalogNames) {
  EXPECT_EQ(runpod_gpu_to_catalog("NVIDIA GeForce RTX 4090"), "RTX_4090");
  EXPECT_EQ(runpod_gpu_to_catalog("NVIDIA H100 80GB HBM3"), "H100_SXM");
  EXPECT_EQ(runpod_gpu_to_catalog("NVIDIA Brand New 9000"), "BRAND_NEW_9000");
  EXPECT_EQ(runpod::runpod_id_for("RTX_5090"), "NVIDIA GeForce RTX 5090");
}

TEST(RunpodJson, ReadsSshDirectOnlyWhenRunning) {
  // The spec's own GET /v2/pods/{id} example, trimmed.
  json pod = json::parse(R"({"id":"7h9k2m4n6p","name":"burst-j-gpu","status":"RUNNING",
    "gpu":{"id":"NVIDIA GeForce RTX 4090","count":1},"cost":0.44,
    "ssh":{"proxy":{"host":"ssh.runpod.io","port":22,"username":"7h9k2m4n6p-64411eb2","command":""},
           "direct":{"host":"195.26.233.3","port":34446,"username":"root","command":""}},
    "runtime":{"uptime":3600,"ports":[{"private":22,"public":34446,"type":"tcp","ip":"195.26.233.3"}]}})");
  auto p = runpod::parse_pod(pod);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->state, PodState::kRunning);
  EXPECT_EQ(p->ssh.host, "195.26.233.3");
  EXPECT_EQ(p->ssh.port, 34446);
  EXPECT_EQ(p->ssh.user, "root");
  EXPECT_EQ(p->gpu_type, "RTX_4090");
  EXPECT_DOUBLE_EQ(p->usd_per_hour, 0.44);

  pod["ssh"]["direct"] = nullptr;  // fallback: the runtime port entry for 22
  p = runpod::parse_pod(pod);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->ssh.port, 34446);

  pod["status"] = "PROVISIONING";
  pod["runtime"] = nullptr;
  p = runpod::parse_pod(pod);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->state, PodState::kPending);
  EXPECT_EQ(p->ssh.port, 0);
}

TEST(RunpodJson, AListThatDoesNotParseIsAnErrorNeverNoPods) {
  for (const char* body : {R"({"pods":[{"id":"x7","name":"burst-)", "[]", R"({"pods":null})",
                           R"({"pods":[{"name":"no id"}]})", "<html>502</html>"}) {
    auto r = runpod::parse_pod_list(body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
    EXPECT_NE(r.error().message.find("not treating it as empty"), std::string::npos);
  }
  auto ok = runpod::parse_pod_list(R"({"pods":[]})");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->empty());
}

TEST(RunpodJson, RecognisesCapacityErrors) {
  EXPECT_TRUE(runpod::is_no_capacity(
      400,
      R"({"title":"Bad Request","status":400,"detail":"There are no longer any instances available with the requested specifications. Please refresh and try again."})"));
  EXPECT_FALSE(
      runpod::is_no_capacity(400, R"({"detail":"exactly one of gpu or cpu is required"})"));
  EXPECT_EQ(
      runpod::problem_message(
          R"({"title":"Unprocessable Entity","status":422,"detail":"Request validation failed.","errors":["$: additional properties 'bogus' not allowed"]})"),
      "Request validation failed.; $: additional properties 'bogus' not allowed");
}

// GraphQL, for spot pods only (runpod_graphql.h; REFERENCE §2.5.2-§2.5.3).
TEST(RunpodGraphql, RentInterruptableBodyIsThePodInDocumentedInputFields) {
  runpod::SpotPodInput in;
  in.gpu_type_id = "NVIDIA GeForce RTX 4090";
  in.bid_per_gpu = 0.385;
  in.data_center = "EU-RO-1";
  in.docker_args = "sh -c 'echo AAAA | base64 -d > /tmp/b.sh; sh /tmp/b.sh'";
  in.container_disk_gb = 40;
  const json b = json::parse(runpod::rent_interruptable_body(gpu_request(), in));
  const std::string query = b["query"];
  EXPECT_NE(query.find("($input: PodRentInterruptableInput!)"), std::string::npos) << query;
  EXPECT_NE(query.find("podRentInterruptable(input: $input) { id "), std::string::npos) << query;
  const json& i = b["variables"]["input"];
  // PodRentInterruptableInput = PodFindAndDeployOnDemandInput + bidPerGpu (REFERENCE §2.5.3).
  const std::set<std::string> documented = {
      "bidPerGpu",       "cloudType",       "gpuTypeId",    "gpuCount", "name",
      "imageName",       "dockerArgs",      "ports",        "env",      "containerDiskInGb",
      "volumeMountPath", "networkVolumeId", "dataCenterId", "startSsh", "supportPublicIp"};
  for (const auto& [k, v] : i.items()) EXPECT_TRUE(documented.count(k)) << k;
  EXPECT_EQ(i["bidPerGpu"], 0.385);
  EXPECT_EQ(i["gpuTypeId"], "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(i["gpuCount"], 2);
  EXPECT_EQ(i["cloudType"], "SECURE");
  EXPECT_EQ(i["name"], "burst-j42-gpu");
  EXPECT_EQ(i["imageName"], "python:3.11-slim");
  EXPECT_EQ(i["ports"], "22/tcp,8888/tcp") << "GraphQL ports: one comma-separated string";
  EXPECT_EQ(i["env"], json::parse(R"([{"key":"TTS_STEPS","value":"8"},
                                      {"key":"PUBLIC_KEY","value":"ssh-ed25519 AAAAkey burst"}])"));
  EXPECT_EQ(i["networkVolumeId"], "agv6w2qcg7");
  EXPECT_EQ(i["volumeMountPath"], "/workspace");
  EXPECT_EQ(i["dataCenterId"], "EU-RO-1");
  EXPECT_EQ(i["containerDiskInGb"], 40);
  EXPECT_EQ(i["dockerArgs"], in.docker_args);
  EXPECT_EQ(i["startSsh"], true);
}

TEST(RunpodGraphql, MinimumBidsAreReadPerGpuTypeAndErrorsAreErrors) {
  const json q = json::parse(runpod::min_bid_query_body(1, true));
  EXPECT_NE(q["query"].get<std::string>().find("lowestPrice(input: $input) { minimumBidPrice"),
            std::string::npos);
  EXPECT_EQ(q["variables"]["input"], json::parse(R"({"gpuCount":1,"secureCloud":true})"));

  auto bids = runpod::parse_min_bids(R"({"data":{"gpuTypes":[
      {"id":"NVIDIA GeForce RTX 4090","lowestPrice":{"minimumBidPrice":0.35,"uninterruptablePrice":0.69}},
      {"id":"NVIDIA L4","lowestPrice":null},
      {"id":"NVIDIA A40","lowestPrice":{"minimumBidPrice":null}},
      {"id":"NVIDIA H100 80GB HBM3","lowestPrice":{"minimumBidPrice":0}}]}})");
  ASSERT_TRUE(bids.ok()) << bids.error().message;
  EXPECT_EQ(*bids, (std::map<std::string, double>{{"NVIDIA GeForce RTX 4090", 0.35}}));
  // Business errors arrive as HTTP 200 with errors[] (REFERENCE §2.5.1): never "no spot market".
  auto refused = runpod::parse_min_bids(
      R"({"errors":[{"message":"Something went wrong. Please try again later."}],"data":null})");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("Something went wrong"), std::string::npos);
  EXPECT_FALSE(runpod::parse_min_bids(R"({"data":{"gpuTypes":{}}})").ok());
  EXPECT_FALSE(runpod::parse_min_bids("<html>retired</html>").ok());
}

TEST(RunpodGraphql, RentAnswerGivesThePodIdOrAClassifiedError) {
  auto ok = runpod::parse_rent_answer(
      R"({"data":{"podRentInterruptable":{"id":"50qynxzilsxoey","desiredStatus":"RUNNING"}}})");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(*ok, "50qynxzilsxoey");
  auto no_stock = runpod::parse_rent_answer(
      R"({"errors":[{"message":"There are no longer any instances available with the requested specifications. Please refresh and try again.","path":["podRentInterruptable"]}],"data":{"podRentInterruptable":null}})");
  ASSERT_FALSE(no_stock.ok());
  EXPECT_EQ(no_stock.error().code, ErrorCode::kNoCapacity) << "the job tries its next candidate";
  auto other = runpod::parse_rent_answer(
      R"({"errors":[{"message":"Your bid is below the minimum"}],"data":{"podRentInterruptable":null}})");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(other.error().message.find("Your bid is below the minimum"), std::string::npos);
  EXPECT_FALSE(runpod::parse_rent_answer(R"({"data":{"podRentInterruptable":null}})").ok());
  EXPECT_FALSE(runpod::parse_rent_answer(R"({"data":{"podRentInterruptable":{"id":""}}})").ok());
}

TEST(RunpodGraphql, BidIsTheFloorTimesVastsMarginNeverAboveOnDemand) {
  EXPECT_EQ(runpod::kRunpodBidMargin, vast::kVastBidMargin);
  EXPECT_DOUBLE_EQ(runpod::bid_per_gpu(0.35, 0.69), 0.385);
  EXPECT_DOUBLE_EQ(runpod::bid_per_gpu(0.65, 0.69), 0.69) << "capped at on-demand";
  EXPECT_DOUBLE_EQ(runpod::bid_per_gpu(0.70, 0.69), 0.70) << "never below the floor";
  EXPECT_EQ(runpod::bid_per_gpu(0, 0.69), 0) << "no floor: no spot market";
}

}  // namespace
}  // namespace burst

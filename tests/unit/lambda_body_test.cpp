// The exact JSON the Lambda driver sends, pinned, and every field checked against Lambda Cloud
// API 1.8.3's request schemas (InstanceLaunchRequest, InstanceTerminateRequest, AddSSHKeyRequest,
// FilesystemCreateRequest; digest in shared/provider-apis/REFERENCE.md §3.4-3.7). Also: what the
// driver makes of Lambda's responses (states, SSH endpoint, mount path, errors).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "fakes/fake_clock.h"
#include "fakes/fake_http_client.h"
#include "lambda/lambda_json.h"
#include "lambda/lambda_provider.h"

namespace burst {
namespace {

using nlohmann::json;

// Properties of a schema and their JSON types; anything else fails.
void expect_only(const json& b, const std::map<std::string, json::value_t>& props) {
  ASSERT_TRUE(b.is_object());
  for (const auto& [k, v] : b.items()) {
    auto it = props.find(k);
    ASSERT_NE(it, props.end()) << "not in the schema: " << k;
    EXPECT_EQ(v.type(), it->second) << k;
  }
}

const std::regex kRegionCode(
    "europe-central-1|asia-south-1|australia-east-1|me-west-1|asia-northeast-[12]|us-east-[123]|"
    "us-west-[123]|us-south-[123]|us-midwest-[12]");

TEST(LambdaBody, LaunchIsPinnedAndValid) {
  const std::string body = lambda_launch_body("us-west-1", "gpu_1x_a10", "burst-0123456789ab",
                                              "tts-cache", "burst-20261122-091500-3fa9-gpu");
  EXPECT_EQ(body, R"({"file_system_names":["tts-cache"],"instance_type_name":"gpu_1x_a10",)"
                  R"("name":"burst-20261122-091500-3fa9-gpu","region_name":"us-west-1",)"
                  R"("ssh_key_names":["burst-0123456789ab"]})");
  json b = json::parse(body);
  expect_only(b, {{"region_name", json::value_t::string},
                  {"instance_type_name", json::value_t::string},
                  {"ssh_key_names", json::value_t::array},
                  {"file_system_names", json::value_t::array},
                  {"name", json::value_t::string}});
  for (const char* k : {"region_name", "instance_type_name", "ssh_key_names"})
    EXPECT_TRUE(b.contains(k)) << "required: " << k;
  EXPECT_TRUE(std::regex_match(b["region_name"].get<std::string>(), kRegionCode));
  EXPECT_EQ(b["ssh_key_names"].size(), 1u) << "exactly one SSH key must be specified";
  EXPECT_LE(b["name"].get<std::string>().size(), 64u);
}

TEST(LambdaBody, LaunchWithoutVolumeOmitsFileSystems) {
  json b = json::parse(lambda_launch_body("us-east-1", "gpu_1x_a10", "k", "", "burst-j-gpu"));
  EXPECT_FALSE(b.contains("file_system_names"));
}

TEST(LambdaBody, TerminateSshKeyAndFileSystemBodiesArePinned) {
  EXPECT_EQ(lambda_terminate_body("0920582c7ff041399e34823a0be62549"),
            R"({"instance_ids":["0920582c7ff041399e34823a0be62549"]})");
  const std::string key = lambda_add_ssh_key_body("burst-0123456789ab", "ssh-ed25519 AAAA burst\n");
  EXPECT_EQ(key, R"({"name":"burst-0123456789ab","public_key":"ssh-ed25519 AAAA burst"})");
  expect_only(json::parse(key),
              {{"name", json::value_t::string}, {"public_key", json::value_t::string}});
  const std::string fs = lambda_create_filesystem_body("tts-cache", "us-west-1");
  EXPECT_EQ(fs, R"({"name":"tts-cache","region":"us-west-1"})");
  EXPECT_TRUE(std::regex_match(std::string("tts-cache"), std::regex("^[a-zA-Z]+[0-9a-zA-Z-]*$")));
}

TEST(LambdaBody, SshKeyNameIsStablePerKey) {
  const std::string a = lambda_ssh_key_name("ssh-ed25519 AAAA one");
  EXPECT_EQ(a, lambda_ssh_key_name("ssh-ed25519 AAAA one\n"));
  EXPECT_NE(a, lambda_ssh_key_name("ssh-ed25519 AAAA two"));
  EXPECT_TRUE(std::regex_match(a, std::regex("burst-[0-9a-f]{12}")));
}

TEST(LambdaJson, InstanceStatesSshAndMountPath) {
  EXPECT_EQ(lambda::instance_state("booting"), PodState::kPending);
  EXPECT_EQ(lambda::instance_state("unhealthy"), PodState::kPending);
  EXPECT_EQ(lambda::instance_state("active"), PodState::kRunning);
  EXPECT_EQ(lambda::instance_state("terminating"), PodState::kStopping);
  EXPECT_EQ(lambda::instance_state("terminated"), PodState::kGone);
  EXPECT_EQ(lambda::instance_state("preempted"), PodState::kGone);
  // The spec's own example instance.
  json i = json::parse(
      R"J({"id":"0920582c7ff041399e34823a0be62549","name":"burst-j-gpu","ip":"198.51.100.2",)J"
      R"J("status":"active","ssh_key_names":["k"],"file_system_names":["tts-cache"],)J"
      R"J("region":{"name":"us-west-1","description":"California, USA"},)J"
      R"J("instance_type":{"name":"gpu_1x_a10","description":"1x A10 (24 GB PCIe)",)J"
      R"J("gpu_description":"A10 (24 GB PCIe)","price_cents_per_hour":75,)J"
      R"J("specs":{"vcpus":30,"memory_gib":200,"storage_gib":1400,"gpus":1}},"actions":{}})J");
  auto p = lambda::parse_instance(i, "ubuntu");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->state, PodState::kRunning);
  EXPECT_EQ(p->ssh.host, "198.51.100.2");
  EXPECT_EQ(p->ssh.port, 22);
  EXPECT_EQ(p->ssh.user, "ubuntu");
  EXPECT_EQ(p->volume_path, "/lambda/nfs/tts-cache");
  EXPECT_EQ(p->gpu_type, "A10");
  EXPECT_DOUBLE_EQ(p->usd_per_hour, 0.75);
  i["status"] = "booting";
  i.erase("ip");
  p = lambda::parse_instance(i, "ubuntu");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->ssh.port, 0) << "no SSH endpoint while booting";
}

TEST(LambdaJson, ListsParseStrictly) {
  EXPECT_FALSE(lambda::parse_instance_list(R"({"data":[{"id":"x","name":"burst-)", "u").ok());
  EXPECT_FALSE(lambda::parse_instance_list(R"({"data":{}})", "u").ok());
  EXPECT_FALSE(lambda::parse_instance_list(R"([])", "u").ok()) << "no envelope";
  auto bad = lambda::parse_instance_list(R"({"data":[{"name":"burst-x"}]})", "u");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(bad.error().message.find("not treating it as empty"), std::string::npos);
  auto empty = lambda::parse_instance_list(R"({"data":[]})", "u");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(LambdaJson, InstanceTypesBecomeCatalogOffers) {
  auto t = lambda::parse_instance_types(
      R"J({"data":{"gpu_8x_h100_sxm5":{"instance_type":{"name":"gpu_8x_h100_sxm5",)J"
      R"J("description":"8x H100 (80 GB SXM5)","gpu_description":"H100 (80 GB SXM5)",)J"
      R"J("price_cents_per_hour":2392,"specs":{"vcpus":208,"memory_gib":1800,)J"
      R"J("storage_gib":24780,"gpus":8}},"regions_with_capacity_available":[)J"
      R"J({"name":"us-east-1","description":"Virginia, USA"}]}}})J");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->size(), 1u);
  EXPECT_EQ((*t)[0].gpu_type, "H100_SXM");
  EXPECT_EQ((*t)[0].gpus, 8);
  EXPECT_DOUBLE_EQ((*t)[0].usd_per_hour, 23.92);
  EXPECT_DOUBLE_EQ((*t)[0].vram_gb.value_or(0), 80);
  EXPECT_EQ((*t)[0].regions, std::vector<std::string>{"us-east-1"});
  EXPECT_EQ(lambda::catalog_name("gpu_1x_gh200"), "GH200");
  EXPECT_EQ(lambda::catalog_name("gpu_2x_new_thing"), "NEW_THING");
}

TEST(LambdaJson, ErrorBodyKeepsCodeMessageAndSuggestion) {
  const std::string body =
      R"({"error":{"code":"instance-operations/launch/insufficient-capacity","message":)"
      R"("Not enough capacity to fulfill launch request.","suggestion":"Try again later."}})";
  EXPECT_EQ(lambda::error_message(body),
            "instance-operations/launch/insufficient-capacity: Not enough capacity to fulfill "
            "launch request. (Try again later.)");
  EXPECT_EQ(lambda::error_code(body), lambda::kInsufficientCapacity);
}

TEST(LambdaDriver, CpuPodsAreRefusedClearly) {
  FakeClock clock;
  auto http = std::make_unique<FakeHttpClient>();
  FakeHttpClient* h = http.get();
  auto p = make_lambda_provider({"http://x", "key", "ubuntu"}, std::move(http), clock);
  PodRequest r;
  r.name = "burst-j-cpu";
  r.gpu = false;
  auto made = p->create_pod(r);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code, ErrorCode::kInvalid);
  EXPECT_NE(made.error().message.find("Lambda has no CPU-only instances"), std::string::npos);
  EXPECT_TRUE(h->requests().empty()) << "nothing sent";
  auto cpu = p->offers(false);
  ASSERT_TRUE(cpu.ok());
  EXPECT_TRUE(cpu->empty());
}

}  // namespace
}  // namespace burst

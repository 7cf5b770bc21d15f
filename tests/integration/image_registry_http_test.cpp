// The image's size end to end: the emulated registry (tests/fakes/fake_registry.h) served over
// loopback HTTP, asked through libcurl by plan_with_history, the one plan `burst plan`, `burst
// run` and burstd make: the first plan asks the registry (token dance, index, manifest), the
// next one (as `burst run` plans) reads the store's cache, and both price the same cold start.
// An emulated cloud on loopback pulls nothing, so a plan for it asks no registry.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "app/plan_with_history.h"
#include "burst/store.h"
#include "fakes/fake_registry.h"
#include "fakes/runpod_plan_input.h"
#include "fakes/temp_dir.h"
#include "http/curl_http_client.h"
#include "image/registry_parse.h"
#include "plan/image_pull.h"
#include "registry.h"

namespace burst {
namespace {

using testing::FakeRegistry;

class ImageRegistryHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      HttpRequest r;
      r.url = registry_.base + req.target;
      for (const char* h : {"Accept", "Authorization"})
        if (req.has_header(h)) r.headers[h] = req.get_header_value(h);
      std::lock_guard<std::mutex> lock(mu_);
      Result<HttpResponse> out = registry_.send(r);
      res.status = out->status;
      if (auto a = out->headers.find("www-authenticate"); a != out->headers.end())
        res.set_header("WWW-Authenticate", a->second);
      auto type = out->headers.find("content-type");
      res.set_content(out->body, type == out->headers.end() ? "application/json" : type->second);
    });
    const int port = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port, 0);
    registry_.base = "http://127.0.0.1:" + std::to_string(port);
    registry_.realm = registry_.base + "/token";
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 200 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(server_.is_running());
  }
  void TearDown() override {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  size_t requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return registry_.requests.size();
  }

  static PipelineSpec spec() {
    PipelineSpec s;
    s.name = "render";
    s.run = "python render.py";
    s.image = "runpod/pytorch:2.1";
    s.workload.kind = "custom";
    s.workload.reference = WorkloadReference{"RTX_4090", 600, ""};
    return s;
  }

  std::mutex mu_;
  FakeRegistry registry_;
  httplib::Server server_;
  std::thread thread_;
};

TEST_F(ImageRegistryHttp, PlanAsksTheRegistryOnceAndRunReadsTheCache) {
  const std::string amd64 = "sha256:" + std::string(64, '7');
  {
    std::lock_guard<std::mutex> lock(mu_);
    registry_.put("runpod/pytorch", "2.1", std::string(kMediaDockerList),
                  FakeRegistry::index_json({{"linux/amd64", amd64}}));
    registry_.put("runpod/pytorch", amd64, std::string(kMediaDockerManifest),
                  FakeRegistry::manifest_json(0, {7'000'000'000, 900'000'000}));
  }
  TempDir dir;
  Config config;
  config.db_path = dir.path() + "/burst.db";
  config.image_registry = registry_.base;
  ASSERT_TRUE(open_store("", config.db_path).ok());  // the cache lives in the store
  const double prior = find_provider_traits("runpod")->boot_s;

  PlanInput plan_in = runpod_4090_plan_input(64);  // `burst plan`
  auto plan = plan_with_history(spec(), &plan_in, config);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->image_pull,
            "image runpod/pytorch:2.1 7.9 GB (registry), pull ~79 s at 100 MB/s prior");
  EXPECT_NEAR(plan->estimate.cold_start_s, prior + 79, 1e-6);
  EXPECT_EQ(requests(), 4u);  // 401, token, index, amd64 manifest

  PlanInput run_in = runpod_4090_plan_input(1);  // `burst run`
  auto run = plan_with_history(spec(), &run_in, config);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->image_pull,
            "image runpod/pytorch:2.1 7.9 GB (registry), pull ~79 s at 100 MB/s prior");
  EXPECT_DOUBLE_EQ(run->estimate.cold_start_s, plan->estimate.cold_start_s);
  EXPECT_EQ(requests(), 4u);
}

TEST_F(ImageRegistryHttp, AnEmulatedCloudOnLoopbackAsksNoRegistry) {
  TempDir dir;
  Config config;
  config.db_path = dir.path() + "/burst.db";
  config.image_registry = "auto";
  config.clouds["runpod"].base_url = registry_.base + "/runpod";  // loopback: nothing is pulled
  PlanInput in = runpod_4090_plan_input(1);
  auto plan = plan_with_history(spec(), &in, config);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->image_pull, "");
  EXPECT_DOUBLE_EQ(plan->estimate.cold_start_s, find_provider_traits("runpod")->boot_s);
  EXPECT_EQ(requests(), 0u);
}

// Issue 29: `image: 127.0.0.1:PORT/...` made `burst plan` connect to that port. In automatic mode
// (no BURST_IMAGE_REGISTRY) the loopback registry gets no request and the plan goes on without
// the image's size; the client itself refuses a name that resolves to loopback when it connects.
TEST_F(ImageRegistryHttp, APublicOnlyClientNeverConnectsToLoopback) {
  const std::string hostport = registry_.base.substr(std::string("http://").size());
  TempDir dir;
  Config config;
  config.db_path = dir.path() + "/burst.db";
  config.image_registry = "auto";  // runpod's API is not on this machine: its pods pull images
  PipelineSpec s = spec();
  s.image = hostport + "/runpod/pytorch:2.1";
  PlanInput in = runpod_4090_plan_input(1);
  auto plan = plan_with_history(s, &in, config);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_NE(plan->image_pull.find("image size unknown (invalid: image " + hostport +
                                  "/runpod/pytorch:2.1: registry lookup refused: 127.0.0.1 is "
                                  "not a public address"),
            std::string::npos)
      << plan->image_pull;
  EXPECT_DOUBLE_EQ(plan->estimate.cold_start_s, find_provider_traits("runpod")->boot_s);
  EXPECT_EQ(requests(), 0u);

  for (const char* proxy : {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
    if (const char* v = std::getenv(proxy); v && *v)
      GTEST_SKIP() << proxy << " is set: the connect-time check is the proxy's";
  CurlOptions options;
  options.public_addresses_only = true;
  auto http = make_curl_http_client(options);
  const std::string port = hostport.substr(hostport.rfind(':') + 1);
  for (const std::string& url : {"https://localhost:" + port + "/v2/", registry_.base + "/v2/"}) {
    auto r = http->send({"GET", url, {}, "", true});
    ASSERT_FALSE(r.ok()) << url;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalid) << r.error().message;
    EXPECT_NE(r.error().message.find("is not a public address"), std::string::npos)
        << r.error().message;
  }
  EXPECT_EQ(requests(), 0u);
}

}  // namespace
}  // namespace burst

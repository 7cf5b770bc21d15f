// The emulator's request log replaces the API key wherever it appears with "[api key]". A key that
// is itself part of that mark (the key "y", or "a", "k", " ") used to be found again inside each
// replacement, so logging the request never ended and the server thread spun (issue 32, item 10).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakecloud/fake_cloud.h"
#include "fakes/temp_dir.h"
#include "http/curl_http_client.h"

namespace burst {
namespace {

TEST(EmulatorRequestLog, AKeyInsideTheMarkIsReplacedOnceAndTheLogEnds) {
  for (const std::string key : {"y", "api", "e"}) {
    TempDir dir;
    SystemClock clock;
    fakecloud::FakeCloud cloud({dir.path() + "/fc", Duration(0), {{"runpod", key}}}, clock,
                               {"runpod"});
    ASSERT_TRUE(cloud.start().ok());
    auto http = make_curl_http_client();
    // The key in the path and the body: a leak the log must show as "[api key]".
    auto r = http->send({"GET",
                         cloud.provider_url("runpod") + "/v2/pods?x=" + key,
                         {{"Authorization", "Bearer " + key}},
                         "",
                         true});
    ASSERT_TRUE(r.ok()) << r.error().message;
    const auto log = cloud.state().request_log();
    ASSERT_EQ(log.size(), 1u) << key;
    EXPECT_TRUE(log[0].key_leaked) << key;
    EXPECT_NE(log[0].path.find("[api key]"), std::string::npos) << log[0].path;
  }
}

// RunPod's GraphQL endpoint as the emulator serves it (fakecloud/runpod_graphql.cpp): both
// documented ways to send the key, 401 on a bad one, 400 on a field the schema does not have,
// business errors as HTTP 200 with errors[], and a pod it rents shown by REST v2.
TEST(EmulatorRunpodGraphql, AuthSchemaErrorsAndAPodV2Shows) {
  using nlohmann::json;
  TempDir dir;
  SystemClock clock;
  fakecloud::FakeCloud cloud({dir.path() + "/fc", Duration(0), {{"runpod", "rpa_K"}}}, clock,
                             {"runpod"});
  ASSERT_TRUE(cloud.start().ok());
  auto http = make_curl_http_client();
  const std::string url = cloud.provider_url("runpod") + "/graphql";
  auto post = [&](const std::string& to, const std::string& auth, const json& body) {
    HttpRequest q{"POST", to, {{"Content-Type", "application/json"}}, body.dump(), false};
    if (!auth.empty()) q.headers["Authorization"] = auth;
    auto r = http->send(q);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : HttpResponse{};
  };
  const json bids = {{"query",
                      "query Q($input: GpuLowestPriceInput!) { gpuTypes { id lowestPrice(input: "
                      "$input) { minimumBidPrice } } }"},
                     {"variables", {{"input", {{"gpuCount", 1}, {"secureCloud", true}}}}}};
  auto bearer = post(url, "Bearer rpa_K", bids);
  EXPECT_EQ(bearer.status, 200) << bearer.body;
  const json got = json::parse(bearer.body);
  EXPECT_EQ(got["data"]["gpuTypes"][0]["lowestPrice"], json({{"minimumBidPrice", 0.35}}))
      << "only the selected fields";
  EXPECT_EQ(post(url + "?api_key=rpa_K", "", bids).status, 200) << "RunPod's docs' form";
  EXPECT_EQ(post(url, "Bearer wrong", bids).status, 401);
  EXPECT_EQ(post(url + "?api_key=wrong", "", bids).status, 401);
  json unknown = bids;
  unknown["query"] = "query { gpuTypes { id objectMounts } }";
  EXPECT_EQ(post(url, "Bearer rpa_K", unknown).status, 400);
  json rent = {{"query",
                "mutation M($input: PodRentInterruptableInput!) { podRentInterruptable(input: "
                "$input) { id costPerHr } }"},
               {"variables",
                {{"input",
                  {{"bidPerGpu", 0.30},
                   {"gpuTypeId", "NVIDIA GeForce RTX 4090"},
                   {"gpuCount", 1},
                   {"name", "burst-t-gpu"},
                   {"imageName", "runpod/base:0.6.2"},
                   {"ports", "22/tcp"}}}}}};
  auto low = post(url, "Bearer rpa_K", rent);
  EXPECT_EQ(low.status, 200) << "a business error is HTTP 200";
  EXPECT_NE(low.body.find("below the minimum bid"), std::string::npos) << low.body;
  EXPECT_TRUE(json::parse(low.body)["data"]["podRentInterruptable"].is_null());
  rent["variables"]["input"]["objectMounts"] = json::array();
  EXPECT_EQ(post(url, "Bearer rpa_K", rent).status, 400) << "unknown input field";
  rent["variables"]["input"].erase("objectMounts");
  rent["variables"]["input"]["bidPerGpu"] = 0.40;
  auto made = post(url, "Bearer rpa_K", rent);
  const json pod = json::parse(made.body)["data"]["podRentInterruptable"];
  ASSERT_TRUE(pod.is_object()) << made.body;
  EXPECT_DOUBLE_EQ(pod["costPerHr"].get<double>(), 0.40);
  const std::string id = pod["id"];
  auto v2 = http->send({"GET",
                        cloud.provider_url("runpod") + "/v2/pods/" + id,
                        {{"Authorization", "Bearer rpa_K"}},
                        "",
                        true});
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(v2->status, 200) << v2->body;
  ASSERT_TRUE(cloud.state().preempt("runpod", id));
  v2 = http->send({"GET",
                   cloud.provider_url("runpod") + "/v2/pods/" + id,
                   {{"Authorization", "Bearer rpa_K"}},
                   "",
                   true});
  ASSERT_TRUE(v2.ok());
  const json after = json::parse(v2->body);
  EXPECT_EQ(after["status"], "EXITED") << v2->body;
  EXPECT_EQ(after["cost"], 0.0);
  EXPECT_TRUE(cloud.state().delete_pod("runpod", id));
}

}  // namespace
}  // namespace burst

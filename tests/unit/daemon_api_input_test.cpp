// burstd's API given bytes a client should not send (found by tests/fuzz/daemon_api_fuzz.cpp):
// the answer is still a JSON error, never an exception (which the socket server turned into a
// bare 500 without a word of why).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "daemon/api.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"

namespace burst::daemon {
namespace {

using nlohmann::json;

struct ApiInput : ::testing::Test {
  std::unique_ptr<Store> store = open_sqlite_store(":memory:").value();
  FakeClock clock;
  FakeJobLauncher launcher{*store};
  Config config;
  Scheduler scheduler{clock, *store, launcher, SchedulerOptions{}};
  Api api{scheduler, *store, config, [] { return std::vector<PodAction>{}; }};
};

TEST_F(ApiInput, APathThatIsNotUtf8GetsAJsonErrorNamingIt) {
  ApiResponse r = api.handle({"GET", "/v1/\xd8\xd8/jobs", {}, ""});
  EXPECT_EQ(r.status, 404);
  json body = json::parse(r.body);
  EXPECT_NE(body["error"].get<std::string>().find("unknown endpoint"), std::string::npos);
}

TEST_F(ApiInput, ASubmitWhosePathIsNotAStringIsABadRequest) {
  ApiResponse r = api.handle(
      {"POST", "/v1/jobs", {}, R"({"path": 5})", {{"content-type", "application/json"}}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"], "\"path\" must be a string");
}

// What a page of another site can send without asking (a text/plain form, a no-cors fetch, a
// beacon, a url-encoded form) is not JSON: every POST under /v1 says it is JSON or gets 415, and
// nothing is queued or cancelled.
TEST_F(ApiInput, APostThatDoesNotSayJsonIs415AndDoesNothing) {
  const std::string body = json{{"spec", "version: 1\nname: x\nrun: echo hi\n"}}.dump();
  for (const std::string type :
       {"", "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x", "application/jsonx"}) {
    std::map<std::string, std::string> headers;
    if (!type.empty()) headers["content-type"] = type;
    for (const std::string path : {"/v1/jobs", "/v1/jobs/j1/cancel", "/v1/reap"}) {
      ApiResponse r = api.handle({"POST", path, {}, body, headers});
      EXPECT_EQ(r.status, 415) << type << " " << path << ": " << r.body;
    }
  }
  EXPECT_TRUE(scheduler.jobs().empty()) << "nothing queued";
  for (const std::string type : {"application/json", "Application/JSON; charset=utf-8"})
    EXPECT_EQ(api.handle({"POST", "/v1/jobs", {}, body, {{"content-type", type}}}).status, 201)
        << type;
}

}  // namespace
}  // namespace burst::daemon

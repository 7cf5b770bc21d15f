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
  ApiResponse r = api.handle({"POST", "/v1/jobs", {}, R"({"path": 5})"});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"], "\"path\" must be a string");
}

}  // namespace
}  // namespace burst::daemon

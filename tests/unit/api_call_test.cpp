// api_call: which failures are retried (and how long it waits, on a fake clock), how statuses
// map to error kinds, and that the API key never reaches a message or a log line.
#include "http/api_call.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include "fakes/fake_http_client.h"

namespace burst {
namespace {

constexpr const char* kKey = "rpa_SECRETKEY1234567890";

class ApiCall : public ::testing::Test {
 protected:
  ApiCaller caller() {
    ApiCaller a;
    a.provider = "runpod";
    a.http = &http_;
    a.clock = &clock_;
    a.api_key = kKey;
    a.jitter = [] { return 1.0; };  // the full backoff step, so waits are exact
    a.log = [this](const std::string& l) { log_.push_back(l); };
    return a;
  }
  static HttpRequest get() {
    return {"GET",
            "https://api.runpod.io/v2/pods?x=1",
            {{"Authorization", std::string("Bearer ") + kKey}},
            "",
            true};
  }
  static HttpRequest create() {
    HttpRequest r = get();
    r.method = "POST";
    r.url = "https://api.runpod.io/v2/pods";
    r.idempotent = false;
    return r;
  }
  void expect_no_key(const std::string& text) {
    EXPECT_EQ(text.find(kKey), std::string::npos) << text;
  }

  FakeHttpClient http_;
  FakeClock clock_;
  std::vector<std::string> log_;
};

TEST_F(ApiCall, ReturnsA2xxAtOnce) {
  http_.respond(200, R"({"pods":[]})");
  auto r = api_call(caller(), get());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, R"({"pods":[]})");
  EXPECT_EQ(http_.requests().size(), 1u);
  EXPECT_EQ(clock_.sleep_count(), 0);
}

TEST_F(ApiCall, RetriesIdempotentRequestOn5xxWithExponentialBackoff) {
  http_.respond(503, "busy").respond(502, "busy").respond(200, "ok");
  auto r = api_call(caller(), get());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(http_.requests().size(), 3u);
  EXPECT_EQ(clock_.total_slept(), Duration(1000 + 2000));  // 1 s, then 2 s
}

TEST_F(ApiCall, JitterDrawsFromHalfToWholeOfTheStep) {
  http_.respond(503).respond(200);
  ApiCaller a = caller();
  a.jitter = [] { return 0.0; };
  ASSERT_TRUE(api_call(a, get()).ok());
  EXPECT_EQ(clock_.total_slept(), Duration(500));
}

TEST_F(ApiCall, RetriesTransportErrorsOnIdempotentRequests) {
  http_.fail(ErrorCode::kTimeout, "GET api.runpod.io: Timeout was reached")
      .fail(ErrorCode::kUnavailable, "GET api.runpod.io: Recv failure")
      .respond(200, "ok");
  EXPECT_TRUE(api_call(caller(), get()).ok());
  EXPECT_EQ(http_.requests().size(), 3u);
}

TEST_F(ApiCall, NeverResendsACreateThatTimedOut) {
  http_.fail(ErrorCode::kTimeout, "POST api.runpod.io: Timeout was reached").respond(201, "{}");
  auto r = api_call(caller(), create());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout);
  EXPECT_EQ(http_.requests().size(), 1u);
  EXPECT_EQ(http_.remaining(), 1u);
  EXPECT_NE(r.error().message.find("may have reached the server"), std::string::npos)
      << r.error().message;
}

TEST_F(ApiCall, NeverResendsACreateThatGotA5xx) {
  http_.respond(500, "boom").respond(201, "{}");
  auto r = api_call(caller(), create());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(r.error().message, "runpod: POST /v2/pods: HTTP 500: boom");
  EXPECT_EQ(http_.requests().size(), 1u);
}

TEST_F(ApiCall, ResendsACreateThatNeverConnected) {
  http_.fail(ErrorCode::kConnection, "POST api.runpod.io: Couldn't connect to server")
      .respond(201, "{}");
  EXPECT_TRUE(api_call(caller(), create()).ok());
  EXPECT_EQ(http_.requests().size(), 2u);
}

TEST_F(ApiCall, RetriesA429EvenForACreateHonouringRetryAfterSeconds) {
  http_.respond(429, R"({"detail":"rate limit exceeded"})", {{"retry-after", "7"}})
      .respond(201, "{}");
  EXPECT_TRUE(api_call(caller(), create()).ok());
  EXPECT_EQ(http_.requests().size(), 2u);
  EXPECT_EQ(clock_.total_slept(), Duration(7000));
}

TEST_F(ApiCall, HonoursRetryAfterAsAnHttpDate) {
  // The fake clock starts at 2026-01-01T00:00:00Z.
  http_.respond(429, "", {{"retry-after", "Thu, 01 Jan 2026 00:00:12 GMT"}}).respond(200, "ok");
  EXPECT_TRUE(api_call(caller(), get()).ok());
  EXPECT_EQ(clock_.total_slept(), Duration(12000));
}

TEST_F(ApiCall, A429WithoutRetryAfterBacksOff) {
  http_.respond(429).respond(429).respond(200);
  EXPECT_TRUE(api_call(caller(), get()).ok());
  EXPECT_EQ(clock_.total_slept(), Duration(3000));
}

TEST_F(ApiCall, GivesUpAfterMaxAttemptsAndSaysSo) {
  for (int i = 0; i < 5; ++i) http_.respond(503, R"(upstream busy)");
  auto r = api_call(caller(), get());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(http_.requests().size(), 5u);
  EXPECT_EQ(r.error().message,
            "runpod: GET /v2/pods: HTTP 503: upstream busy (gave up after 5 attempts)");
}

TEST_F(ApiCall, DoesNotWaitForARetryAfterLongerThanAllowed) {
  http_.respond(429, "slow down", {{"retry-after", "3600"}});
  auto r = api_call(caller(), get());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRateLimited);
  EXPECT_EQ(clock_.sleep_count(), 0);
  EXPECT_NE(r.error().message.find("retry after 3600.0 s"), std::string::npos) << r.error().message;
}

TEST_F(ApiCall, MapsStatusesToErrorKindsKeepingTheProvidersMessage) {
  struct Case {
    int status;
    ErrorCode code;
  };
  for (Case c :
       {Case{401, ErrorCode::kAuth}, Case{403, ErrorCode::kAuth}, Case{404, ErrorCode::kNotFound},
        Case{400, ErrorCode::kInvalid}, Case{422, ErrorCode::kInvalid}}) {
    http_.respond(c.status, "provider says " + std::to_string(c.status));
    auto r = api_call(caller(), get());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, c.code) << c.status;
    EXPECT_EQ(r.error().message, "runpod: GET /v2/pods: HTTP " + std::to_string(c.status) +
                                     ": provider says " + std::to_string(c.status));
  }
  EXPECT_EQ(clock_.sleep_count(), 0);  // none of these is retried
}

TEST_F(ApiCall, ANoCapacityHookTurnsTheProvidersAnswerIntoNoCapacity) {
  ApiCaller a = caller();
  a.no_capacity = [](const HttpResponse& r) {
    return r.status == 400 && r.body.find("no longer any instances") != std::string::npos;
  };
  a.error_message = [](const HttpResponse& r) { return "said: " + r.body; };
  http_.respond(400, "There are no longer any instances available");
  auto r = api_call(a, create());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(r.error().message,
            "runpod: POST /v2/pods: HTTP 400: said: There are no longer any instances available");
}

TEST_F(ApiCall, TheKeyNeverAppearsInErrorsOrLogsEvenWhenTheServerEchoesIt) {
  http_.respond(401, std::string(R"({"detail":"bad key )") + kKey + "\"}")
      .respond(503, std::string("key=") + kKey)
      .fail(ErrorCode::kTimeout, std::string("GET with ") + kKey);
  for (int i = 0; i < 2; ++i) {
    auto r = api_call(caller(), i == 0 ? get() : create());
    ASSERT_FALSE(r.ok());
    expect_no_key(r.error().message);
    EXPECT_NE(r.error().message.find("[secret api key]"), std::string::npos) << r.error().message;
  }
  auto r = api_call(caller(), create());
  ASSERT_FALSE(r.ok());
  expect_no_key(r.error().message);
  ASSERT_FALSE(log_.empty());
  for (const auto& l : log_) expect_no_key(l);
}

TEST_F(ApiCall, StopsRetryingAtTheDeadline) {
  ApiCaller a = caller();
  a.max_attempts = 100;
  a.retry.total = Duration(10000);
  for (int i = 0; i < 100; ++i) http_.respond(503);
  ASSERT_FALSE(api_call(a, get()).ok());
  EXPECT_LE(clock_.total_slept(), Duration(10000));
  EXPECT_LT(http_.requests().size(), 10u);
}

TEST(RetryAfter, ParsesSecondsAndHttpDates) {
  const TimePoint now = from_unix_ms(1767225600000);  // 2026-01-01T00:00:00Z
  EXPECT_EQ(parse_retry_after("30", now), 30);
  EXPECT_EQ(parse_retry_after("Thu, 01 Jan 2026 00:01:00 GMT", now), 60);
  EXPECT_EQ(parse_retry_after("Wed, 31 Dec 2025 00:00:00 GMT", now), 0);  // in the past
  EXPECT_EQ(parse_retry_after("soon", now), -1);
  EXPECT_EQ(parse_retry_after("", now), -1);
}

TEST(UrlPath, DropsHostAndQuery) {
  EXPECT_EQ(url_path("https://api.runpod.io/v2/pods?includeClusterPods=false"), "/v2/pods");
  EXPECT_EQ(url_path("http://127.0.0.1:8080"), "/");
}

}  // namespace
}  // namespace burst

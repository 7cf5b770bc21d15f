// The emulator's request log replaces the API key wherever it appears with "[api key]". A key that
// is itself part of that mark (the key "y", or "a", "k", " ") used to be found again inside each
// replacement, so logging the request never ended and the server thread spun (issue 32, item 10).
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace burst

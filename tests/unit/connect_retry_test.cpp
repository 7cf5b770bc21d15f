// connect_with_retry (burst/remote.h): a refused key is retried while a pod boots, but a reattach
// (issue 35: a team daemon taking over a job whose pod does not know its key) stops at the first
// refusal instead of looping through the whole SSH wait while the pod bills.
#include <gtest/gtest.h>

#include "burst/remote.h"
#include "fakes/fake_clock.h"

namespace burst {
namespace {

class KeyRefusingConnector : public RemoteConnector {
 public:
  Result<std::unique_ptr<RemoteSession>> connect(SshTarget&) override {
    ++attempts;
    return make_error(ErrorCode::kAuth, "public key refused");
  }
  int attempts = 0;
};

TEST(ConnectRetry, ARefusedKeyIsRetriedWhileAPodBootsUntilTheDeadline) {
  FakeClock clock;
  KeyRefusingConnector refusing;
  SshTarget target;
  const MonoTime start = clock.mono_now();
  auto s = connect_with_retry(refusing, target, clock, start + std::chrono::seconds(600), {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kAuth);
  EXPECT_GT(refusing.attempts, 100);
  EXPECT_GE(clock.mono_now() - start, std::chrono::seconds(595));
}

TEST(ConnectRetry, OnAReattachARefusedKeyIsFinalAtOnce) {
  FakeClock clock;
  KeyRefusingConnector refusing;
  SshTarget target;
  const MonoTime start = clock.mono_now();
  auto s = connect_with_retry(refusing, target, clock, start + std::chrono::seconds(600), {},
                              /*auth_is_final=*/true);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kAuth);
  EXPECT_EQ(s.error().message, "public key refused");
  EXPECT_EQ(refusing.attempts, 1);
  EXPECT_EQ(clock.mono_now(), start) << "no wait on a pod that will never take the key";
}

}  // namespace
}  // namespace burst

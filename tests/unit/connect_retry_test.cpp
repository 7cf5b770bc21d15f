// connect_with_retry (burst/remote.h): a refused key is retried while a pod boots, but a reattach
// (issue 35: a team daemon taking over a job whose pod does not know its key) stops at the first
// refusal instead of looping through the whole SSH wait while the pod bills.
#include <gtest/gtest.h>

#include <functional>

#include "burst/remote.h"
#include "fakes/fake_clock.h"

namespace burst {
namespace {

class KeyRefusingConnector : public RemoteConnector {
 public:
  Result<std::unique_ptr<RemoteSession>> connect(SshTarget&) override {
    ++attempts;
    if (on_attempt) on_attempt();
    return make_error(ErrorCode::kAuth, "public key refused");
  }
  int attempts = 0;
  std::function<void()> on_attempt;
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

// The SSH wait's deadline is monotonic (burst/clock.h): the wall clock stepping forward an hour
// (NTP, a laptop waking) mid-wait neither ends the wait early nor stretches it.
TEST(ConnectRetry, AWallClockStepDoesNotEndTheSshWait) {
  FakeClock clock;
  KeyRefusingConnector refusing;
  refusing.on_attempt = [&] {
    if (refusing.attempts == 2) clock.step_wall(std::chrono::hours(1));
  };
  SshTarget target;
  const MonoTime start = clock.mono_now();
  auto s = connect_with_retry(refusing, target, clock, start + std::chrono::seconds(600), {});
  ASSERT_FALSE(s.ok());
  EXPECT_GT(refusing.attempts, 100) << "gave up at the wall clock's step";
  EXPECT_GE(clock.mono_now() - start, std::chrono::seconds(595));
  EXPECT_LT(clock.mono_now() - start, std::chrono::seconds(605));
}

}  // namespace
}  // namespace burst

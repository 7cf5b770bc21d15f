// The create rule: after a failed create, the provider's own list decides; only a 5xx that made
// nothing may be resent.
#include "create_rule.h"

#include <gtest/gtest.h>

namespace burst {
namespace {

const CreateWords kWords{"pod", "pods", "named", "create"};

Result<std::optional<Pod>> none() { return std::optional<Pod>(); }

TEST(CreateRule, APodListedUnderTheNameIsTheAnswer) {
  auto next =
      after_failed_create(make_error(ErrorCode::kTimeout, "timed out"), "burst-j-gpu", kWords, [] {
        Pod p;
        p.id = "p1";
        return Result<std::optional<Pod>>(std::optional<Pod>(p));
      });
  EXPECT_EQ(next.next, CreateNext::kFound);
  EXPECT_EQ(next.pod.id, "p1");
}

TEST(CreateRule, ATimeoutWithNothingListedIsNeverResent) {
  auto next = after_failed_create(make_error(ErrorCode::kTimeout, "timed out"), "burst-j-gpu",
                                  kWords, none);
  EXPECT_EQ(next.next, CreateNext::kFail);
  EXPECT_EQ(next.error.message,
            "timed out; no pod named burst-j-gpu is listed yet, so the create was not repeated "
            "(`burst reap` checks again)");
}

TEST(CreateRule, A5xxWithNothingListedMayBeResent) {
  auto next =
      after_failed_create(make_error(ErrorCode::kUnavailable, "502"), "burst-j-gpu", kWords, none);
  EXPECT_EQ(next.next, CreateNext::kRetry);
}

TEST(CreateRule, AListThatFailsStopsAndSaysSo) {
  auto next = after_failed_create(
      make_error(ErrorCode::kUnavailable, "502"), "burst-j-gpu", kWords,
      [] { return Result<std::optional<Pod>>(make_error(ErrorCode::kAuth, "401")); });
  EXPECT_EQ(next.next, CreateNext::kFail);
  EXPECT_EQ(next.error.message, "502; and listing pods to check failed: 401");
}

TEST(CreateRule, OtherErrorsStopWithoutListing) {
  bool listed = false;
  auto next =
      after_failed_create(make_error(ErrorCode::kInvalid, "bad gpu"), "burst-j-gpu", kWords, [&] {
        listed = true;
        return none();
      });
  EXPECT_EQ(next.next, CreateNext::kFail);
  EXPECT_FALSE(listed);
  EXPECT_EQ(next.error.message, "bad gpu");
}

}  // namespace
}  // namespace burst

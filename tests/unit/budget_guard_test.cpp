// The mid-run budget stop (job/budget_guard.h), driven by a FakeClock: accrued cost follows each
// provider's billing increment, and a cap counts as crossed a margin before the bill passes it.
#include "job/budget_guard.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include "registry.h"

namespace burst {
namespace {

// The provider's billing rule, from its registry row (ProviderTraits::billing).
const BillingRule& rule(const std::string& provider) {
  return find_provider_traits(provider)->billing;
}

PodRecord pod(const std::string& provider, double usd_per_hour, TimePoint created) {
  PodRecord p;
  p.row_id = 1;
  p.provider = provider;
  p.role = "gpu";
  p.state = PodRecordState::kAlive;
  p.usd_per_hour = usd_per_hour;
  p.created_ms = to_unix_ms(created);
  return p;
}

TEST(BudgetGuard, PerSecondBillingStopsJustBeforeTheCap) {
  FakeClock clock;
  // $3.60/h on RunPod (per-second billing): $0.001 a second; a $0.10 cap holds for 100 s.
  std::vector<PodRecord> pods{pod("runpod", 3.60, clock.now())};
  const std::vector<BudgetCap> caps{{0.10, "budget.max_usd"}};
  clock.advance(std::chrono::seconds(60));
  EXPECT_NEAR(accrued_usd(pods, clock.now(), rule("runpod")), 0.06, 1e-9);
  EXPECT_EQ(budget_stop_reason(pods, clock.now(), caps, rule("runpod")), "")
      << "60 s + 30 s margin: $0.09";
  clock.advance(std::chrono::seconds(11));
  EXPECT_EQ(budget_stop_reason(pods, clock.now(), caps, rule("runpod")),
            "stopped by budget: accrued $0.1010 would cross cap $0.1000 (budget.max_usd)");
}

TEST(BudgetGuard, PerMinuteBillingCountsTheWholeNextMinute) {
  FakeClock clock;
  // Lambda bills per minute: $0.60/h is $0.01 a started minute. A $0.02 cap allows two minutes.
  std::vector<PodRecord> pods{pod("lambda", 0.60, clock.now())};
  const std::vector<BudgetCap> caps{{0.02, "budget.max_usd"}};
  clock.advance(std::chrono::seconds(89));  // +30 s margin: 119 s billed as 2 minutes
  EXPECT_EQ(budget_stop_reason(pods, clock.now(), caps, rule("lambda")), "");
  clock.advance(std::chrono::seconds(2));  // 121 s would bill a third minute
  EXPECT_NE(budget_stop_reason(pods, clock.now(), caps, rule("lambda"))
                .find("accrued $0.0300 would cross cap "
                      "$0.0200"),
            std::string::npos);
}

TEST(BudgetGuard, DeletedAndFailedPodsAndSeveralCaps) {
  FakeClock clock;
  PodRecord gone = pod("runpod", 36.0, clock.now());  // $0.01 a second
  gone.state = PodRecordState::kDeleted;
  gone.deleted_ms = gone.created_ms + 10'000;  // billed 10 s only: $0.10
  PodRecord never = pod("runpod", 1000.0, clock.now());
  never.state = PodRecordState::kCreateFailed;
  std::vector<PodRecord> pods{gone, never};
  clock.advance(std::chrono::hours(1));
  EXPECT_NEAR(accrued_usd(pods, clock.now(), rule("runpod")), 0.10, 1e-9);
  // The tighter of the job's cap and what burstd's daily cap has left wins.
  const std::vector<BudgetCap> caps{{5.0, "budget.max_usd"},
                                    {0.05, "what is left today of burstd budget.usd_per_day"}};
  EXPECT_EQ(budget_stop_reason(pods, clock.now(), caps, rule("runpod")),
            "stopped by budget: accrued $0.1000 would cross cap $0.0500 (what is left today of "
            "burstd budget.usd_per_day)");
  EXPECT_EQ(budget_stop_reason(pods, clock.now(), {}, rule("runpod")), "") << "no cap, no stop";
}

}  // namespace
}  // namespace burst

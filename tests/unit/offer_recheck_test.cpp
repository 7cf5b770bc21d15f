// The re-check right before create: a vanished offer falls over to the next-best planned one of
// the same provider, and says so; nothing left is a capacity error naming the offer.
#include "job/offer_recheck.h"

#include <gtest/gtest.h>

#include "fakes/fake_provider.h"

namespace burst {
namespace {

Offer live(const std::string& gpu, const std::string& region, double usd) {
  return Offer{"vast", gpu, 1, 24.0, usd, std::nullopt, region, true, "live offer"};
}

Plan plan_of(const std::vector<Offer>& ranked) {
  Plan p;
  p.gpu = ranked.front();
  for (const Offer& o : ranked) {
    Candidate c;
    c.offer = o;
    p.candidates.push_back(c);
  }
  return p;
}

TEST(OfferRecheck, AnOfferStillThereKeepsThePlanAtTodaysPrice) {
  FakeProvider p("vast");
  p.gpu_offers = {live("RTX_4090", "Quebec, CA (machine 41202)", 0.33)};
  Plan plan = plan_of({live("RTX_4090", "Quebec, CA (machine 41202)", 0.31)});
  std::string note;
  ASSERT_TRUE(recheck_chosen_offer(p, &plan, &note).ok());
  EXPECT_EQ(note, "");
  EXPECT_DOUBLE_EQ(plan.gpu.usd_per_hour, 0.33);
}

TEST(OfferRecheck, AVanishedOfferFallsOverToTheNextBestAndSaysWhy) {
  FakeProvider p("vast");
  p.gpu_offers = {live("RTX_4090", "Washington, US (machine 41201)", 0.35)};
  Plan plan = plan_of({live("RTX_4090", "Quebec, CA (machine 41202)", 0.31),
                       live("L40S", "Norway, NO (machine 70002)", 0.72),
                       live("RTX_4090", "Washington, US (machine 41201)", 0.35)});
  plan.candidates[1].rejected = "over budget";
  std::string note;
  ASSERT_TRUE(recheck_chosen_offer(p, &plan, &note).ok());
  EXPECT_EQ(plan.gpu.region, "Washington, US (machine 41201)");
  EXPECT_EQ(note,
            "the chosen offer (vast RTX_4090 x1 in Quebec, CA (machine 41202) at $0.310/h) "
            "vanished before create; fell over to the next-best plan: vast RTX_4090 x1 in "
            "Washington, US (machine 41201) at $0.350/h");
}

TEST(OfferRecheck, AFallOverCarriesTheNextCandidatesEstimate) {
  FakeProvider p("vast");
  p.gpu_offers = {live("RTX_4090", "Washington, US (machine 41201)", 0.35)};
  Plan plan = plan_of({live("RTX_4090", "Quebec, CA (machine 41202)", 0.31),
                       live("RTX_4090", "Washington, US (machine 41201)", 0.35)});
  plan.candidates[0].usd = 0.10;
  plan.candidates[0].total_s = 600;
  plan.candidates[1].usd = 0.13;
  plan.candidates[1].total_s = 660;
  plan.estimate.usd = 0.12;  // the GPU's 0.10 and a $0.02 prepare or hand-off on top
  plan.estimate.total_s = 700;
  std::string note;
  ASSERT_TRUE(recheck_chosen_offer(p, &plan, &note).ok());
  EXPECT_NEAR(plan.estimate.usd, 0.15, 1e-12);
  EXPECT_DOUBLE_EQ(plan.estimate.total_s, 760);
}

TEST(OfferRecheck, NothingLeftIsACapacityErrorNamingTheOffer) {
  FakeProvider p("vast");
  Plan plan = plan_of({live("RTX_4090", "Quebec, CA (machine 41202)", 0.31)});
  std::string note;
  Status st = recheck_chosen_offer(p, &plan, &note);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(st.error().message,
            "the chosen offer (vast RTX_4090 x1 in Quebec, CA (machine 41202) at $0.310/h) "
            "vanished before create, and no other planned vast offer is still available");
}

TEST(OfferRecheck, TablePricesAndOtherProvidersAreNotRechecked) {
  FakeProvider p("vast");
  Plan plan = plan_of({live("RTX_4090", "x", 0.31)});
  plan.gpu.price_source = "offline table 2026-11-01";
  std::string note;
  EXPECT_TRUE(recheck_chosen_offer(p, &plan, &note).ok());
  EXPECT_TRUE(p.calls_.empty() || p.calls_.back() != "offers");
  EXPECT_EQ(plan.gpu.region, "x");
}

}  // namespace
}  // namespace burst

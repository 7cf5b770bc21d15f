// What a host that bills its traffic per GB (Vast's inet_down_cost / inet_up_cost) costs beside
// its pods, in the job's report: the downloads the plan priced, shown as estimated only, and the
// artefacts pulled, priced at the host's upload charge now that their size is known; neither is
// in the cost comparison, which is of the pods burst measures.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "report/job_history.h"
#include "report/job_report.h"
#include "report/report_fixture.h"

namespace burst {
namespace {

class TransferReportTest : public ReportFixture {};

TEST_F(TransferReportTest, AHostsPerGbTransferChargeIsShownAsEstimatedAndLeftOutOfTheComparison) {
  // The plan added $0.34 of Vast's per-GB download charge (plan/planner.h, transfer_usd) to a
  // $2.50 estimate of the pods; burst never sees that bill, so the cost row compares the pods.
  HistoryJob h = success(3000);
  h.estimate_json = estimate(2.84, 3000, 2900, 0.95);
  h.estimate_json.insert(1, "\"transfer_usd\":0.34,");
  JobReport r = report(h);
  EXPECT_NEAR(r.estimate.transfer_usd, 0.34, 1e-9);
  ASSERT_TRUE(r.usd_error_pct);
  EXPECT_NEAR(*r.usd_error_pct, (r.total_usd - 2.5) / 2.5 * 100, 1e-9);
  const std::string md = report_markdown(r);
  EXPECT_NE(md.find("| cost | $2.50 | $2.61 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| transfer, billed per GB by the host | $0.34 | not measured (the provider's "
                    "bill) | - |"),
            std::string::npos)
      << md;
  EXPECT_NE(report_html(r).find("transfer, billed per GB by the host"), std::string::npos);
  // Without it (every other provider): no such row.
  HistoryJob plain = success(3000);
  plain.id = "job-without-transfer";
  const std::string plain_md = report_markdown(report(plain));
  EXPECT_EQ(plain_md.find("transfer, billed"), std::string::npos);
  EXPECT_EQ(plain_md.find("artefacts pulled, billed"), std::string::npos);
}

TEST_F(TransferReportTest, ArtefactsPulledFromAHostThatBillsUploadsArePricedAtItsRate) {
  // The plan could not price the pull (the artefacts' size was unknown); the report knows the
  // bytes: 40 GB out of a host charging $0.01/GB is $0.40 beside the pods, not in the comparison.
  HistoryJob h = success(3000);
  h.pulled_bytes = 40'000'000'000;
  h.estimate_json = estimate(2.50, 3000, 2900, 0.95);
  h.estimate_json.insert(1, "\"upload_usd_per_gb\":0.01,");
  JobReport r = report(h);
  ASSERT_TRUE(r.pulled_transfer_usd);
  EXPECT_NEAR(*r.pulled_transfer_usd, 0.40, 1e-9);
  ASSERT_TRUE(r.usd_error_pct);
  EXPECT_NEAR(*r.usd_error_pct, (r.total_usd - 2.5) / 2.5 * 100, 1e-9);
  const std::string md = report_markdown(r);
  EXPECT_NE(md.find("| artefacts pulled, billed per GB by the host | not priced | $0.40 (40.00 GB "
                    "at 0.010 $/GB) | - |"),
            std::string::npos)
      << md;
  EXPECT_NE(report_html(r).find("artefacts pulled, billed per GB by the host"), std::string::npos);
  auto j = nlohmann::json::parse(report_json(r));
  EXPECT_NEAR(j["actual"]["pulled_transfer_usd"].get<double>(), 0.40, 1e-9) << j.dump(2);
}

TEST_F(TransferReportTest, TheBudgetUsedCountsTheHostsPerGbChargesAsTheBudgetsCapDoes) {
  // budget.max_usd $4: the pods' own cost, $0.34 of estimated downloads and $0.40 of pulled
  // artefacts all spend it (job/budget_guard.h lowers the cap by the downloads).
  HistoryJob h = success(3000);
  h.facts.budget_usd = 4;
  h.pulled_bytes = 40'000'000'000;
  h.estimate_json = estimate(2.84, 3000, 2900, 0.95);
  h.estimate_json.insert(1, "\"transfer_usd\":0.34,\"upload_usd_per_gb\":0.01,");
  JobReport r = report(h);
  ASSERT_TRUE(r.budget_used_pct);
  EXPECT_NEAR(*r.budget_used_pct, (r.total_usd + 0.74) / 4 * 100, 1e-9);
  const std::string md = report_markdown(r);
  EXPECT_NE(md.find("- budget.max_usd $4.00: 84% used (pods $2.61, per-GB transfer $0.74)"),
            std::string::npos)
      << md;
  EXPECT_NE(report_html(r).find("84% used (pods $2.61, per-GB transfer $0.74)"), std::string::npos);
  auto j = nlohmann::json::parse(report_json(r));
  EXPECT_NEAR(j["budget"]["transfer_usd"].get<double>(), 0.74, 1e-9) << j.dump(2);
  // A host that bills no traffic: the pods alone, and no parts named.
  HistoryJob plain = success(3000);
  plain.id = "job-budget-without-transfer";
  plain.facts.budget_usd = 4;
  JobReport p = report(plain);
  EXPECT_NEAR(*p.budget_used_pct, p.total_usd / 4 * 100, 1e-9);
  EXPECT_NE(report_markdown(p).find("- budget.max_usd $4.00: 65% used\n"), std::string::npos)
      << report_markdown(p);
}

}  // namespace
}  // namespace burst

// What to do next time, derived from a job's report alone. Each recommendation has a trigger
// (a named rule over the report's numbers, thresholds below) documented in docs/reports.md; the
// tests assert each one fires at its threshold and stays quiet below it.
#pragma once

#include <vector>

#include "report/job_report.h"

namespace burst {

// low-utilization: a succeeded job whose compute / GPU billed time is below this.
inline constexpr double kRecommendLowUtilization = 0.50;
// deadline-slack: a succeeded job that finished with at least this share of its deadline left.
inline constexpr double kRecommendDeadlineSlackPct = 40;
// budget-near: a job that used at least this share of budget.max_usd.
inline constexpr double kRecommendBudgetNearPct = 90;
// over-provisioned: a succeeded job of several workers whose overall utilization is below this
// (the ~70% a wide job should reach: below it the workers mostly wait, boot and sync).
inline constexpr double kRecommendWideUtilization = 0.70;
// under-provisioned: a job that missed its deadline with utilization at or above this (the GPUs
// were busy all along: only more of them would have made it).
inline constexpr double kRecommendPinnedUtilization = 0.90;
// estimate-off: a succeeded job whose estimate missed by more than this much on any row of the
// report's "Estimate vs actual" table (cost, GPU billed time, run time): the same comparison the
// numbers show, so a report never calls a job that missed by more "ran as planned".
inline constexpr double kRecommendEstimateOffPct = 25;

std::vector<Recommendation> recommend(const JobReport& r);

}  // namespace burst

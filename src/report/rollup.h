// Cost roll-ups over a period (`burst report --month 2026-11`, `--since/--until`): every job
// created in [from, to), each priced exactly as its own report prices it (report/job_report.h),
// grouped by pipeline, provider and GPU type, with failed and cancelled jobs' cost, jobs that
// never created a pod ($0), a cost-per-run trend and rent vs buy per GPU type. Built from the
// store alone with two queries, so it works offline and over 10,000 jobs in well under a second
// (bench/report_bench.py).
#pragma once

#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/gpu_catalog.h"
#include "burst/store.h"
#include "report/rent_vs_buy.h"

namespace burst {

struct RollupJob {
  std::string id, pipeline, provider, gpu_type, outcome;
  bool no_pod = false;
  int64_t created_ms = 0;
  double usd = 0, gpu_usd = 0, cpu_usd = 0;
  double gpu_hours = 0;  // GPU count x billed hours of its GPU pods
  double wall_s = 0;
};

struct RollupGroup {
  std::string key;
  int runs = 0;
  int failed = 0;  // failed, cancelled or stopped by the budget
  int no_pod = 0;
  double usd = 0;
  double failed_usd = 0;
  double gpu_hours = 0;
};

// Volume storage billed in the period, per provider: each of the store's volume mappings
// (VolumeRecord) from its creation to its deletion (or now), size x price per GB-month, over the
// part of the period it existed. Storage is billed whether or not a job ran.
struct StorageLine {
  std::string provider;
  int volumes = 0;
  double gb = 0;
  double usd = 0;
};

struct RollupOptions {
  double usd_per_kwh = 0.15;                      // rent vs buy: electricity price
  double life_years = 3;                          // rent vs buy: depreciation period
  const std::vector<GpuSpec>* catalog = nullptr;  // purchase prices; null: no verdicts
};

struct Rollup {
  std::string label;  // "2026-11", "2026-11-01 .. 2026-11-15"
  int64_t from_ms = 0, to_ms = 0;
  int64_t as_of_ms = 0;
  std::vector<RollupJob> jobs;  // oldest first
  RollupGroup total;
  std::vector<RollupGroup> by_pipeline, by_provider, by_gpu;  // most expensive first
  std::vector<RentVsBuy> rent_vs_buy;                         // one per GPU type used
  std::vector<StorageLine> storage;                           // by provider name
};

Result<Rollup> build_rollup(Store& store, int64_t from_ms, int64_t to_ms, const std::string& label,
                            TimePoint as_of, const RollupOptions& options);

// "2026-11" -> [Nov 1, Dec 1) UTC; "2026-11-05" -> that day, whole. kInvalid otherwise.
Result<std::pair<int64_t, int64_t>> parse_period(const std::string& text);

std::string rollup_json(const Rollup& r);
std::string rollup_markdown(const Rollup& r);
std::string rollup_html(const Rollup& r);  // with the cost-per-run trend chart

}  // namespace burst

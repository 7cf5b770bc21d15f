#include "report/rollup.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "report/job_report.h"
#include "schedule/civil.h"

namespace burst {
namespace {

constexpr double kDaysPerMonth = 30.44;
constexpr int64_t kMsPerDay = 86400000;

bool failed_outcome(const std::string& o) {
  return o == "failed" || o == "cancelled" || o == "budget-stop";
}

void add(RollupGroup& g, const RollupJob& j) {
  g.runs += 1;
  g.usd += j.usd;
  g.gpu_hours += j.gpu_hours;
  if (j.no_pod) g.no_pod += 1;
  if (failed_outcome(j.outcome)) {
    g.failed += 1;
    g.failed_usd += j.usd;
  }
}

std::vector<RollupGroup> sorted(std::map<std::string, RollupGroup> groups) {
  std::vector<RollupGroup> out;
  for (auto& [key, g] : groups) {
    g.key = key;
    out.push_back(std::move(g));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RollupGroup& a, const RollupGroup& b) { return a.usd > b.usd; });
  return out;
}

RollupJob summarize(const JobReport& r) {
  RollupJob j{r.job.id, r.job.pipeline, r.job.provider, r.facts.gpu_type, r.outcome};
  j.no_pod = r.no_pod;
  j.created_ms = r.job.created_ms;
  j.usd = r.total_usd;
  j.gpu_usd = r.gpu_usd;
  j.cpu_usd = r.cpu_usd;
  j.wall_s = r.wall_s;
  for (const PodCost& c : r.pods) {
    if (c.pod.role == "cpu") continue;
    j.gpu_hours += c.billed_s / 3600.0 * std::max(1, c.pod.gpu_count);
    if (j.gpu_type.empty()) j.gpu_type = c.pod.gpu_type;
  }
  return j;
}

Result<int64_t> parse_int(const std::string& s, size_t at, size_t len) {
  if (at + len > s.size()) return make_error(ErrorCode::kInvalid, "short");
  int64_t v = 0;
  for (size_t i = at; i < at + len; ++i) {
    if (s[i] < '0' || s[i] > '9') return make_error(ErrorCode::kInvalid, "not a digit");
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

}  // namespace

Result<std::pair<int64_t, int64_t>> parse_period(const std::string& text) {
  const Error bad = make_error(ErrorCode::kInvalid, "\"" + text +
                                                        "\" is not a month (2026-11) or a day "
                                                        "(2026-11-05)");
  if ((text.size() != 7 && text.size() != 10) || text[4] != '-') return bad;
  auto y = parse_int(text, 0, 4);
  auto m = parse_int(text, 5, 2);
  if (!y.ok() || !m.ok() || *m < 1 || *m > 12) return bad;
  const int month = static_cast<int>(*m);
  if (text.size() == 7) {
    const int64_t from = schedule::days_from_civil(*y, month, 1);
    const int64_t to = month == 12 ? schedule::days_from_civil(*y + 1, 1, 1)
                                   : schedule::days_from_civil(*y, month + 1, 1);
    return std::make_pair(from * kMsPerDay, to * kMsPerDay);
  }
  auto d = parse_int(text, 8, 2);
  if (text[7] != '-' || !d.ok() || *d < 1 || *d > 31) return bad;
  const int64_t day = schedule::days_from_civil(*y, month, static_cast<int>(*d));
  if (schedule::civil_from_days(day).day != *d) return bad;  // 2026-02-30
  return std::make_pair(day * kMsPerDay, (day + 1) * kMsPerDay);
}

// Rollup::storage from the store's volume rows (deleted ones included: they billed until then).
Status add_storage(Store& store, Rollup* out) {
  auto rows = store.all_volumes();
  if (!rows.ok()) return rows.error();
  std::map<std::string, StorageLine> by;
  const int64_t end_of = std::min(out->to_ms, out->as_of_ms);
  for (const VolumeRecord& v : *rows) {
    if (v.volume_id.empty()) continue;
    const int64_t gone = v.state == "deleted" ? v.updated_ms : end_of;
    const int64_t from = std::max(out->from_ms, v.created_ms), to = std::min(end_of, gone);
    if (to <= from) continue;
    StorageLine& l = by[v.provider];
    l.provider = v.provider;
    l.volumes += 1;
    l.gb += v.size_gb;
    l.usd += v.size_gb * v.usd_per_gb_month * (static_cast<double>(to - from) / kMsPerDay) /
             kDaysPerMonth;
  }
  for (auto& [name, l] : by) out->storage.push_back(l);
  return Status::Ok();
}

Result<Rollup> build_rollup(Store& store, int64_t from_ms, int64_t to_ms, const std::string& label,
                            TimePoint as_of, const RollupOptions& opt) {
  Rollup out;
  out.label = label;
  out.from_ms = from_ms;
  out.to_ms = to_ms;
  out.as_of_ms = to_unix_ms(as_of);
  auto jobs = store.jobs_between(from_ms, to_ms);
  if (!jobs.ok()) return jobs.error();
  auto pods = store.pods_of_jobs_between(from_ms, to_ms);
  if (!pods.ok()) return pods.error();
  std::unordered_map<std::string, std::vector<PodRecord>> pods_by_job;
  for (PodRecord& p : *pods) pods_by_job[p.job_id].push_back(std::move(p));

  std::map<std::string, RollupGroup> pipeline, provider, gpu;
  out.jobs.reserve(jobs->size());
  for (const JobRecord& job : *jobs) {
    auto it = pods_by_job.find(job.id);
    std::vector<PodRecord> mine =
        it == pods_by_job.end() ? std::vector<PodRecord>{} : std::move(it->second);
    // Phases and transfers change no cost; the roll-up leaves them out.
    RollupJob j = summarize(assemble_job_report(job, {}, std::move(mine), {}, as_of));
    add(out.total, j);
    add(pipeline[j.pipeline], j);
    add(provider[j.provider], j);
    add(gpu[j.gpu_type.empty() ? "(none)" : j.gpu_type], j);
    out.jobs.push_back(std::move(j));
  }
  out.total.key = "total";
  out.by_pipeline = sorted(std::move(pipeline));
  out.by_provider = sorted(std::move(provider));
  out.by_gpu = sorted(std::move(gpu));

  // Rent vs buy over the part of the period that has passed.
  const int64_t start = out.jobs.empty() ? from_ms : std::max(from_ms, out.jobs.front().created_ms);
  const int64_t end = std::min(to_ms, std::max(out.as_of_ms, start + kMsPerDay));
  const double months = std::max(1.0, static_cast<double>(end - start) / kMsPerDay) / kDaysPerMonth;
  for (const RollupGroup& g : out.by_gpu) {
    if (g.key == "(none)" || !(g.gpu_hours > 0)) continue;
    double gpu_usd = 0;
    for (const RollupJob& j : out.jobs)
      if (j.gpu_type == g.key) gpu_usd += j.gpu_usd;
    RentVsBuyInput in{g.key,   g.gpu_hours,     gpu_usd,       months,
                      nullptr, opt.usd_per_kwh, opt.life_years};
    if (opt.catalog) in.spec = find_gpu(*opt.catalog, g.key);
    out.rent_vs_buy.push_back(rent_vs_buy(in));
  }
  if (auto st = add_storage(store, &out); !st.ok()) return st.error();
  return out;
}

}  // namespace burst

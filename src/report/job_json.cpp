#include "report/job_json.h"

#include "report/job_report.h"

namespace burst {
namespace {

std::string utc_or_empty(int64_t ms) { return ms ? format_utc(from_unix_ms(ms)) : std::string(); }

}  // namespace

JsonValue job_value(const JobRecord& j, const JobReport* r) {
  const double seconds =
      r ? r->wall_s : (j.finished_ms && j.created_ms ? (j.finished_ms - j.created_ms) / 1000.0 : 0);
  JsonValue out{{"job_id", j.id},
                {"id", j.id},
                {"pipeline", j.pipeline},
                {"state", to_string(j.state)},
                {"phase", to_string(j.phase)},
                {"provider", j.provider},
                {"started", utc_or_empty(j.created_ms)},
                {"finished", utc_or_empty(j.finished_ms)},
                {"seconds", seconds},
                {"error", j.error},
                {"report", j.report_path}};
  if (r) out["usd"] = r->total_usd;
  return out;
}

JsonValue pod_value(const PodRecord& p) {
  return {{"provider", p.provider}, {"pod", p.pod_id},
          {"name", p.name},         {"job_id", p.job_id},
          {"role", p.role},         {"state", to_string(p.state)},
          {"gpu", p.gpu_type},      {"usd_per_hour", p.usd_per_hour}};
}

JsonValue phase_value(const PhaseRecord& p) {
  return {{"phase", to_string(p.phase)},
          {"started", format_utc(from_unix_ms(p.started_ms))},
          {"ended", utc_or_empty(p.ended_ms)},
          {"outcome", to_string(p.outcome)},
          {"detail", p.detail}};
}

Result<JsonValue> job_detail_value(Store& store, const std::string& id, TimePoint now) {
  auto rec = store.get_job(id);
  if (!rec.ok()) return rec.error();
  auto report = build_job_report(store, id, now);
  JsonValue out = job_value(*rec, report.ok() ? &*report : nullptr);
  JsonValue phases = JsonValue::array();
  if (auto ps = store.phases(id); ps.ok())
    for (const PhaseRecord& p : *ps) phases.push_back(phase_value(p));
  out["phases"] = phases;
  JsonValue pods = JsonValue::array();
  if (auto ps = store.pods_of_job(id); ps.ok())
    for (const PodRecord& p : *ps) pods.push_back(pod_value(p));
  out["pods"] = pods;
  return out;
}

}  // namespace burst

// Reading the PostgreSQL store's rows into records, and the column lists they read: one place
// for postgres_store.cpp and postgres_ledger.cpp. States come back through burst/states.h's
// from_string, as in the SQLite adapter: an unknown string is an error naming the row.
#pragma once

#include <string>
#include <vector>

#include "burst/store.h"
#include "store/pg_conn.h"

namespace burst::pg {

inline constexpr const char* kJobColumns =
    "id, pipeline, spec_path, state, phase, provider, error, estimate_json, report_path, "
    "created_ms, finished_ms, owner_pid, facts_json, owner_start";
inline constexpr const char* kPodColumns =
    "row_id, job_id, provider, role, name, pod_id, gpu_type, gpu_count, usd_per_hour, "
    "price_source, state, host_key, created_ms, deleted_ms";
inline constexpr const char* kVolumeColumns =
    "provider, spec_name, region, volume_id, state, size_gb, usd_per_gb_month, created_ms, "
    "updated_ms";
inline constexpr const char* kQueueColumns =
    "id, pipeline, spec_path, spec_text, reason, queued_ms, held_by, lease_owner, "
    "lease_expires_ms, submitted_by";

Result<JobRecord> read_job(const Rows& rows, int r);
Result<PhaseRecord> read_phase(const Rows& rows, int r);
Result<PodRecord> read_pod(const Rows& rows, int r);
TransferRecord read_transfer(const Rows& rows, int r);
CalibrationRecord read_calibration(const Rows& rows, int r);
VolumeRecord read_volume(const Rows& rows, int r);
QueuedJobRecord read_queued(const Rows& rows, int r);

// Every row through a reader that can fail; the first failure is the answer.
template <typename T>
Result<std::vector<T>> collect_checked(const Rows& rows, Result<T> (*read)(const Rows&, int)) {
  std::vector<T> out;
  for (int r = 0; r < rows.size(); ++r) {
    Result<T> v = read(rows, r);
    if (!v) return v.error();
    out.push_back(std::move(*v));
  }
  return out;
}

}  // namespace burst::pg

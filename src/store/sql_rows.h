// The store's column lists, the readers that turn a row into a record and the binders that fill
// a statement from one, written once for both databases (sql_db.h). States are stored as the text
// burst/states.h's to_string gives, the very strings burst wrote before states were typed, so
// existing databases need no migration; a string this burst does not know (a newer burst's, a
// hand edit) is an error naming the row, never a default.
#pragma once

#include <string>
#include <string_view>

#include "burst/store.h"
#include "store/sql_db.h"

namespace burst::sql {

inline constexpr const char* kJobColumns =
    "id, pipeline, spec_path, state, phase, provider, error, estimate_json, report_path, "
    "created_ms, finished_ms, owner_pid, facts_json, owner_start, stopped_by";
inline constexpr const char* kPodColumns =
    "row_id, job_id, provider, role, name, pod_id, gpu_type, gpu_count, usd_per_hour, "
    "price_source, state, host_key, created_ms, deleted_ms";
// A pod's columns but row_id, which the database numbers.
inline constexpr const char* kPodFields = kPodColumns + 8;
static_assert(std::string_view(kPodColumns).substr(0, 8) == "row_id, ");
inline constexpr const char* kVolumeColumns =
    "provider, spec_name, region, volume_id, state, size_gb, usd_per_gb_month, created_ms, "
    "updated_ms";
inline constexpr const char* kQueueColumns =
    "id, pipeline, spec_path, spec_text, reason, queued_ms, held_by, lease_owner, "
    "lease_expires_ms, submitted_by";
inline constexpr const char* kPhaseColumns =
    "job_id, phase, started_ms, ended_ms, outcome, detail, worker, deviation";
inline constexpr const char* kTransferColumns = "job_id, direction, files, bytes, millis";
inline constexpr const char* kReplicaColumns =
    "job_id, worker, pod_id, replica, replicas, gpus, items, run_ms, step_ms, gpu_util_pct, "
    "gpu_util_samples, exit_status";
inline constexpr const char* kCalibrationColumns =
    "job_id, pipeline, gpu_type, workload_kind, units, measured_s, predicted_s, recorded_ms";
inline constexpr const char* kImageSizeColumns = "image, bytes, fetched_ms, failure";
inline constexpr const char* kReservationColumns =
    "job_id, pipeline, usd, day, month, reserved_ms, released_ms, team, user_name";
inline constexpr const char* kSpendColumns =
    "pod_row_id, from_ms, to_ms, usd, job_id, pipeline, day, month";

Result<JobRecord> read_job(const Row& row);
Result<PhaseRecord> read_phase(const Row& row);
Result<PodRecord> read_pod(const Row& row);
TransferRecord read_transfer(const Row& row);
ReplicaRecord read_replica(const Row& row);
CalibrationRecord read_calibration(const Row& row);
VolumeRecord read_volume(const Row& row);
ImageSizeRecord read_image_size(const Row& row);
QueuedJobRecord read_queued(const Row& row);
ReservationRecord read_reservation(const Row& row);
SpendRecord read_spend(const Row& row);
CapSetting read_cap(const Row& row);
CapChange read_cap_change(const Row& row);  // store_sql::kNoCap reads as no value

// Binds every field in its column list's order (a pod's without row_id, the first column).
void bind_job(Stmt& s, const JobRecord& j);
void bind_phase(Stmt& s, const PhaseRecord& p);  // a finished row (outcome set)
// JobRecord::stop as stored: "" when not known.
std::string stored_stop(const std::optional<JobStop>& stop);
void bind_pod(Stmt& s, const PodRecord& p);
void bind_replica(Stmt& s, const ReplicaRecord& r);  // gpu_util_pct: -1 when none
void bind_volume(Stmt& s, const VolumeRecord& v);
void bind_calibration(Stmt& s, const CalibrationRecord& c);

// "\"s\"", as error messages name a row.
std::string in_quotes(const std::string& s);

// The text a state or name is stored as.
template <typename E>
std::string stored(E value) {
  return std::string(to_string(value));
}

}  // namespace burst::sql

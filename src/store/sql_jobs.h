// The store's job history: jobs, their phase transitions, pods, transfers and calibration
// samples (Store's calls; the contract is in include/burst/store.h), written once over the
// dialect layer (sql_db.h) for SQLite and PostgreSQL. Free functions over one connection: the
// caller (the store) holds its connection lock around each call.
#pragma once

#include <string>
#include <vector>

#include "burst/store.h"
#include "store/sql_db.h"

namespace burst::sql {

Status create_job(Db& db, const JobRecord& job);
Status update_job(Db& db, const JobRecord& job);
Result<JobRecord> get_job(Db& db, const std::string& id);
Result<std::vector<JobRecord>> recent_jobs(Db& db, int limit);
Result<std::vector<JobRecord>> jobs_between(Db& db, int64_t from_ms, int64_t to_ms);

Status begin_phase(Db& db, const std::string& job_id, Phase phase, int64_t at_ms);
Status end_phase(Db& db, const std::string& job_id, Phase phase, int64_t at_ms, Outcome outcome,
                 const std::string& detail);
Status record_phase(Db& db, const PhaseRecord& row);
Result<std::vector<PhaseRecord>> phases(Db& db, const std::string& job_id);

Result<int64_t> add_pod(Db& db, const PodRecord& pod);
Status update_pod(Db& db, const PodRecord& pod);
Result<std::vector<PodRecord>> pods_of_job(Db& db, const std::string& job_id);
Result<std::vector<PodRecord>> live_pods(Db& db);
Result<std::vector<PodRecord>> pods_of_jobs_between(Db& db, int64_t from_ms, int64_t to_ms);

Status add_transfer(Db& db, const TransferRecord& t);
Result<std::vector<TransferRecord>> transfers(Db& db, const std::string& job_id);
Status add_replica(Db& db, const ReplicaRecord& r);
Result<std::vector<ReplicaRecord>> replicas(Db& db, const std::string& job_id);

Status add_calibration(Db& db, const CalibrationRecord& c);
Result<std::vector<CalibrationRecord>> calibration_samples(Db& db, const std::string& pipeline,
                                                           const std::string& kind, int limit);

}  // namespace burst::sql

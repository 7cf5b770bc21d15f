// Records the store tests write, and whole-record comparisons (EXPECT_EQ prints every field).
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "burst/store.h"

namespace burst::testing {

inline JobRecord make_job(const std::string& id, int64_t created_ms) {
  JobRecord j;
  j.id = id;
  j.pipeline = "finetune";
  j.spec_path = "/home/u/specs/finetune.yaml";
  j.state = JobState::kRunning;
  j.phase = Phase::kProvision;
  j.provider = "runpod";
  j.estimate_json = R"({"usd":1.25,"minutes":30})";
  j.created_ms = created_ms;
  return j;
}

inline PodRecord make_pod(const std::string& job_id, const std::string& name, int64_t created_ms) {
  PodRecord p;
  p.job_id = job_id;
  p.provider = "runpod";
  p.role = "gpu";
  p.name = name;
  p.gpu_type = "H100 80GB";
  p.gpu_count = 2;
  p.usd_per_hour = 4.78;
  p.price_source = "live offer";
  p.state = PodRecordState::kCreating;
  p.created_ms = created_ms;
  return p;
}

inline auto fields(const JobRecord& j) {
  return std::tie(j.id, j.pipeline, j.spec_path, j.state, j.phase, j.provider, j.error,
                  j.estimate_json, j.report_path, j.created_ms, j.finished_ms, j.owner_pid,
                  j.owner_start, j.stop);
}

inline auto fields(const PodRecord& p) {
  return std::tie(p.row_id, p.job_id, p.provider, p.role, p.name, p.pod_id, p.gpu_type, p.gpu_count,
                  p.usd_per_hour, p.price_source, p.state, p.host_key, p.created_ms, p.deleted_ms);
}

}  // namespace burst::testing

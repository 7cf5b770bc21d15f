// Records a job's history into a Store the way JobRunner does (job row with its estimate and
// facts, one phase row after another, pod rows created at their provision phase and confirmed
// deleted at the end of their delete phase, transfers), so report tests start from realistic
// rows without running anything.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "burst/store.h"
#include "report/job_facts.h"

namespace burst {

struct HistoryJob {
  std::string id = "20261110-120000-0001";
  std::string pipeline = "tts-render";
  std::string provider = "runpod";
  JobState state = JobState::kSucceeded;  // kSucceeded | kFailed | kInterrupted
  std::string error;
  std::optional<JobStop> stop;       // the runner's typed fact; nullopt: a job recorded before it
  int64_t start_ms = 1762776000000;  // 2025-11-10T12:00:00Z; tests set their own
  // Phases in order with their seconds; outcome "ok" unless listed in `outcomes`.
  std::vector<std::pair<std::string, double>> phases;
  std::vector<std::pair<std::string, std::string>> outcomes;  // phase -> outcome
  std::string gpu_type = "H100_SXM";
  int gpu_count = 1;
  double gpu_usd_per_hour = 2.99;
  double cpu_usd_per_hour = 0.12;
  bool gpu_create_fails = false;  // the provision phase's create failed: pod row create-failed
  bool leave_gpu_alive = false;   // deletion never confirmed
  ReportFacts facts;              // gpu fields filled from above when empty
  std::string estimate_json;      // "" = no estimate
  int64_t synced_bytes = 0, pulled_bytes = 0;
};

// The standard successful pipeline: cold start 90 s (+20 s setup), sync 10 s, run `run_s`,
// pull 15 s, GPU delete 5 s, then a CPU hand-off of 55 s.
inline std::vector<std::pair<std::string, double>> full_phases(double run_s) {
  return {{"plan", 1},           {"provision", 60}, {"wait-for-ssh", 30},  {"sync", 10},
          {"setup", 20},         {"run", run_s},    {"pull", 15},          {"delete-gpu-pod", 5},
          {"cpu-provision", 20}, {"upload", 30},    {"delete-cpu-pod", 5}, {"report", 0}};
}

inline std::string outcome_of(const HistoryJob& h, const std::string& phase) {
  for (const auto& [p, o] : h.outcomes)
    if (p == phase) return o;
  return "ok";
}

inline void record_history(Store& store, HistoryJob h) {
  if (h.facts.gpu_type.empty()) {
    h.facts.gpu_type = h.gpu_type;
    h.facts.gpu_count = h.gpu_count;
    h.facts.gpu_usd_per_hour = h.gpu_usd_per_hour;
    h.facts.price_source = "live offer";
  }
  if (h.facts.billing_increment_s == 0) {
    h.facts.billing_increment_s = h.provider == "lambda" ? 60 : 1;
    h.facts.billing_unit = h.provider == "lambda" ? "minute" : "second";
  }
  JobRecord job;
  job.id = h.id;
  job.pipeline = h.pipeline;
  job.spec_path = "/work/" + h.pipeline + ".yaml";
  job.state = JobState::kRunning;
  job.phase = Phase::kPlan;
  job.provider = h.provider;
  job.estimate_json = h.estimate_json;
  job.facts_json = report_facts_to_json(h.facts);
  job.created_ms = h.start_ms;
  ASSERT_TRUE(store.create_job(job).ok());
  int64_t t = h.start_ms;
  std::optional<PodRecord> gpu, cpu;
  auto make_pod = [&](const std::string& role, double price) {
    PodRecord p;
    p.job_id = h.id;
    p.provider = h.provider;
    p.role = role;
    p.name = "burst-" + h.id + "-" + role;
    p.pod_id = role + "-" + h.id;
    p.gpu_type = role == "gpu" ? h.gpu_type : "cpu";
    p.gpu_count = role == "gpu" ? h.gpu_count : 0;
    p.usd_per_hour = price;
    p.price_source = "live offer";
    p.state = PodRecordState::kAlive;
    p.created_ms = t;
    auto row = store.add_pod(p);
    EXPECT_TRUE(row.ok());
    p.row_id = row.ok() ? *row : 0;
    return p;
  };
  for (const auto& [phase, seconds] : h.phases) {
    const std::optional<Phase> named = phase_from_string(phase);
    ASSERT_TRUE(named) << phase;
    ASSERT_TRUE(store.begin_phase(h.id, *named, t).ok());
    if (phase == "provision") {
      gpu = make_pod("gpu", h.gpu_usd_per_hour);
      if (h.gpu_create_fails) {
        gpu->state = PodRecordState::kCreateFailed;
        gpu->pod_id = "";
        gpu->deleted_ms = t + 1000;
        ASSERT_TRUE(store.update_pod(*gpu).ok());
      }
    }
    if (phase == "cpu-provision") cpu = make_pod("cpu", h.cpu_usd_per_hour);
    t += static_cast<int64_t>(std::llround(seconds * 1000));
    if (phase == "delete-gpu-pod" && gpu && !h.gpu_create_fails && !h.leave_gpu_alive) {
      gpu->state = PodRecordState::kDeleted;
      gpu->deleted_ms = t;
      ASSERT_TRUE(store.update_pod(*gpu).ok());
    }
    if (phase == "delete-cpu-pod" && cpu) {
      cpu->state = PodRecordState::kDeleted;
      cpu->deleted_ms = t;
      ASSERT_TRUE(store.update_pod(*cpu).ok());
    }
    const std::string outcome = outcome_of(h, phase);
    ASSERT_TRUE(outcome_from_string(outcome)) << outcome;
    ASSERT_TRUE(store
                    .end_phase(h.id, *named, t, *outcome_from_string(outcome),
                               outcome == "ok" ? "" : h.error)
                    .ok());
  }
  if (h.synced_bytes) {
    ASSERT_TRUE(store.add_transfer({h.id, "sync", 3, h.synced_bytes, 2000}).ok());
  }
  if (h.pulled_bytes) {
    ASSERT_TRUE(store.add_transfer({h.id, "pull", 1, h.pulled_bytes, 1000}).ok());
  }
  job.state = h.state;
  job.error = h.error;
  job.stop = h.stop;
  job.phase = Phase::kReport;
  job.finished_ms = t;
  ASSERT_TRUE(store.update_job(job).ok());
}

// The estimate JSON as the planner writes it (plan/planner.h estimate_to_json).
inline std::string estimate(double usd, double billed_s, double run_s, double utilization) {
  return "{\"usd\":" + std::to_string(usd) + ",\"billed_s\":" + std::to_string(billed_s) +
         ",\"total_s\":" + std::to_string(billed_s) + ",\"run_s\":" + std::to_string(run_s) +
         ",\"utilization\":" + std::to_string(utilization) +
         ",\"run_known\":true,\"basis\":\"roofline on H100_SXM x1, bandwidth-bound\"}";
}

inline long cents(double usd) { return std::lround(usd * 100); }

}  // namespace burst

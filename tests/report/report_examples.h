// Example histories for the committed example reports (docs/example-report.html,
// docs/example-monthly-report.html) and the headless Chromium test: one realistic job, and a
// month of three pipelines with a failure, a cancellation and a job that never created a pod.
#pragma once

#include <memory>
#include <string>

#include "report/job_history.h"
#include "report/job_report.h"
#include "report/rollup.h"

namespace burst {

inline constexpr int64_t kExampleNov1 = 1793491200000;  // 2026-11-01T00:00:00Z
inline constexpr int64_t kExampleDay = 86400000;

// tts-render on RunPod: an RTX 4090 rendering 300 questions; utilization 44%, deadline met
// with slack.
inline HistoryJob example_job() {
  HistoryJob h;
  h.id = "20261112-091500-4f2a";
  h.pipeline = "tts-render";
  h.provider = "runpod";
  h.gpu_type = "RTX_4090";
  h.gpu_usd_per_hour = 0.69;
  h.cpu_usd_per_hour = 0.06;
  h.start_ms = kExampleNov1 + 11 * kExampleDay + 33300000;  // 2026-11-12T09:15:00Z
  h.phases = {{"plan", 0.4},    {"provision", 48.2},     {"wait-for-ssh", 21.7},
              {"sync", 6.3},    {"setup", 84.9},         {"run", 142.6},
              {"pull", 9.8},    {"delete-gpu-pod", 3.1}, {"cpu-provision", 17.5},
              {"upload", 12.2}, {"delete-cpu-pod", 2.9}, {"report", 0.1}};
  h.estimate_json =
      "{\"usd\":0.0512,\"billed_s\":240,\"total_s\":240,\"run_s\":130,\"utilization\":0.54,"
      "\"run_known\":true,\"basis\":\"workload.reference: RTX_4090 measured 130 s\"}";
  h.facts.workload_kind = "custom";
  h.facts.units = 300;
  h.facts.unit_name = "items";
  h.facts.bound = "compute";
  h.facts.budget_usd = 0.50;
  h.facts.deadline_s = 900;
  h.synced_bytes = 184320;
  h.pulled_bytes = 52428800;
  return h;
}

// A month: daily tts-render runs, weekly training on Lambda, a few batch embeddings on Vast.
inline void record_example_month(Store& store) {
  for (int d = 0; d < 28; ++d) {
    HistoryJob h = example_job();
    h.id = "202611" + std::string(d + 1 < 10 ? "0" : "") + std::to_string(d + 1) + "-0900-tts";
    h.start_ms = kExampleNov1 + d * kExampleDay + 32400000;
    h.phases[5].second = 120 + 6 * d;  // the run grows with the data
    if (d == 9) {                      // one failure mid-run
      h.phases = {{"plan", 0.4}, {"provision", 50},     {"wait-for-ssh", 22},
                  {"sync", 6},   {"setup", 80},         {"run", 40},
                  {"pull", 9},   {"delete-gpu-pod", 3}, {"report", 0.1}};
      h.outcomes = {{"run", "failed"}};
      h.state = JobState::kFailed;
      h.error = "run: exited with status 1";
    }
    record_history(store, h);
  }
  for (int w = 0; w < 4; ++w) {
    HistoryJob t;
    const int day = 3 + 7 * w;
    t.id = "202611" + std::string(day < 10 ? "0" : "") + std::to_string(day) + "-1400-train";
    t.pipeline = "finetune-7b";
    t.provider = "lambda";
    t.gpu_type = "A100_80GB";
    t.gpu_usd_per_hour = 1.79;
    t.start_ms = kExampleNov1 + (2 + 7 * w) * kExampleDay + 50400000;
    t.phases = {{"plan", 1},  {"provision", 120},     {"wait-for-ssh", 60},
                {"sync", 20}, {"setup", 300},         {"run", 5400.0 + 600 * w},
                {"pull", 90}, {"delete-gpu-pod", 10}, {"report", 0}};
    if (w == 2) {  // cancelled by its owner
      t.phases[5].second = 1200;
      t.outcomes = {{"run", "interrupted"}};
      t.state = JobState::kInterrupted;
      t.error = "run: interrupted";
    }
    t.estimate_json =
        "{\"usd\":3.10,\"billed_s\":6240,\"total_s\":6200,\"run_s\":5700,\"utilization\":0.9,"
        "\"run_known\":true,\"basis\":\"roofline on A100_80GB x1, compute-bound\"}";
    record_history(store, t);
  }
  for (int b = 0; b < 3; ++b) {
    HistoryJob e;
    e.id = "202611" + std::to_string(20 + b) + "-2200-embed";
    e.pipeline = "embed-docs";
    e.provider = "vast";
    e.gpu_type = "RTX_3090";
    e.gpu_usd_per_hour = 0.22;
    e.start_ms = kExampleNov1 + (19 + b) * kExampleDay + 79200000;
    e.phases = {{"plan", 1},  {"provision", 90}, {"wait-for-ssh", 40},  {"sync", 5},  {"setup", 60},
                {"run", 900}, {"pull", 30},      {"delete-gpu-pod", 5}, {"report", 0}};
    if (b == 1) {  // no capacity: never created a pod
      e.phases = {{"plan", 1}, {"provision", 3}, {"delete-gpu-pod", 1}, {"report", 0}};
      e.outcomes = {{"provision", "failed"}};
      e.gpu_create_fails = true;
      e.state = JobState::kFailed;
      e.error = "provision: vast: no capacity for RTX_3090";
    }
    record_history(store, e);
  }
}

inline TimePoint example_as_of() { return from_unix_ms(kExampleNov1 + 30 * kExampleDay); }

}  // namespace burst

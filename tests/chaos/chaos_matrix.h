// The fault-injection matrix (docs/chaos.md): which cells exist, which cannot apply and why, how a
// cell's result is stored, and the table printed at the end. Shared by the cell runner
// (chaos_cells_test.cpp, one ctest entry per cell) and burst_chaos_table, which prints the table.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace burst::chaos {

const std::vector<std::string>& providers();  // local, runpod, lambda, vast
const std::vector<std::string>& points();     // the fault points, in job order (fault_point.h)
const std::vector<std::string>& faults();     // kill-run, kill-burstd, ssh-cut, api-500, ...

// pod-silent and pod-hostile: the pod itself misbehaves (a shim answers burst's commands,
// BURST_TEST_POD_SHIM, docs/testing.md) instead of something killing burst or the network.
bool is_pod_fault(const std::string& fault);

// worker-lost and worker-cut: a job of 3 workers (job/worker_fleet.h) where worker 1's first pod
// is lost at the provider, or its SSH connections cut, at the point (BURST_FAULT=<point>@w1);
// the job must retry that shard on a new pod and succeed with every item exactly once.
// spot-preempted (Vast and RunPod): the same job on spot pods (resources.spot, workers: 3),
// worker 1's first pod taken back as the provider documents it (CloudState::preempt: Vast's
// outbid instance, RunPod's EXITED interruptible pod); its unfinished items must run on a new spot
// pod.
bool is_worker_fault(const std::string& fault);

// Where the upload of the chaos spec runs on `provider` ("cpu-pod", "gpu-pod", "local": the
// plan's hand-off choice, pinned; a different choice fails the mid-upload cells).
std::string handoff_of(const std::string& provider);

// Why the cell cannot apply, or "" when it runs.
std::string na_reason(const std::string& provider, const std::string& fault,
                      const std::string& point);

// Whether the cell is in the `chaos` label (the CI subset) rather than only in `chaos-full`.
bool in_ci_subset(const std::string& provider, const std::string& fault, const std::string& point);

std::string cell_id(const std::string& provider, const std::string& fault,
                    const std::string& point);  // "runpod.kill-run.mid-sync"

struct CellResult {
  std::string id;
  bool passed = false;
  int pods_leaked = 0;          // live pods after recovery, by the provider's own state
  int artefacts_corrupted = 0;  // files under their final name whose hash is wrong
  int files_outside = 0;        // files the job wrote outside its artefact dirs
  int left_for_reap = 0;        // live pods when the faulted process ended (before recovery)
  std::string job_state;        // the job's record after recovery
  double seconds = 0;
  std::string note;  // one line: what happened, or why it failed
};

// One result per file `<dir>/<id>.result` (key=value lines).
void write_result(const std::string& dir, const CellResult& r);
std::optional<CellResult> read_result(const std::string& dir, const std::string& id);

// The matrix as text: one block per provider (rows: points, columns: faults), then the totals.
// Sets *ok to false when a cell failed, leaked a pod, corrupted an artefact or wrote a file
// outside the artefact dirs.
std::string render_table(const std::string& dir, bool* ok);

}  // namespace burst::chaos

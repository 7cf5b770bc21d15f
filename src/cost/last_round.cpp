// run_time: a diffusion job's last batch runs the items left, not a full batch. 12 images at
// batch 8 are a pipeline call of 8 then one of 4. The full rounds are priced by
// run_time_in_full_rounds (cost_model.cpp); the last is priced as its own run of what is left on
// the same cards (bench/README.md, "A diffusion job's last batch at the items it holds").
// A batching engine's queued rounds stay full: its queue admits and preempts as its cache fills,
// which clean smaller rounds priced worse on the validation ("A partial last round ...: scored,
// not kept").
#include <cmath>

#include "burst/cost_model.h"
#include "cost/cost_internal.h"

namespace burst {

Result<RunTime> run_time(const Workload& w, const GpuSpec& gpu, int gpus,
                         const std::vector<GpuSpec>& catalog, const Calibration& cal) {
  auto full = cost::run_time_in_full_rounds(w, gpu, gpus, catalog, cal);
  if (!full || w.kind != "diffusion" || !w.items || full->rounds < 2 ||
      !std::isfinite(full->compute_s))
    return full;
  const long per_round = full->batch;  // items one round runs, over every replica
  const long left = *w.items - (full->rounds - 1) * per_round;
  if (per_round < 1 || left <= 0 || left >= per_round) return full;
  Workload last = w;
  last.items = left;  // the batch is capped at a replica's items (diffusion_work)
  auto tail = cost::run_time_in_full_rounds(last, gpu, gpus, catalog, cal);
  if (!tail || !std::isfinite(tail->compute_s) || tail->rounds != 1) return full;
  // Steps, step time, batch and bound stay the full rounds': the run's shape as a user reads it.
  RunTime t = *full;
  const double full_share =
      static_cast<double>(full->rounds - 1) / static_cast<double>(full->rounds);
  t.compute_s = full->compute_s * full_share + tail->compute_s;
  t.offload_s = full->offload_s * full_share + tail->offload_s;
  return t;
}

}  // namespace burst

// The workload cost model: how much memory a workload needs, and how long it takes on a GPU.
// Pure arithmetic over the spec's Workload and the catalog's GpuSpec; no I/O. Every formula is
// written out in docs/cost-model.md, with the calibration and its residuals.
#pragma once

#include <string>

#include "burst/gpu_catalog.h"
#include "burst/result.h"
#include "burst/spec.h"

namespace burst {

// Bytes per parameter for a precision name ("fp32" 4, "fp16"/"bf16" 2, "fp8"/"int8" 1, "int4" 0.5).
// kInvalid for an unknown name.
Result<double> bytes_per_param(const std::string& precision);

struct MemoryBreakdown {
  double weights_gib = 0;
  double gradients_gib = 0;
  double optimizer_gib = 0;
  double activations_gib = 0;
  double kv_cache_gib = 0;
  double total_gib() const {
    return weights_gib + gradients_gib + optimizer_gib + activations_gib + kv_cache_gib;
  }
};

// What the workload needs in GPU memory, before headroom. kInvalid when the workload lacks what
// its kind needs (e.g. params_b) or has a bad value.
Result<MemoryBreakdown> memory_need(const Workload& w);

// Fraction of VRAM kept free for fragmentation and the runtime (documented; 0.12).
inline constexpr double kVramHeadroom = 0.12;

// Smallest GPU count in {1, 2, 4, 8} whose usable memory (vram x (1 - headroom) each) holds
// `need`; 0 when even 8 do not.
int gpus_needed(const MemoryBreakdown& need, const GpuSpec& gpu);

// Efficiencies and fixed per-step overhead, fitted to published measurements.
struct Calibration {
  double eta_bw = 0;       // achieved / peak memory bandwidth
  double eta_compute = 0;  // achieved / peak tensor TFLOPS
  double t0_s = 0;         // fixed overhead per step (kernel launches, sync), seconds
  // Throughput loss per extra GPU under tensor parallelism, by interconnect.
  double tp_penalty_nvlink = 0;
  double tp_penalty_pcie = 0;
};

// The calibration burst ships with (see docs/cost-model.md for the fit).
const Calibration& default_calibration();

struct RunTime {
  double compute_s = 0;  // the whole run step's compute time on this candidate
  double step_s = 0;     // one step (decode token, denoising step, training step)
  long steps = 0;
  std::string bound;  // "bandwidth" | "compute" | "capacity"
  int batch = 1;      // items or sequences processed together
};

// Time of the run step for `w` on `gpus` x `gpu`, by the roofline
//   step = max(bytes / (bw x eta_bw), flops / (tflops x eta_compute)) + t0
// (scaled for tensor parallelism). A custom workload scales workload.reference by the ratio of
// the bounding resource between the reference GPU (looked up in `catalog`) and `gpu`.
Result<RunTime> run_time(const Workload& w, const GpuSpec& gpu, int gpus,
                         const std::vector<GpuSpec>& catalog, const Calibration& cal);

}  // namespace burst

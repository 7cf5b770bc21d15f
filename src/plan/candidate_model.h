// The cost model's answer for one GPU type and count, as the candidate pricer
// (plan/candidates.h) asks for it: once per (provider, type, count) shape, so 10,000 offers cost a
// few dozen model calls. Internal to src/plan.
#pragma once

#include <string>

#include "burst/gpu_catalog.h"
#include "burst/spec.h"
#include "plan/calibration.h"
#include "plan/candidates.h"
#include "plan/pod_layout.h"

namespace burst::shape_model {

struct Modelled {
  std::string rejected;  // why this shape cannot run the workload; "" when it can
  double need_gib = 0;
  double have_gb = 0;
  int gpus_needed = 0;
  double run_s = 0;
  double step_s = 0;
  long steps = 0;
  int batch = 1;
  std::string bound;
  std::string basis;
  CalibrationFit fit;
  PodLayout layout;
};

// The model's run time, memory and layout of `spec`'s workload on `count` x `gpu`, with the
// calibration `in` holds for that GPU type (never another's).
Modelled model(const PipelineSpec& spec, const GpuSpec& gpu, int count, const CandidateInput& in);
// Copies the answer into a candidate's shape.
void apply(const Modelled& m, CandidateShape* c);

bool has_history(const CandidateInput& in);
// The basis line with the fit's note appended.
std::string with_fit(std::string basis, const CalibrationFit& fit);
// A custom reference is one copy's time on all the items: with resources.multi_gpu: replicas each
// copy takes its share (the cost model's own layouts already split their items).
double replica_share(const Workload& w, const PodLayout& l);

}  // namespace burst::shape_model

#include "plan/pod_layout.h"

#include <algorithm>

namespace burst {

namespace {

bool splittable(const Workload& w) { return w.kind != "llm-training" && w.items && *w.items > 1; }

std::string gpus_word(int n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

}  // namespace

bool runs_as_program(const PipelineSpec& spec) {
  const std::string& m = spec.resources.multi_gpu;
  if (m == "program") return true;
  if (m == "replicas") return !splittable(spec.workload);  // refused at parse; never split
  // The default: burst splits what it can; a custom reference is one copy's measured time.
  return !splittable(spec.workload) || spec.workload.kind == "custom";
}

PodLayout pod_layout_for(const PipelineSpec& spec, const ParallelLayout& modelled, int gpus) {
  PodLayout l;
  l.gpus = std::max(1, gpus);
  l.per_replica = l.gpus;
  if (l.gpus == 1) return l;
  if (runs_as_program(spec)) {
    l.program = true;
    return l;
  }
  if (spec.workload.kind == "custom") {  // resources.multi_gpu: replicas on a measured reference
    l.per_replica = 1;
    l.replicas = l.gpus;
    return l;
  }
  l.per_replica = std::clamp(modelled.group, 1, l.gpus);
  l.replicas = std::clamp(modelled.replicas, 1, l.gpus / l.per_replica);
  return l;
}

std::string pod_layout_text(const PodLayout& l) {
  if (l.gpus <= 1) return "1 GPU";
  if (l.program) return "one program on all " + gpus_word(l.gpus);
  const int used = l.replicas * l.per_replica;
  if (l.replicas == 1)
    return "1 replica on " + (used < l.gpus ? std::to_string(used) + " of " : "") +
           gpus_word(l.gpus);
  return std::to_string(l.replicas) + " replicas, " + gpus_word(l.per_replica) + " each" +
         (used < l.gpus ? " (" + std::to_string(l.gpus - used) + " idle)" : "");
}

std::string pod_layout_cell(const PodLayout& l) {
  if (l.gpus <= 1) return "-";
  if (l.program) return "program";
  return std::to_string(l.replicas) + "x" + std::to_string(l.per_replica);
}

std::string replica_devices(const PodLayout& l, int index) {
  std::string out;
  for (int c = 0; c < l.per_replica; ++c)
    out += (c ? "," : "") + std::to_string(index * l.per_replica + c);
  return out;
}

}  // namespace burst

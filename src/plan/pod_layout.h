// How one GPU pod's cards are used by the run step (issue 33): the plan prices a layout, and the
// run executes exactly that layout, so `burst plan`'s table, its plan block, the run's pod rows
// and the report all say the same count and the same split.
//
// resources.multi_gpu (docs/pipeline-spec.md, "Several GPUs in one pod"):
//   replicas  burst starts one copy of the run step per group of `per_replica` cards, each with
//             CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES set to its cards, BURST_REPLICA_INDEX
//             and BURST_REPLICA_COUNT, its contiguous share of the worker's items
//             ($BURST_ITEMS_FILE), and its output lines prefixed "[r<i>] " (job/replica_step.h).
//             The default for a workload with items that is not training.
//   program   the run step starts once and sees every card; the program spreads itself over them
//             (torchrun, vLLM tensor or data parallel). The default for training and for work
//             without items, which burst cannot split.
// The cost model's layout (burst/cost_model.h, ParallelLayout) is what the plan prices either
// way; a custom workload's reference is one copy's time, so it runs as one copy on all the cards.
#pragma once

#include <string>

#include "burst/cost_model.h"
#include "burst/spec.h"

namespace burst {

struct PodLayout {
  int gpus = 1;          // GPUs rented per pod: the offer's count, what the run asks the provider
  int per_replica = 1;   // the cards each copy of the run step sees
  int replicas = 1;      // copies of the run step burst starts on the pod (1 with `program`)
  bool program = false;  // resources.multi_gpu: program (one copy, every card visible)
};

// Whether the spec's run step is started once per pod (`program`): the spec's resources.multi_gpu,
// else the default above.
bool runs_as_program(const PipelineSpec& spec);

// What burst runs on a pod of `gpus` cards for the cost model's `modelled` layout (its replicas
// split the items; `modelled` is ignored for a custom workload, whose reference is one copy).
// Every result satisfies replicas * per_replica <= gpus, and replicas > 1 only when burst can
// split the work (items, not training).
PodLayout pod_layout_for(const PipelineSpec& spec, const ParallelLayout& modelled, int gpus);

// The words every output uses for a layout, so they cannot disagree:
//   "1 GPU", "2 replicas, 1 GPU each", "1 replica on 2 of 3 GPUs",
//   "one program on all 8 GPUs".
std::string pod_layout_text(const PodLayout& l);
// The plan table's LAYOUT column: "-" (one card), "2x1" (replicas x cards each), "program".
std::string pod_layout_cell(const PodLayout& l);

// The cards of replica `index`: "0", "2,3" (a comma list for CUDA_VISIBLE_DEVICES).
std::string replica_devices(const PodLayout& l, int index);

}  // namespace burst

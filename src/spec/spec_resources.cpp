// The resources section: where a job may run and how wide.
#include <algorithm>
#include <climits>
#include <string>
#include <string_view>

#include "spec/spec_checks.h"
#include "spec/spec_gpu_counts.h"
#include "spec/spec_sections.h"

namespace burst::spec {
namespace {

using sv = std::string_view;

// Allowed values, in the order the docs and error messages list them.
constexpr sv kBurstResourceFields[] = {
    "providers",  "gpus",        "gpu_count",      "min_vram_gb", "max_usd_per_hour",
    "spot",       "max_workers", "worker_retries", "merge",       "workers",
    "gpu_counts", "multi_gpu",   "disk_gb"};
constexpr sv kMergeRules[] = {"per-worker", "flat"};
constexpr sv kMultiGpuModes[] = {"replicas", "program"};

constexpr long kMaxWorkers = 1000;  // GPU pods per job
// A pod's own disk: RunPod's v2 CreatePodRequest.disk and Vast's create `disk` take GB with no
// stated maximum; 64 TB is more than any offer has and keeps the value an int.
constexpr long kMaxDiskGb = 65536;

// workload.tensor_parallel (or sequence_parallel) needs that many cards in every pod: it raises
// gpu_count's default, and a gpu_count (`given`: read as a valid count) or gpu_counts entry below
// it is an error at that entry. A gpu_count that did not read has its own error and is not
// compared. The two never come together: each is refused outside its own kind.
void check_group_size(Fields& top, std::optional<Fields>& r, PipelineSpec& spec,
                      std::optional<long> given) {
  const bool sp = !spec.workload.tensor_parallel.has_value();
  const std::optional<long> tp =
      sp ? spec.workload.sequence_parallel : spec.workload.tensor_parallel;
  if (!tp) return;
  Resources& out = spec.resources;
  const std::string need = std::string(" is fewer than workload.") +
                           (sp ? "sequence_parallel" : "tensor_parallel") + " (" +
                           std::to_string(*tp) + "): each copy of the " +
                           (sp ? "denoiser" : "model") + " spans that many GPUs";
  if (r && r->get("gpu_count")) {
    if (given && out.gpu_count < *tp)
      top.problems().add(pos_of(*r->get("gpu_count")), "resources.gpu_count",
                         std::to_string(out.gpu_count) + need);
  } else {
    out.gpu_count = static_cast<int>(std::max<long>(out.gpu_count, *tp));
  }
  for (const auto& [type, count] : out.gpu_counts) {
    if (count < *tp)
      top.problems().add(pos_of((*r->get("gpu_counts"))[type]), "resources.gpu_counts." + type,
                         std::to_string(count) + need);
  }
}

}  // namespace

void parse_resources(Fields& top, PipelineSpec& spec, const std::vector<std::string>& providers) {
  std::optional<Fields> r = section(top, "resources", kBurstResourceFields);
  if (!r) {
    check_group_size(top, r, spec, std::nullopt);
    return;
  }
  Resources& out = spec.resources;
  if (std::optional<yaml::Node> list = r->get("providers")) {
    if (!list->is_sequence()) {
      top.problems().add(pos_of(*list), "resources.providers",
                         "expected a list, got " + kind_of(*list));
    }
    const std::vector<sv> known(providers.begin(), providers.end());
    for (size_t i = 0; list->is_sequence() && i < list->size(); ++i) {
      std::string path = item_path("resources.providers", i);
      std::optional<std::string> p = read_one_of((*list)[i], path, known, top.problems());
      if (p) out.providers.push_back(*p);
    }
  }
  out.gpus = r->string_list("gpus").value_or(std::vector<std::string>{});
  const std::optional<long> gpu_count = r->integer("gpu_count", 1, INT_MAX);
  out.gpu_count = static_cast<int>(gpu_count.value_or(1));
  if (std::optional<yaml::Node> n = r->get("gpu_counts"))
    out.gpu_counts = read_gpu_counts(*n, "resources.gpu_counts", top.problems());
  out.min_vram_gb = r->positive_number("min_vram_gb");
  out.max_usd_per_hour = r->positive_number("max_usd_per_hour");
  out.spot = r->boolean("spot").value_or(false);
  if (std::optional<long> k = r->integer("max_workers", 1, kMaxWorkers))
    out.max_workers = static_cast<int>(*k);
  if (std::optional<long> k = r->integer("workers", 1, kMaxWorkers)) {
    out.workers = static_cast<int>(*k);
    if (out.max_workers)
      top.problems().add(pos_of(*r->get("workers")), "resources.workers",
                         "give workers (a fixed width) or max_workers (the plan's choice up to "
                         "it), not both");
  }
  out.worker_retries = static_cast<int>(r->integer("worker_retries", 0, 10).value_or(1));
  out.merge_flat = r->one_of("merge", kMergeRules).value_or("per-worker") == "flat";
  if (std::optional<long> gb = r->integer("disk_gb", 1, kMaxDiskGb))
    out.disk_gb = static_cast<int>(*gb);
  out.multi_gpu = r->one_of("multi_gpu", kMultiGpuModes).value_or("");
  if (std::string why = multi_gpu_refusal(spec.workload, out.multi_gpu); !why.empty())
    top.problems().add(pos_of(*r->get("multi_gpu")), "resources.multi_gpu", why);
  check_group_size(top, r, spec, gpu_count);
}

}  // namespace burst::spec

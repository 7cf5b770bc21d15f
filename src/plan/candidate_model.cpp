#include "plan/candidate_model.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "burst/cost_model.h"

namespace burst::shape_model {
namespace {

std::string shape_fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Why a batching engine cannot run `w` on `count` x `gpu` though the cards hold it: the share it
// reserves (cost/engine_memory.cpp) leaves room for fewer sequences than asked.
std::string engine_share_text(const Workload& w, const GpuSpec& gpu, int count) {
  const long holds = max_concurrency(w, gpu, count);
  const long asked = std::max<long>(1, w.concurrency.value_or(1));
  return "does not fit under " + w.engine + ": its memory share (" +
         shape_fmt("%.2f", engine_memory_share(w)) + ") of " + std::to_string(count) + " x " +
         gpu.name +
         (holds > 0 ? " holds " + std::to_string(holds) + " of " + std::to_string(asked) +
                          " sequences beside the weights"
                    : " does not hold the weights and one sequence") +
         " (raise workload.gpu_memory_utilization or the GPU count, or lower concurrency)";
}

// The precision the work runs its matrix maths in: the spec's, else bf16 for training and fp16
// otherwise; QLoRA computes in bf16 over its 4-bit weights.
std::string cost_precision(const Workload& w) {
  if (w.kind == "llm-training" && w.mode == "qlora") return "bf16";
  if (!w.precision.empty()) return w.precision;
  return w.kind == "llm-training" ? "bf16" : "fp16";
}

std::string join_names(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

bool has_history(const CandidateInput& in) { return in.history && !in.history->empty(); }

std::string with_fit(std::string basis, const CalibrationFit& fit) {
  if (fit.runs > 0) basis += ", " + fit.note();
  return basis;
}

double replica_share(const Workload& w, const PodLayout& l) {
  if (w.kind != "custom" || l.replicas <= 1 || !w.items || *w.items < 1) return 1;
  const long per_copy = (*w.items + l.replicas - 1) / l.replicas;
  return static_cast<double>(per_copy) / static_cast<double>(*w.items);
}

Modelled model(const PipelineSpec& spec, const GpuSpec& gpu, int count, const CandidateInput& in) {
  Modelled m;
  // A batching engine runs what its share holds and queues the rest (engine_admits).
  const Workload w = engine_admits(spec.workload, gpu, count);
  const long asked = spec.workload.concurrency.value_or(1);
  const std::string queued =
      w.concurrency == spec.workload.concurrency
          ? ""
          : "; " + w.engine + " runs " +
                std::to_string(sequences_at_once(spec.workload, gpu, count)) + " of " +
                std::to_string(asked) + " sequences at once, the rest queue";
  m.have_gb = usable_gib(gpu) * count;  // GiB, like need_gib
  const std::string precision = cost_precision(w);
  // Weight-only formats (int8, int4) dequantize on any card; compute formats need the units.
  const bool compute_format = precision == "bf16" || precision == "fp8";
  if (compute_format && !supports_precision(gpu, precision)) {
    m.rejected =
        gpu.name + " has no native " + precision + " (it runs " + join_names(gpu.precisions) + ")";
    return m;
  }
  auto mem = memory_need(w);
  if (!mem.ok()) {
    m.rejected = mem.error().message;
    return m;
  }
  m.need_gib = mem->total_gib();
  // A named tensor-parallel size: count / N copies, each holding the weights and its share of the
  // sequences on its own N cards (layout_holds), so the need is the copies' sum and a copy that
  // does not fit its cards rejects the offer however much the cards hold together.
  if (w.kind == "llm-inference" && w.tensor_parallel) {
    auto l = tensor_parallel_layout(w, count);
    if (!l) {
      m.rejected = l.error().message;
      return m;
    }
    Workload share = w;
    const long sequences = w.concurrency.value_or(1);
    if (!w.items && sequences > 1) share.concurrency = (sequences + l->replicas - 1) / l->replicas;
    auto copy = memory_need(share);
    if (!copy.ok()) {
      m.rejected = copy.error().message;
      return m;
    }
    m.need_gib = copy->total_gib() * l->replicas;
    if (!layout_holds(w, gpu, count)) {
      m.bound = "capacity";
      if (copy->total_gib() <= usable_gib(gpu) * l->group) {
        m.rejected = engine_share_text(w, gpu, count);  // each copy's cards hold it; the share not
        return m;
      }
      m.rejected =
          "does not fit: each copy (tensor_parallel " + std::to_string(l->group) + ") needs " +
          shape_fmt("%.1f GiB", copy->total_gib()) +
          (share.concurrency.value_or(1) > 1 ? " for its " + std::to_string(*share.concurrency) +
                                                   " of " + std::to_string(sequences) + " sequences"
                                             : std::string()) +
          ", has " + shape_fmt("%.1f GiB usable", usable_gib(gpu) * l->group) + " on " +
          std::to_string(l->group) + " x " + gpu.name +
          " (raise tensor_parallel or the GPU count, or lower concurrency)";
      return m;
    }
  }
  // A named sequence-parallel size: every card of a group holds the whole denoiser.
  if (w.kind == "diffusion" && w.sequence_parallel && !layout_holds(w, gpu, count)) {
    auto l = sequence_parallel_layout(w, count);
    if (!l) {
      m.rejected = l.error().message;
      return m;
    }
    m.bound = "capacity";
    m.rejected = "does not fit: each card of a sequence_parallel group holds the whole denoiser, " +
                 shape_fmt("%.1f GiB", sequence_parallel_card_gib(*mem, l->group)) + ", has " +
                 shape_fmt("%.1f GiB usable", usable_gib(gpu)) + " on one " + gpu.name;
    return m;
  }
  // A diffusion pipeline spread over cards keeps its denoiser and activations on one.
  if (const double one_card = diffusion_card_gib(w); one_card > usable_gib(gpu)) {
    m.bound = "capacity";
    m.rejected = "does not fit: the denoiser and its activations sit on one card, " +
                 shape_fmt("%.1f GiB", one_card) + ", has " +
                 shape_fmt("%.1f GiB usable", usable_gib(gpu)) + " on one " + gpu.name +
                 " (workload.offload sequential, or sequence_parallel for a transformer, lowers "
                 "it)";
    return m;
  }
  m.gpus_needed = gpus_needed(w, gpu);
  if (m.gpus_needed == 0 || m.gpus_needed > count) {
    m.bound = "capacity";
    const int by_memory = gpus_needed(*mem, gpu);
    if (by_memory > 0 && by_memory <= count) {
      m.rejected = engine_share_text(w, gpu, count);  // the cards hold it, the engine's share not
      if (m.gpus_needed > count)
        m.rejected += " (needs " + std::to_string(m.gpus_needed) + " x " + gpu.name + ")";
      return m;
    }
    m.rejected = "does not fit: needs " + shape_fmt("%.1f GiB", m.need_gib) + ", has " +
                 shape_fmt("%.1f GiB usable", m.have_gb);
    if (m.gpus_needed > count)
      m.rejected += " (needs " + std::to_string(m.gpus_needed) + " x " + gpu.name + ")";
    return m;
  }
  if (has_history(in)) m.fit = fit_calibration(*in.history, gpu, w, *in.catalog, in.calibration);
  auto rt = run_time(w, gpu, count, *in.catalog, apply_fit(in.calibration, m.fit));
  if (!rt.ok()) {
    m.rejected = rt.error().message;
    return m;
  }
  if (rt->bound == "capacity") {  // the layout run_time priced does not hold the work: never chosen
    m.bound = "capacity";
    m.rejected = "does not fit as " + gpu.name + " x" + std::to_string(count) + " would run it";
    return m;
  }
  m.run_s = rt->compute_s;
  m.step_s = rt->step_s;
  m.steps = rt->steps;
  m.batch = std::max(1, rt->batch);
  m.bound = rt->bound;
  if (w.kind == "custom") {  // a measured reference, scaled per GPU type
    m.run_s *= m.fit.factor;
    m.step_s *= m.fit.factor;
  }
  // What the run executes on the pod (plan/pod_layout.h), in the words every output uses.
  m.layout = pod_layout_for(spec, rt->layout, count);
  const double share = replica_share(w, m.layout);
  m.run_s *= share;
  m.step_s *= share;
  std::string layout;
  if (count > 1) {
    const ParallelLayout& l = rt->layout;
    const char* split = w.kind == "llm-training"                       ? "-way sharded"
                        : w.kind == "diffusion" && w.sequence_parallel ? "-way sequence parallel"
                                                                       : "-way tensor parallel";
    if (w.kind != "custom" && l.group > 1) layout = std::to_string(l.group) + split;
    if (w.kind == "diffusion" && w.sequence_parallel && w.cfg_parallel.value_or(false))
      layout += " with guidance parallel";
    if (w.kind != "custom" && l.nodes > 1) layout += ", " + std::to_string(l.nodes) + " nodes";
    layout = " (" + layout + (layout.empty() ? "" : "; ") + pod_layout_text(m.layout) + ")";
  }
  m.basis = with_fit("roofline on " + gpu.name + " x" + std::to_string(count) + layout + ", " +
                         rt->bound + "-bound" + queued,
                     m.fit);
  return m;
}

void apply(const Modelled& m, CandidateShape* c) {
  c->need_gib = m.need_gib;
  c->have_gb = m.have_gb;
  c->gpus_needed = m.gpus_needed;
  c->run_s = m.run_s;
  c->bound = m.bound;
  c->basis = m.basis;
  c->calibration_runs = m.fit.runs;
  c->calibration_factor = m.fit.factor;
  c->calibration_warnings = m.fit.warnings;
  c->layout = m.layout;
}

}  // namespace burst::shape_model

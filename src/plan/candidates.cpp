#include "plan/candidates.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace burst {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
// Code sync, until the transfer benchmarks calibrate it.
constexpr double kSyncBytesPerSecond = 20e6;
// Weights from a warm network volume, and downloaded on first use (docs/cost-model.md).
constexpr double kWarmLoadBytesPerSecond = 1.0e9;
constexpr double kColdLoadBytesPerSecond = 100e6;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Constraints from resources that do not need the model: names, count, price.
std::string static_rejection(const Resources& r, const Offer& o) {
  if (!o.available) return "not available now";
  if (o.provider == "local") return "";
  if (!r.gpus.empty() && std::find(r.gpus.begin(), r.gpus.end(), o.gpu_type) == r.gpus.end())
    return o.gpu_type + " is not in resources.gpus";
  if (o.gpu_count < r.gpu_count) return "fewer GPUs than resources.gpu_count";
  if (r.min_vram_gb && (!o.vram_gb || *o.vram_gb < *r.min_vram_gb)) return "too little VRAM";
  double price = r.spot && o.spot_usd_per_hour ? *o.spot_usd_per_hour : o.usd_per_hour;
  if (r.max_usd_per_hour && price > *r.max_usd_per_hour)
    return fmt("$%.2f/h", price) + " is over resources.max_usd_per_hour";
  return "";
}

double price_of(const PipelineSpec& spec, const Offer& o) {
  return spec.resources.spot && o.spot_usd_per_hour ? *o.spot_usd_per_hour : o.usd_per_hour;
}

// Fills memory fit and run time from the cost model; returns a rejection reason or "".
std::string model(const PipelineSpec& spec, const GpuSpec& gpu, const CandidateInput& in,
                  Candidate* c) {
  const Workload& w = spec.workload;
  const int count = std::max(1, c->offer.gpu_count);
  c->have_gb = gpu.vram_gb * count * (1 - kVramHeadroom);
  auto mem = memory_need(w);
  if (!mem.ok()) return mem.error().message;
  c->need_gib = mem->total_gib();
  c->gpus_needed = gpus_needed(*mem, gpu);
  if (c->gpus_needed == 0 || c->gpus_needed > count) {
    c->bound = "capacity";
    return "does not fit: needs " + fmt("%.1f GiB", c->need_gib) + ", has " +
           fmt("%.1f GB usable", c->have_gb);
  }
  auto rt = run_time(w, gpu, count, *in.catalog, in.calibration);
  if (!rt.ok()) return rt.error().message;
  c->run_s = rt->compute_s;
  c->bound = rt->bound;
  c->basis = "roofline on " + gpu.name + " x" + std::to_string(count) + ", " + rt->bound + "-bound";
  return "";
}

}  // namespace

double cold_start_seconds(const std::string& provider, double weight_bytes, bool warm_volume) {
  if (provider == "local") return 2;
  // Provisioning + image pull, observed ranges from the providers' docs (docs/cost-model.md).
  double boot = provider == "runpod" ? 60 : provider == "lambda" ? 180 : 90;
  double load = weight_bytes / (warm_volume ? kWarmLoadBytesPerSecond : kColdLoadBytesPerSecond);
  return boot + load;
}

std::vector<Candidate> price_candidates(const PipelineSpec& spec, const std::vector<Offer>& offers,
                                        const CandidateInput& in) {
  std::vector<Candidate> out;
  const Workload& w = spec.workload;
  double weight_bytes = 0;
  if (w.params_b) {
    auto bpp = bytes_per_param(w.precision.empty() ? "bf16" : w.precision);
    if (bpp.ok()) weight_bytes = *w.params_b * 1e9 * *bpp;
  }
  for (const Offer& o : offers) {
    Candidate c;
    c.offer = o;
    c.warm_volume = in.warm_volume;
    c.rejected = static_rejection(spec.resources, o);
    const GpuSpec* gpu = in.catalog ? find_gpu(*in.catalog, o.gpu_type) : nullptr;
    if (c.rejected.empty() && o.provider != "local" && !w.kind.empty() && w.kind != "custom") {
      if (!gpu)
        c.rejected = o.gpu_type + " is not in the GPU catalog";
      else
        c.rejected = model(spec, *gpu, in, &c);
    } else if (c.rejected.empty() && w.reference) {
      // Custom work (or the local cloud): scale the measured reference where the model can.
      if (gpu && o.provider != "local") {
        c.rejected = model(spec, *gpu, in, &c);
      } else {
        c.run_s = w.reference->runtime_seconds;
        c.bound = w.reference->bound;
        c.basis = "workload.reference: " + w.reference->gpu + " measured " +
                  fmt("%.0f s", c.run_s) + ", unscaled";
      }
    } else if (c.rejected.empty()) {
      c.basis = "no workload.reference: run time unknown, cost excludes the run";
    }
    c.cold_start_s = cold_start_seconds(o.provider, weight_bytes, in.warm_volume);
    c.sync_s = static_cast<double>(in.code_bytes) / kSyncBytesPerSecond;
    c.total_s = c.cold_start_s + c.sync_s + c.run_s;
    c.usd = c.total_s / 3600.0 * price_of(spec, o);
    c.utilization = c.total_s > 0 ? c.run_s / c.total_s : 0;
    if (c.rejected.empty() && spec.budget.deadline_seconds &&
        c.total_s > *spec.budget.deadline_seconds)
      c.rejected = "misses the deadline: " + fmt("%.0f min", c.total_s / 60) + " > " +
                   fmt("%.0f min", *spec.budget.deadline_seconds / 60);
    out.push_back(c);
  }
  // Feasible first, cheapest then fastest; otherwise keep the input order (provider preference),
  // so rejected offers stay in the order the user listed them.
  std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (a.rejected.empty() != b.rejected.empty()) return a.rejected.empty();
    if (!a.rejected.empty()) return false;
    if (std::fabs(a.usd - b.usd) > 1e-9) return a.usd < b.usd;
    return a.total_s < b.total_s - 1e-9;
  });
  return out;
}

}  // namespace burst

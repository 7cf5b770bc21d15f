#include "plan/calibration.h"

#include <algorithm>
#include <cstdio>

namespace burst {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// A run on the local cloud or a CPU: never evidence about a GPU.
bool not_a_gpu(const std::string& type) {
  return type.empty() || type == kThisMachineGpu || type == "cpu";
}

// The bound the model predicts for `w` on `g` with the prior: "bandwidth" | "compute" |
// "capacity" | "overhead" (a diffusion step at its host floor) | "" (not modelled). Measured
// references keep their own bound.
std::string model_bound(const Workload& w, const GpuSpec& g, const std::vector<GpuSpec>& catalog,
                        const Calibration& prior) {
  if (w.kind == "custom" || w.kind.empty())
    return w.reference ? (w.reference->bound == "compute" ? "compute" : "bandwidth") : "";
  auto mem = memory_need(w);
  if (!mem.ok()) return "";
  const int n = gpus_to_run(w, g);  // a batching engine queues what no count holds
  if (n == 0) return "capacity";
  auto rt = run_time(w, g, n, catalog, prior);
  return rt.ok() ? rt->bound : "";
}

// The prior's efficiency for a roofline bound; 0 where the model has none (measured reference).
double prior_efficiency(const Workload& w, const std::string& bound, const Calibration& prior) {
  if (w.kind == "custom" || w.kind.empty()) return 0;
  if (bound == "bandwidth") return prior.eta_bw;
  if (bound == "compute") return prior.eta_compute;
  return 0;
}

struct Tier {
  std::vector<double> ratios;
  std::vector<std::string> warnings;
};

// Adds one run's ratio, clamped to [1/kCalibrationClamp, kCalibrationClamp] and to what the
// card's peak allows (efficiency <= 1).
void add_run(const CalibrationRecord& s, const std::string& bound, double eta, Tier* t) {
  double r = std::clamp(s.measured_s / s.predicted_s, 1 / kCalibrationClamp, kCalibrationClamp);
  if (eta > 0 && r < eta) {
    const char* what = bound == "compute" ? "peak tensor throughput" : "peak memory bandwidth";
    t->warnings.push_back(
        "a run on " + s.gpu_type + (s.job_id.empty() ? "" : " (" + s.job_id + ")") + " took " +
        fmt("%.0f%%", 100 * r) + " of the modelled time, " + fmt("%.0f%%", 100 * eta / r) +
        " of the card's " + what + ": impossible, counted as 100%");
    r = eta;
  }
  t->ratios.push_back(r);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::string CalibrationFit::note() const {
  if (runs == 0) return "";
  const bool own = scope.find(' ') == std::string::npos;
  char buf[160];
  std::snprintf(buf, sizeof buf, "calibrated from %d run%s on %s%s (run time x%.2f)", runs,
                runs == 1 ? "" : "s", own ? "" : "other ",
                own ? scope.c_str() : (scope + " GPUs").c_str(), factor);
  return buf;
}

CalibrationFit fit_calibration(const std::vector<CalibrationRecord>& history, const GpuSpec& gpu,
                               const Workload& w, const std::vector<GpuSpec>& catalog,
                               const Calibration& prior) {
  CalibrationFit fit;
  fit.bound = model_bound(w, gpu, catalog, prior);
  const double eta = prior_efficiency(w, fit.bound, effective_calibration(w, gpu, prior));
  const bool target_gpu = !not_a_gpu(gpu.name);
  Tier own, family;
  // Bounds of the other GPU types, each worked out once.
  std::vector<std::pair<const GpuSpec*, bool>> same_bound;
  for (const CalibrationRecord& s : history) {
    if (!(s.predicted_s > 0) || !(s.measured_s > 0)) continue;
    if (s.gpu_type == gpu.name) {
      if (static_cast<int>(own.ratios.size()) < kCalibrationWindow)
        add_run(s, fit.bound, eta, &own);
      continue;
    }
    if (!target_gpu || not_a_gpu(s.gpu_type) || gpu.memory.empty() || fit.bound.empty() ||
        fit.bound == "capacity" || static_cast<int>(family.ratios.size()) >= kCalibrationWindow)
      continue;
    const GpuSpec* g = find_gpu(catalog, s.gpu_type);
    if (!g || g->vendor != gpu.vendor || g->memory != gpu.memory) continue;
    auto known = std::find_if(same_bound.begin(), same_bound.end(),
                              [&](const auto& p) { return p.first == g; });
    if (known == same_bound.end()) {
      same_bound.emplace_back(g, model_bound(w, *g, catalog, prior) == fit.bound);
      known = same_bound.end() - 1;
    }
    if (known->second) add_run(s, fit.bound, eta, &family);
  }
  Tier* use = !own.ratios.empty() ? &own : !family.ratios.empty() ? &family : nullptr;
  fit.ignored = static_cast<int>(history.size());
  if (!use) return fit;
  fit.runs = static_cast<int>(use->ratios.size());
  fit.factor = median(use->ratios);
  fit.scope = use == &own ? gpu.name : gpu.memory + " " + gpu.vendor;
  fit.ignored -= fit.runs;
  fit.warnings = std::move(use->warnings);
  return fit;
}

Calibration apply_fit(const Calibration& base, const CalibrationFit& fit) {
  Calibration c = base;
  if (fit.runs == 0 || !(fit.factor > 0)) return c;
  // The host's per-call floor bound the runs (a diffusion step at its floor). Slower than
  // modelled: the floor is higher, and the card's rates are not shown slower, so only the floor
  // moves. Faster: every part of the step was at most the run's time, so the whole step scales
  // (the efficiencies capped at the card's peak), with no peak passed to report.
  if (fit.bound == "overhead") {
    c.t0_s *= fit.factor;
    if (fit.factor < 1) {
      c.eta_compute = std::min(1.0, c.eta_compute / fit.factor);
      c.eta_bw = std::min(1.0, c.eta_bw / fit.factor);
    }
    return c;
  }
  if (fit.bound == "compute")
    c.eta_compute = std::min(1.0, c.eta_compute / fit.factor);
  else
    c.eta_bw = std::min(1.0, c.eta_bw / fit.factor);
  c.t0_s *= fit.factor;
  return c;
}

}  // namespace burst

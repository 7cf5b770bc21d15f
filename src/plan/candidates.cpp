#include "plan/candidates.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <unordered_map>

#include "burst/weight_load.h"
#include "plan/billing.h"
#include "plan/calibration.h"
#include "plan/candidate_model.h"

namespace burst {
namespace {

// Code sync, until the transfer benchmarks calibrate it.
constexpr double kSyncBytesPerSecond = 20e6;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

long ceil_div(long a, long b) { return (a + b - 1) / b; }

// Seconds under two minutes, else minutes.
std::string fmt_time(double s) { return s < 120 ? fmt("%.0f s", s) : fmt("%.0f min", s / 60); }

// Constraints from resources that do not need the model: names, count, price.
std::string static_rejection(const PipelineSpec& spec, const Offer& o, double price) {
  const Resources& r = spec.resources;
  if (!o.available) return "not available now";
  // What the provider's pods cannot carry (its registry row): refused now, not once a pod exists.
  if (std::string why = env_refusal(traits_of(o), spec.env); !why.empty()) return why;
  if (traits_of(o).runs_here) return "";
  if (!r.gpus.empty() && std::find(r.gpus.begin(), r.gpus.end(), o.gpu_type) == r.gpus.end())
    return o.gpu_type + " is not in resources.gpus";
  if (o.gpu_count < r.count_for(o.gpu_type))
    return r.gpu_counts.empty() ? "fewer GPUs than resources.gpu_count"
                                : "fewer GPUs than resources.gpu_counts gives " + o.gpu_type;
  if (r.min_vram_gb && (!o.vram_gb || *o.vram_gb < *r.min_vram_gb)) return "too little VRAM";
  if (r.max_usd_per_hour && price > *r.max_usd_per_hour)
    return fmt("$%.2f/h", price) + " is over resources.max_usd_per_hour";
  return "";
}

// Run time of one worker's share when `items` are split over k workers. Roofline runs scale by
// rounds of `batch` items (steps per round fixed); measured references scale by items.
double share_run_s(const CandidateShape& c, const shape_model::Modelled* m, long items, int k) {
  const long mine = ceil_div(items, k);
  if (m && m->steps > 0 && m->step_s > 0 && c.basis.rfind("roofline", 0) == 0) {
    const long rounds = ceil_div(items, m->batch);
    const double steps_per_round = static_cast<double>(m->steps) / static_cast<double>(rounds);
    return m->step_s * steps_per_round * static_cast<double>(ceil_div(mine, m->batch));
  }
  return c.run_s * static_cast<double>(mine) / static_cast<double>(items);
}

struct Limits {
  std::optional<double> deadline_s;
  std::optional<double> max_runtime_s;
  std::optional<double> max_usd_per_hour;
};

// The price-free curve for k = 1..N workers, skipping a k whose share equals k-1's (same time,
// one more cold start: never better). A fixed width (resources.workers) is the curve's one
// point: each of its workers runs its share of the items, or the whole run when there are none.
std::vector<WidthShape> shape_curve(const Workload& w, const shape_model::Modelled* m,
                                    const Limits& lim, int max_workers, std::optional<int> fixed,
                                    bool split_here, const ProviderTraits& provider,
                                    const CandidateShape& c) {
  std::vector<WidthShape> out;
  const BillingRule& rule = provider.billing;
  const bool splittable = w.items && *w.items > 1 && w.kind != "llm-training" && c.run_s > 0 &&
                          (!provider.runs_here || split_here);
  const long items = splittable ? *w.items : 1;
  const int n = splittable ? static_cast<int>(std::min<long>(items, std::max(1, max_workers))) : 1;
  const int first = fixed ? *fixed : 1;
  const int last = fixed ? *fixed : n;
  long last_share = -1;
  for (int k = first; k <= last; ++k) {
    const long share = ceil_div(items, k);
    if (share == last_share) continue;
    last_share = share;
    WidthShape p;
    p.workers = k;
    p.run_s = splittable ? share_run_s(c, m, items, k) : c.run_s;
    p.seconds = c.cold_start_s + c.sync_s + p.run_s;
    p.billed_s = k * billed_seconds(rule, p.seconds);
    p.over_deadline = lim.deadline_s && p.seconds > *lim.deadline_s;
    p.over_runtime = lim.max_runtime_s && p.run_s > *lim.max_runtime_s;
    p.in_time = !p.over_deadline && !p.over_runtime;
    out.push_back(p);
  }
  return out;
}

// The per-GB charge on what `workers` hosts of the offer download (CandidateShape::inbound_bytes).
double transfer_usd(const Candidate& c, int workers) {
  if (!c.shape || !(c.offer.download_usd_per_gb > 0)) return 0;
  return workers * c.shape->inbound_bytes / 1e9 * c.offer.download_usd_per_gb;
}

bool within_price(const Candidate& c, int workers, const std::optional<double>& cap) {
  return traits_of(c.offer).runs_here || !cap || workers * c.price <= *cap + 1e-9;
}

// Settles on the cheapest allowed k (ties: faster) of c.shape, up to `widest` workers. Returns a
// rejection reason when no k meets the limits.
std::string go_wide(const Limits& lim, int widest, const std::vector<int>& best_upto,
                    Candidate* c) {
  const std::vector<WidthShape>& curve = c->shape->curve;
  // The price cap allows at most `cap / price` workers; the curve's points are in worker order,
  // so the best allowed point is the shape's best among the points up to that width.
  int allowed = widest;
  if (!traits_of(c->offer).runs_here && lim.max_usd_per_hour && c->price > 0)
    allowed = static_cast<int>(
        std::min<double>(allowed, std::floor((*lim.max_usd_per_hour + 1e-9) / c->price)));
  const WidthShape* best = nullptr;
  const auto end = std::upper_bound(curve.begin(), curve.end(), allowed,
                                    [](int k, const WidthShape& p) { return k < p.workers; });
  if (end != curve.begin()) {
    const int b = best_upto[static_cast<size_t>(end - curve.begin() - 1)];
    if (b >= 0) best = &curve[static_cast<size_t>(b)];
  }
  const WidthShape& pick = best ? *best : curve.front();
  c->workers = pick.workers;
  c->worker_run_s = pick.run_s;
  c->total_s = pick.seconds;
  c->billed_s = pick.billed_s;
  c->transfer_usd = transfer_usd(*c, pick.workers);
  c->usd = pick.billed_s / 3600.0 * c->price + c->transfer_usd;
  c->utilization = pick.billed_s > 0 ? pick.workers * pick.run_s / pick.billed_s : 0;
  if (best) return "";
  // A fixed width (resources.workers) above what the price cap allows.
  if (curve.front().workers > allowed && lim.max_usd_per_hour)
    return std::to_string(curve.front().workers) + " workers x " + fmt("$%.2f/h", c->price) +
           " exceed max_usd_per_hour " + fmt("$%.2f", *lim.max_usd_per_hour);
  // Nothing allowed: say what the fastest split within the price cap still misses.
  const WidthShape* fastest = &curve.front();
  for (const WidthShape& p : curve)
    if (p.workers <= widest && within_price(*c, p.workers, lim.max_usd_per_hour) &&
        p.seconds < fastest->seconds)
      fastest = &p;
  const std::string with =
      fastest->workers > 1 ? " even with " + std::to_string(fastest->workers) + " workers" : "";
  if (lim.max_runtime_s && fastest->run_s > *lim.max_runtime_s)
    return "run step " + fmt_time(fastest->run_s) + " exceeds budget.max_runtime " +
           fmt_time(*lim.max_runtime_s) + with;
  return "misses the deadline: " + fmt_time(fastest->seconds) + " > " +
         fmt_time(lim.deadline_s.value_or(0)) + with;
}

// One cache entry per (provider, GPU type, count): the model's answer and the price-free curve.
struct ShapeKey {
  std::string_view provider, gpu;
  int count;
  bool warm;  // the offer's volume is staged (its region's, per the store)
  // The host's own disk and download link (Vast states both per offer): they set the cold start.
  double disk_bps, link_bps;
  bool operator==(const ShapeKey& o) const {
    return count == o.count && warm == o.warm && disk_bps == o.disk_bps && link_bps == o.link_bps &&
           provider == o.provider && gpu == o.gpu;
  }
};
struct ShapeHash {
  size_t operator()(const ShapeKey& k) const {
    return std::hash<std::string_view>()(k.provider) * 31 + std::hash<std::string_view>()(k.gpu) +
           static_cast<size_t>(k.count) * 2 + (k.warm ? 1 : 0) +
           std::hash<double>()(k.disk_bps) * 7 + std::hash<double>()(k.link_bps) * 13;
  }
};
struct Shape {
  std::string model_reason;
  std::shared_ptr<const CandidateShape> shape;
  // For each curve index i: the index of the cheapest point (ties: faster) among points 0..i
  // that meet the time limits, or -1. Same price for every point of an offer, so comparing
  // billed seconds compares dollars.
  std::vector<int> best_upto;
};

std::vector<int> prefix_best(const std::vector<WidthShape>& curve) {
  std::vector<int> out(curve.size(), -1);
  int best = -1;
  for (size_t i = 0; i < curve.size(); ++i) {
    const WidthShape& p = curve[i];
    if (p.in_time) {
      const WidthShape* b = best >= 0 ? &curve[static_cast<size_t>(best)] : nullptr;
      if (!b || p.billed_s < b->billed_s - 1e-9 ||
          (std::fabs(p.billed_s - b->billed_s) <= 1e-9 && p.seconds < b->seconds))
        best = static_cast<int>(i);
    }
    out[i] = best;
  }
  return out;
}

}  // namespace

const std::string& Candidate::bound() const {
  static const std::string kNone;
  return shape ? shape->bound : kNone;
}

const std::string& Candidate::basis() const {
  static const std::string kNone;
  return shape ? shape->basis : kNone;
}

std::vector<WidthPoint> width_curve(const Candidate& c, std::optional<double> max_usd_per_hour) {
  std::vector<WidthPoint> out;
  if (!c.shape) return out;
  for (const WidthShape& s : c.shape->curve) {
    const bool priced_in = within_price(c, s.workers, max_usd_per_hour);
    std::string over;
    for (const auto& [broken, name] : {std::pair{s.over_deadline, "budget.deadline"},
                                       std::pair{s.over_runtime, "budget.max_runtime"},
                                       std::pair{!priced_in, "resources.max_usd_per_hour"}})
      if (broken) over += (over.empty() ? "" : ", ") + std::string(name);
    out.push_back({s.workers, s.seconds, s.billed_s / 3600.0 * c.price + transfer_usd(c, s.workers),
                   s.in_time && priced_in, over});
  }
  return out;
}

bool volume_warm_for(const std::vector<WarmVolume>* warm, const Offer& offer) {
  if (!warm) return false;
  for (const WarmVolume& v : *warm)
    if (v.provider == offer.provider && (v.region.empty() || v.region == offer.region)) return true;
  return false;
}

double weight_bytes_of(const Workload& w) {
  if (!w.params_b) return 0;
  auto bpp = bytes_per_param(w.precision.empty() ? "bf16" : w.precision);
  return bpp.ok() ? *w.params_b * 1e9 * *bpp : 0;
}

double cold_start_seconds(const ProviderTraits& provider, double weight_bytes, bool warm_volume) {
  // This machine's pods load nothing over a network: the boot prior is the whole cold start.
  if (provider.runs_here) return provider.boot_s;
  // Provisioning + image pull: the row's prior, observed ranges from the providers' docs
  // (docs/cost-model.md); the weights at the provider's storage prior, by the default loader.
  const WeightSource src = weight_source_for("", provider, warm_volume, 0, weight_bytes);
  return provider.boot_s + weight_load(weight_bytes, src.prior_bps, "", 1).seconds();
}

std::vector<Candidate> price_candidates(const PipelineSpec& spec, const std::vector<Offer>& offers,
                                        const CandidateInput& in) {
  std::vector<const Offer*> view;
  view.reserve(offers.size());
  for (const Offer& o : offers) view.push_back(&o);
  return price_candidates(spec, view, in);
}

std::vector<Candidate> price_candidates(const PipelineSpec& named,
                                        const std::vector<const Offer*>& offers,
                                        const CandidateInput& in) {
  // workload.model's shape filled in once, so sizes below (weights to load) see it.
  PipelineSpec shaped;
  const PipelineSpec* sp = &named;
  if (!named.workload.model.empty())
    if (auto w = with_model_shape(named.workload); w.ok()) {
      shaped = named;
      shaped.workload = std::move(*w);
      sp = &shaped;
    }
  const PipelineSpec& spec = *sp;
  std::vector<Candidate> out;
  out.reserve(offers.size());
  const Workload& w = spec.workload;
  const double weight_bytes = weight_bytes_of(w);
  const bool modelled_kind = !w.kind.empty() && w.kind != "custom";
  const Limits lim{spec.budget.deadline_seconds, spec.budget.max_runtime_seconds,
                   spec.resources.max_usd_per_hour};
  std::unordered_map<ShapeKey, Shape, ShapeHash> cache;
  const double sync_s = static_cast<double>(in.code_bytes) / kSyncBytesPerSecond;
  for (const Offer* op : offers) {
    const Offer& o = *op;
    const int count = std::max(1, o.gpu_count);
    const bool warm = in.warm_volume || volume_warm_for(in.warm_volumes, o);
    auto [it, fresh] = cache.try_emplace(
        ShapeKey{o.provider, o.gpu_type, count, warm, o.disk_read_bps, o.download_bps});
    Shape& shape = it->second;
    if (fresh) {
      auto c = std::make_shared<CandidateShape>();
      c->warm_volume = warm;
      shape_model::Modelled m;
      bool modelled = false;
      const GpuSpec* gpu = in.catalog ? find_gpu(*in.catalog, o.gpu_type) : nullptr;
      if (!traits_of(o).runs_here && (modelled_kind || (w.reference && gpu))) {
        if (!gpu) {
          shape.model_reason = o.gpu_type + " is not in the GPU catalog";
        } else {
          modelled = true;
          m = shape_model::model(spec, *gpu, count, in);
          shape_model::apply(m, c.get());
          shape.model_reason = m.rejected;
        }
      } else if (w.reference) {
        // Custom work without a catalog entry (or the local cloud): the reference, unscaled.
        CalibrationFit fit;
        if (shape_model::has_history(in)) {
          GpuSpec self;  // runs on this very type only: no catalog to say what it is
          self.name = o.gpu_type;
          fit = fit_calibration(*in.history, self, w, {}, in.calibration);
        }
        c->run_s = w.reference->runtime_seconds * fit.factor;
        c->bound = w.reference->bound;
        c->basis =
            shape_model::with_fit("workload.reference: " + w.reference->gpu + " measured " +
                                      fmt("%.0f s", w.reference->runtime_seconds) + ", unscaled",
                                  fit);
        c->calibration_runs = fit.runs;
        c->calibration_factor = fit.factor;
        c->calibration_warnings = fit.warnings;
      } else {
        c->basis = "no workload.reference: run time unknown, cost excludes the run";
      }
      if (!modelled) {
        c->layout = pod_layout_for(spec, ParallelLayout{}, count);
        c->run_s *= shape_model::replica_share(w, c->layout);
      }
      double boot = !traits_of(o).runs_here && in.boot_s ? *in.boot_s : -1;
      if (boot < 0 && !traits_of(o).runs_here && in.boot_history && !in.boot_history->empty()) {
        const double prior = traits_of(o).boot_s;
        const BootEstimate learned = estimate_boot(*in.boot_history, o.provider, o.gpu_type, prior);
        if (learned.runs > 0) {
          boot = learned.seconds;
          c->cold_start_note = "cold start: " + learned.note(prior);
        }
      }
      // Weights: read from where the spec or the store says (plan/weight_source.h) at that
      // storage's rate, learned per provider where measured, plus the loader's own work.
      static const std::vector<LoadSample> kNoLoadSamples;
      // The GPUs of one model's group load their shares in parallel (replicas each load it all).
      const int loaders = std::clamp(c->gpus_needed, 1, count);
      const WeightSource src =
          weight_source_for(w.weights_from, traits_of(o), warm, o.disk_read_bps, weight_bytes,
                            w.engine, o.download_bps, loaders);
      const LoadRate load = within_link(
          src.learns ? weight_load_rate(in.load_history ? *in.load_history : kNoLoadSamples,
                                        o.provider, src.warm, src.prior_bps)
                     : weight_load_rate(kNoLoadSamples, o.provider, src.warm, src.prior_bps),
          src);
      const double load_s =
          weight_load(weight_bytes, load.bytes_per_s, w.engine, loaders).seconds();
      if (!traits_of(o).runs_here && weight_bytes > 0) {
        c->weight_load_note = load_note(src, load, weight_bytes, load_s);
        c->weight_load_bps = load.bytes_per_s;
      }
      // The image's pull, from its size (plan/image_pull.h): provisioning + pull + weight load.
      const double pull =
          in.image && !in.boot_s ? image_pull_seconds(*in.image, o.download_bps) : 0;
      c->cold_start_s = traits_of(o).runs_here ? traits_of(o).boot_s
                        : boot >= 0            ? boot + pull + load_s
                                               : traits_of(o).boot_s + pull + load_s;
      c->sync_s = sync_s;
      if (!traits_of(o).runs_here)
        c->inbound_bytes = (src.kind == kStorageHub || src.kind == kStorageS3 ? weight_bytes : 0) +
                           (in.image && !in.boot_s ? in.image->bytes.value_or(0) : 0) +
                           static_cast<double>(in.code_bytes);
      c->curve = shape_curve(w, modelled ? &m : nullptr, lim, in.max_workers, in.fixed_workers,
                             in.split_here, traits_of(o), *c);
      shape.best_upto = prefix_best(c->curve);
      shape.shape = std::move(c);
    }
    out.emplace_back();
    Candidate& c = out.back();
    c.offer = o;
    c.shape = shape.shape;
    c.price = spec.resources.spot && o.spot_usd_per_hour ? *o.spot_usd_per_hour : o.usd_per_hour;
    c.rejected = static_rejection(spec, o, c.price);
    if (c.rejected.empty()) c.rejected = shape.model_reason;
    // Static rejections are priced at one worker only, for the comparison in their reason.
    const int widest = in.fixed_workers ? *in.fixed_workers : in.max_workers;
    std::string limit_reason = go_wide(lim, c.rejected.empty() ? widest : 1, shape.best_upto, &c);
    if (c.rejected.empty()) c.rejected = std::move(limit_reason);
  }
  // Feasible first, cheapest then fastest; otherwise keep the input order (provider preference),
  // so rejected offers stay in the order the user listed them. Sorted as small keys, then moved
  // once: a Candidate is large.
  struct Key {
    bool rejected;
    double usd, seconds;
    size_t index;
  };
  std::vector<Key> keys;
  keys.reserve(out.size());
  for (size_t i = 0; i < out.size(); ++i)
    keys.push_back({!out[i].rejected.empty(), out[i].usd, out[i].total_s, i});
  std::stable_sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.rejected != b.rejected) return !a.rejected;
    if (a.rejected) return false;
    if (std::fabs(a.usd - b.usd) > 1e-9) return a.usd < b.usd;
    return a.seconds < b.seconds - 1e-9;
  });
  // Apply the permutation in place (cycle by cycle), so no second vector is allocated.
  std::vector<size_t> where(out.size());
  for (size_t i = 0; i < keys.size(); ++i) where[i] = keys[i].index;
  for (size_t i = 0; i < where.size(); ++i) {
    if (where[i] == i) continue;
    Candidate tmp = std::move(out[i]);
    size_t j = i;
    while (where[j] != i) {
      out[j] = std::move(out[where[j]]);
      const size_t next = where[j];
      where[j] = j;
      j = next;
    }
    out[j] = std::move(tmp);
    where[j] = j;
  }
  return out;
}

}  // namespace burst

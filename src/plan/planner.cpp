#include "plan/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <unordered_set>

#include "burst/weight_load.h"
#include "json/json_value.h"
#include "plan/billing.h"

namespace burst {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string fmt_money(double usd) { return fmt("$%.2f", usd); }

// Seconds or minutes, whichever reads better.
std::string fmt_time(double s) { return s < 120 ? fmt("%.0f s", s) : fmt("%.1f min", s / 60); }

// The plan's line for a host that bills its traffic per GB (Vast's offers): what the estimate
// includes, and the uploads it cannot size. "" where the offer bills none.
std::string transfer_note(const Candidate& c, const Estimate& e) {
  const Offer& o = c.offer;
  if (!(o.download_usd_per_gb > 0) && !(o.upload_usd_per_gb > 0)) return "";
  std::string s = "transfer: the host bills downloads at " + fmt("$%.3f/GB", o.download_usd_per_gb);
  if (c.shape && c.shape->inbound_bytes > 0)
    s += fmt(", %.1f GB", c.shape->inbound_bytes / 1e9) + " per worker (weights, image, code)";
  s += ": " + fmt("$%.2f", e.transfer_usd) + " in the estimate";
  if (o.upload_usd_per_gb > 0)
    s += "; uploads (artefacts pulled, the upload step) at " +
         fmt("$%.3f/GB", o.upload_usd_per_gb) + ", not priced: their size is unknown";
  return s;
}

// A prepare step stages the weights on the volume, and every GPU pod then reads them from it. Where
// the volume reads slower than the step downloads (RunPod's network volume at 237 MB/s against a
// hub download through Xet), staging costs GPU time instead of saving it: say so. "" otherwise.
std::string staging_note(const PipelineSpec& spec, const CandidateShape& shape, const Offer& o,
                         double download_bps) {
  const std::string& from = spec.workload.weights_from;
  if (!spec.prepare || !(download_bps > 0) || !(shape.weight_load_bps > 0) ||
      (!from.empty() && from != "volume") || shape.weight_load_bps >= download_bps)
    return "";
  return "prepare: each GPU pod reads the staged weights from the volume at " +
         fmt("%.0f MB/s", shape.weight_load_bps / 1e6) + ", slower than the step downloads them (" +
         fmt("%.0f MB/s", download_bps / 1e6) + "): on " + o.provider +
         " staging saves no GPU time (docs/cost-model.md, \"Pre-staging\")";
}

Estimate estimate_of(const Candidate& c, const std::optional<Offer>& cpu) {
  Estimate e;
  e.cold_start_s = c.cold_start_s();
  e.sync_s = c.sync_s();
  e.run_s = c.worker_run_s;
  e.total_s = c.total_s;
  e.billed_s = c.billed_s;
  e.workers = c.workers;
  e.utilization = c.utilization;
  e.usd = c.usd;
  e.transfer_usd = c.transfer_usd;
  e.upload_usd_per_gb = c.offer.upload_usd_per_gb;
  e.run_known = c.run_s() > 0;
  e.basis = c.basis();
  if (c.workers > 1) e.basis += ", " + std::to_string(c.workers) + " workers";
  if (cpu) {
    e.upload_s = cold_start_seconds(traits_of(*cpu), 0, true) + 10;
    e.usd += billed_seconds(traits_of(*cpu).billing, e.upload_s) / 3600.0 * cpu->usd_per_hour;
  }
  return e;
}

// What a spec asks that no offer could answer: caught once, up front, with one clear message.
std::optional<Error> invalid_workload(const PipelineSpec& spec, const std::vector<GpuSpec>& cat) {
  for (const std::string& g : spec.resources.gpus)
    if (!find_gpu(cat, g))
      return make_error(ErrorCode::kInvalid, "resources.gpus: \"" + g +
                                                 "\" is not in the GPU catalog (`burst gpus` "
                                                 "lists the names)");
  const Workload& w = spec.workload;
  if (!w.kind.empty() && w.kind != "custom") {
    auto mem = memory_need(w);
    if (!mem.ok()) return make_error(ErrorCode::kInvalid, mem.error().message);
  }
  if (w.reference && !w.reference->gpu.empty() && w.reference->gpu != kThisMachineGpu &&
      !find_gpu(cat, w.reference->gpu))
    return make_error(ErrorCode::kInvalid, "workload.reference.gpu \"" + w.reference->gpu +
                                               "\" is not in the GPU catalog");
  return std::nullopt;
}

// Why `c` lost to `chosen`, in the model's terms: cost ratio, time, what bounds the work and how
// much of the card it uses. Appended to a rejection so an allow-list is never the only reason.
std::string comparison(const Candidate& c, const Candidate& chosen) {
  if (!(c.usd > 0) || !(chosen.usd > 0) || c.bound() == "capacity") return "";
  std::string out;
  const double ratio = c.usd / chosen.usd;
  if (std::fabs(ratio - 1) < 0.005)
    out = "costs the same as the chosen plan";
  else
    out = "costs " + fmt(ratio < 10 ? "%.1fx" : "%.0fx", ratio) + " the chosen plan (" +
          fmt("$%.4f", c.usd) + " vs " + fmt("$%.4f", chosen.usd) + ")";
  if (c.total_s < chosen.total_s - 1)
    out += ", though it finishes sooner (" + fmt_time(c.total_s) + " vs " +
           fmt_time(chosen.total_s) + ")";
  else if (c.total_s > chosen.total_s + 1)
    out += " and takes longer (" + fmt_time(c.total_s) + " vs " + fmt_time(chosen.total_s) + ")";
  if (!c.bound().empty() && c.need_gib() > 0 && c.offer.vram_gb && *c.offer.vram_gb > 0) {
    const double vram = *c.offer.vram_gb * std::max(1, c.offer.gpu_count);
    const double used = c.need_gib() / vram;  // a card's "GB" are GiB (burst/cost_model.h)
    out += "; the workload is " + c.bound() + "-bound and uses " +
           fmt(used < 0.01 ? "%.1f%%" : "%.0f%%", used * 100) + " of its " + fmt("%.0f GiB", vram);
  }
  return out;
}

std::string explain(const Candidate& c, const Candidate& chosen) {
  const std::string cmp = comparison(c, chosen);
  if (c.rejected.empty()) return cmp.empty() ? "not the cheapest" : cmp;
  return cmp.empty() ? c.rejected : c.rejected + "; " + cmp;
}

// "over-provisioned: ..." naming what dominates the billed time, or "" at >= kLowUtilization.
std::string utilization_note(const Candidate& c) {
  if (!(c.run_s() > 0) || !(c.billed_s > 0) || c.utilization >= kLowUtilization) return "";
  const double per_worker_billed = c.billed_s / c.workers;
  const double rounding = per_worker_billed - c.total_s;
  std::string what = "the cold start (" + fmt("%.0f s", c.cold_start_s()) +
                     (c.workers > 1 ? " per worker" : "") + ": provisioning, image pull, weights)";
  double biggest = c.cold_start_s();
  if (c.sync_s() > biggest) {
    biggest = c.sync_s();
    what = "the code sync (" + fmt("%.0f s", c.sync_s()) + ")";
  }
  if (rounding > biggest) {
    what = "the provider's per-" + traits_of(c.offer).billing.unit + " billing (" +
           fmt("%.0f s", rounding) + " rounded up)";
  }
  return "over-provisioned: expected utilization " + fmt("%.0f%%", c.utilization * 100) +
         " (compute " + fmt_time(c.workers * c.worker_run_s) + " of " + fmt_time(c.billed_s) +
         " billed); " + what + " dominates";
}

// A rejection note's parts, viewed in the candidate that carries them.
struct NoteKey {
  std::string_view provider, gpu, reason;
  bool operator==(const NoteKey& o) const {
    return provider == o.provider && gpu == o.gpu && reason == o.reason;
  }
};
struct NoteKeyHash {
  size_t operator()(const NoteKey& k) const {
    const std::hash<std::string_view> h;
    return (h(k.provider) * 31 + h(k.gpu)) * 31 + h(k.reason);
  }
};

// When no offer has room for the workload: "needs N GPUs (N x <type>, <vram> GB each); no offer
// has that many (the largest has M)" for the GPU type needing fewest cards, else "".
std::string too_few_gpus(const std::vector<Candidate>& candidates) {
  const Candidate* fewest = nullptr;
  int largest = 0;
  for (const Candidate& c : candidates) {
    if (!c.shape || c.shape->bound != "capacity") continue;
    largest = std::max(largest, std::max(1, c.offer.gpu_count));
    const int n = c.shape->gpus_needed;
    if (n > 0 && (!fewest || n < fewest->shape->gpus_needed)) fewest = &c;
  }
  for (const Candidate& c : candidates)  // some offer fits: it lost for another reason
    if (c.shape && c.shape->bound != "capacity" && !c.shape->bound.empty()) return "";
  if (!fewest) return "";
  const int n = fewest->shape->gpus_needed;
  if (n <= largest) return "";
  std::string each = fewest->offer.vram_gb ? fmt(", %.0f GB each", *fewest->offer.vram_gb) : "";
  return "needs " + std::to_string(n) + " GPUs (" + std::to_string(n) + " x " +
         fewest->offer.gpu_type + each + ", " + fmt("%.0f GiB", fewest->shape->need_gib) +
         " in all); no offer has that many (the largest has " + std::to_string(largest) + ")";
}

bool same_fleet_offer(const Offer& a, const Offer& b) {
  return a.provider == b.provider && a.gpu_type == b.gpu_type && a.gpu_count == b.gpu_count &&
         a.region == b.region;
}

// Plan::fallbacks: the candidates after the chosen one that can run the same width `k`.
std::vector<FleetFallback> fleet_fallbacks(const PipelineSpec& spec,
                                           const std::vector<Candidate>& candidates) {
  std::vector<FleetFallback> out;
  const Candidate& chosen = candidates.front();
  const int k = chosen.workers;
  for (size_t i = 1; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    if (!c.rejected.empty() || !c.shape || same_fleet_offer(c.offer, chosen.offer) ||
        c.offer.gpu_count != chosen.offer.gpu_count)  // a worker's pod is the chosen shape
      continue;
    bool dup = false;
    for (const FleetFallback& f : out) dup |= same_fleet_offer(f.offer, c.offer);
    if (dup) continue;
    for (const WidthPoint& p : width_curve(c, spec.resources.max_usd_per_hour)) {
      if (p.workers != k || !p.allowed) continue;
      if (spec.budget.max_usd && p.usd > *spec.budget.max_usd) continue;
      out.push_back({c.offer, c.price, p.usd / k, c.shape->layout});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const FleetFallback& a, const FleetFallback& b) {
    return a.worker_usd < b.worker_usd;
  });
  if (out.size() > kMaxFleetFallbacks) out.resize(kMaxFleetFallbacks);
  return out;
}

}  // namespace

Result<Plan> plan_at_prices(const PipelineSpec& spec, const PlanInput& in) {
  if (in.catalog)
    if (auto bad = invalid_workload(spec, *in.catalog)) return *bad;
  std::vector<const Offer*> offers;  // in provider preference order, which breaks ties
  offers.reserve(in.gpu_offers.size());
  if (in.providers.size() == 1) {
    for (const Offer& o : in.gpu_offers)
      if (o.provider == in.providers[0]) offers.push_back(&o);
  } else {
    for (const std::string& p : in.providers)
      for (const Offer& o : in.gpu_offers)
        if (o.provider == p) offers.push_back(&o);
  }
  CandidateInput ci;
  ci.catalog = in.catalog;
  ci.calibration = in.calibration ? *in.calibration : default_calibration();
  ci.history = &in.calibration_history;
  ci.code_bytes = in.code_bytes;
  ci.warm_volume = in.warm_volume || spec.prepare.has_value();
  ci.warm_volumes = &in.warm_volumes;
  double prepare_bytes = 0;  // what the prepare step downloads: as declared, else the weights
  if (spec.prepare) {
    if (spec.prepare->download_gb) {
      prepare_bytes = *spec.prepare->download_gb * 1e9;
    } else if (!spec.workload.model.empty()) {
      if (auto w = with_model_shape(spec.workload); w.ok()) prepare_bytes = weight_bytes_of(*w);
    } else {
      prepare_bytes = weight_bytes_of(spec.workload);
    }
  }
  // resources.max_workers caps the split for `burst plan` and `burst run` alike.
  ci.max_workers = spec.resources.max_workers
                       ? std::min(*spec.resources.max_workers, in.max_workers)
                       : in.max_workers;
  ci.split_here = spec.resources.max_workers.has_value() || spec.resources.workers.has_value();
  ci.fixed_workers = spec.resources.workers;
  ci.boot_s = in.boot_s;
  ci.boot_history = &in.boot_history;
  ci.load_history = &in.load_history;
  ci.image = &in.image;
  std::vector<Candidate> candidates = price_candidates(spec, offers, ci);

  // One note per distinct (provider, GPU, reason), in candidate order: 10,000 offers repeat a
  // few dozen reasons, and each is built as a string only once.
  std::vector<std::string> notes;
  std::unordered_set<NoteKey, NoteKeyHash> noted;
  auto note = [&](const Candidate& c) {
    if (noted.insert({c.offer.provider, c.offer.gpu_type, c.rejected}).second)
      notes.push_back(c.offer.provider + " " + c.offer.gpu_type + ": " + c.rejected);
  };
  // A note about the provider as a whole ("<provider>: <what>").
  auto provider_note = [&](const std::string& provider, std::string_view what) {
    if (noted.insert({provider, {}, what}).second)
      notes.push_back(provider + ": " + std::string(what));
  };
  std::optional<Plan> best;
  size_t best_index = 0;
  double best_download_bps = 0;  // the chosen offer's prepare-step download rate
  // An offer at the volume's home competes at its estimate less kVolumeHomeTolerance
  // (plan/volume_home.h); `cheapest` is the plain cheapest, for the plan's line.
  double best_rank = 0;
  std::optional<std::pair<Offer, double>> cheapest;
  for (size_t i = 0; i < candidates.size(); ++i) {
    Candidate& c = candidates[i];
    if (!c.rejected.empty()) {
      note(c);
      continue;
    }
    std::optional<Offer> cpu;
    std::optional<HandoffChoice> handoff;
    if (spec.upload && c.workers > 1) {
      // Several workers: the upload runs once, after every worker's artefacts are home
      // (docs/architecture.md, "Workers"), so on this machine.
      handoff = choose_handoff({c.offer.usd_per_hour, traits_of(c.offer).billing.increment_s,
                                c.total_s, kDefaultUploadBytes, !spec.artefacts.empty()});
      handoff->where = Handoff::kLocal;
      handoff->why = "local: " + std::to_string(c.workers) +
                     " workers, so the upload runs once on this machine after every worker's "
                     "artefacts are pulled";
    } else if (spec.upload && !traits_of(c.offer).cpu_pods) {
      handoff = choose_handoff({c.offer.usd_per_hour, traits_of(c.offer).billing.increment_s,
                                c.total_s, kDefaultUploadBytes, !spec.artefacts.empty()});
    } else if (spec.upload) {
      for (const Offer& o : in.cpu_offers)
        if (o.provider == c.offer.provider && o.available &&
            (!cpu || o.usd_per_hour < cpu->usd_per_hour))
          cpu = o;
      const bool offline = c.offer.price_source.rfind("offline table", 0) == 0;
      if (!cpu && offline) {
        // Planning without a driver: the table has no CPU prices; say so rather than guess.
        provider_note(c.offer.provider, "the CPU hand-off is not priced (no offline CPU price)");
      } else if (!cpu) {
        c.rejected = "no CPU pod for the upload step";
        provider_note(c.offer.provider, "no CPU pod for the upload step");
        continue;
      }
    }
    Estimate e = estimate_of(c, cpu);
    if (handoff) {
      e.upload_s = handoff->seconds();
      e.usd += handoff->usd();
    }
    std::optional<PrepareChoice> prepare;
    if (spec.prepare) {
      double download_bps = weight_load_rate(in.load_history, c.offer.provider, false,
                                             hub_download_bps(prepare_bytes, spec.workload.engine))
                                .bytes_per_s;
      // Without CPU pods the download runs on this offer's host: no faster than its link.
      if (!traits_of(c.offer).cpu_pods && c.offer.download_bps > 0)
        download_bps = std::min(download_bps, c.offer.download_bps);
      PrepareInput pi{c.price,
                      std::nullopt,
                      traits_of(c.offer).cpu_pods,
                      in.warm_volume || volume_warm_for(&in.warm_volumes, c.offer),
                      !spec.prepare->creates.empty(),
                      prepare_bytes,
                      download_bps};
      for (const Offer& o : in.cpu_offers)
        if (o.provider == c.offer.provider && o.available &&
            (!pi.cpu || o.usd_per_hour < pi.cpu->usd_per_hour))
          pi.cpu = o;
      prepare = choose_prepare(pi);
      e.prepare_s = prepare->seconds();
      e.prepare_usd = prepare->usd();
      e.usd += e.prepare_usd;
      // Run on the GPU host, its download is billed per GB where the host bills downloads.
      if (prepare->where == PrepareWhere::kGpuPod && !prepare->expect_skip) {
        const double charge = prepare_bytes / 1e9 * c.offer.download_usd_per_gb;
        e.transfer_usd += charge;
        e.usd += charge;
      }
      e.total_s += e.prepare_s;  // before the GPU work (CPU pod) or on the GPU pod
    }
    // Candidates come cheapest first; with the CPU hand-off added, keep the cheapest whole job.
    const double rank =
        volume_home_at(in.volume_homes, c.offer) ? e.usd / (1 + kVolumeHomeTolerance) : e.usd;
    if (!cheapest || e.usd < cheapest->second) cheapest = {c.offer, e.usd};
    if (!best || rank < best_rank) {
      best_rank = rank;
      best = Plan{c.offer, cpu, handoff,
                  prepare, e,   in.warm_volume || volume_warm_for(&in.warm_volumes, c.offer),
                  {},      {},  {},
                  {}};
      if (c.shape) best->layout = c.shape->layout;
      best_index = i;
      best_download_bps = prepare ? prepare->download_bps : 0;
    }
  }
  if (!best) {
    std::string msg = "no offer satisfies the spec's resources";
    if (const std::string few = too_few_gpus(candidates); !few.empty()) msg += "\n  " + few;
    for (const auto& n : in.unusable) msg += "\n  " + n;
    const std::vector<std::string>& unique = notes;
    constexpr size_t kMaxReasons = 12;
    for (size_t i = 0; i < unique.size() && i < kMaxReasons; ++i) msg += "\n  " + unique[i];
    if (unique.size() > kMaxReasons)
      msg += "\n  (and " + std::to_string(unique.size() - kMaxReasons) +
             " more; `burst plan --all` lists every candidate with its reason)";
    if (in.providers.empty() && in.unusable.empty()) msg += "\n  no provider is allowed";
    return make_error(ErrorCode::kNoCapacity, msg);
  }
  if (spec.budget.max_usd && best->estimate.usd > *spec.budget.max_usd)
    return make_error(ErrorCode::kInvalid,
                      "the cheapest plan is estimated at " + fmt_money(best->estimate.usd) +
                          ", over budget.max_usd " + fmt_money(*spec.budget.max_usd));
  // The chosen candidate goes first; every other one says why it lost.
  if (best_index != 0)
    std::rotate(candidates.begin(), candidates.begin() + static_cast<long>(best_index),
                candidates.begin() + static_cast<long>(best_index) + 1);
  const std::string low = utilization_note(candidates[0]);
  if (!low.empty()) notes.insert(notes.begin(), low);
  if (const auto& shape = candidates[0].shape) {
    best->estimate.calibration_runs = shape->calibration_runs;
    best->estimate.calibration_factor = shape->calibration_factor;
    notes.insert(notes.begin(), shape->calibration_warnings.begin(),
                 shape->calibration_warnings.end());
    // The image's pull (plan/image_pull.h), after the cold-start line, for a pod that pulls one.
    if (!traits_of(candidates[0].offer).runs_here && !in.boot_s && !in.image.image.empty() &&
        (in.image.bytes || !in.image.silent)) {
      best->image_pull = image_pull_note(in.image, candidates[0].offer.download_bps);
      notes.insert(notes.begin(), best->image_pull);
      best->image_bytes = in.image.bytes.value_or(0);
    }
    if (!shape->cold_start_note.empty()) notes.insert(notes.begin(), shape->cold_start_note);
    if (const std::string t = transfer_note(candidates[0], best->estimate); !t.empty())
      notes.insert(notes.begin(), t);
    if (const std::string s = staging_note(spec, *shape, best->gpu, best_download_bps); !s.empty())
      notes.insert(notes.begin(), s);
    best->weight_load = shape->weight_load_note;
  }
  best->notes = std::move(notes);
  if (!traits_of(best->gpu).runs_here) {
    best->volume = place_volume(spec, best->gpu, in.volume_homes);
    if (best->volume->exists && cheapest && cheapest->second < best->estimate.usd) {
      best->volume->cheaper = cheapest->first;
      best->volume->cheaper_usd = cheapest->second;
      best->volume->chosen_usd = best->estimate.usd;
    }
  }
  best->curve = width_curve(candidates[0], spec.resources.max_usd_per_hour);
  if (candidates[0].workers > 1) {
    best->worker_usd = candidates[0].usd / candidates[0].workers;
    if (const auto& c0 = candidates[0]; c0.shape)
      for (const WidthShape& w : c0.shape->curve)
        if (w.workers == c0.workers) best->worker_usd = w.billed_s / 3600.0 * c0.price / w.workers;
    // Several providers allowed: where a worker goes when the chosen offer runs out of pods.
    if (in.providers.size() > 1) best->fallbacks = fleet_fallbacks(spec, candidates);
  }
  best->candidates = std::move(candidates);
  return std::move(*best);
}

std::string why_not_chosen(const Plan& plan, const Candidate& c) {
  if (plan.candidates.empty() || &c == &plan.candidates.front()) return "";
  return explain(c, plan.candidates.front());
}

std::string estimate_to_json(const Estimate& e) {
  JsonValue j = {{"cold_start_s", e.cold_start_s},
                 {"sync_s", e.sync_s},
                 {"run_s", e.run_s},
                 {"pull_s", e.pull_s},
                 {"upload_s", e.upload_s},
                 {"prepare_s", e.prepare_s},
                 {"prepare_usd", e.prepare_usd},
                 {"transfer_usd", e.transfer_usd},
                 {"upload_usd_per_gb", e.upload_usd_per_gb},
                 {"total_s", e.total_s},
                 {"billed_s", e.billed_s},
                 {"workers", e.workers},
                 {"utilization", e.utilization},
                 {"usd", e.usd},
                 {"run_known", e.run_known},
                 {"basis", e.basis}};
  return j.dump();
}

}  // namespace burst

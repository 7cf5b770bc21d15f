#include "app/plan_with_history.h"

#include <unistd.h>

#include <map>
#include <memory>
#include <string_view>

#include "app/image_size_lookup.h"
#include "burst/clock.h"
#include "burst/store.h"
#include "http/curl_http_client.h"
#include "plan/boot_history.h"
#include "plan/calibration.h"
#include "plan/load_history.h"
#include "plan/spot_risk.h"
#include "report/job_facts.h"

namespace burst {
namespace {

// Where the spec's volume is staged, per provider and region: a ready volume of its name (with the
// provider's id) that a job of this pipeline succeeded on that provider after it was made. A run
// on one provider (the local cloud, say) warms no other provider's volume, and a volume made after
// the last success (a new region, a deleted and remade one) stays cold.
std::vector<WarmVolume> warm_volumes_of(Store& store, const PipelineSpec& spec) {
  std::vector<WarmVolume> out;
  const std::string& name = spec.volume.name.empty() ? spec.name : spec.volume.name;
  auto volumes = store.live_volumes();
  auto jobs = store.recent_jobs(200);
  if (!volumes.ok() || !jobs.ok()) return out;
  for (const VolumeRecord& v : *volumes) {
    if (v.spec_name != name || v.volume_id.empty() || v.state != "ready") continue;
    for (const JobRecord& j : *jobs)
      if (j.provider == v.provider && j.pipeline == spec.name && j.state == JobState::kSucceeded &&
          j.finished_ms >= v.created_ms) {
        out.push_back({v.provider, v.region});
        break;
      }
  }
  return out;
}

// The spec's volume as the store records it made (plan/volume_home.h): every ready row of its
// name with the provider's id, whatever jobs did on it since.
std::vector<VolumeHome> volume_homes_of(Store& store, const PipelineSpec& spec) {
  std::vector<VolumeHome> out;
  const std::string& name = spec.volume.name.empty() ? spec.name : spec.volume.name;
  auto volumes = store.live_volumes();
  if (!volumes.ok()) return out;
  for (const VolumeRecord& v : *volumes)
    if (v.spec_name == name && !v.volume_id.empty() && v.state == "ready")
      out.push_back({v.provider, v.region, v.size_gb, v.usd_per_gb_month});
  return out;
}

// Every recent job's measured provisioning + image pull (plan/boot_history.h), any pipeline:
// how fast a provider hands over a pod does not depend on what runs on it. Samples are keyed by
// provider, so the local cloud's own boots only ever price local pods.
std::vector<BootSample> boot_samples(Store& store) {
  std::vector<BootSample> out;
  auto jobs = store.recent_jobs(kBootHistoryJobs);
  if (!jobs.ok()) return out;
  for (const JobRecord& j : *jobs) {
    if (j.finished_ms == 0) continue;
    auto phases = store.phases(j.id);
    if (!phases.ok()) continue;
    auto pods = store.pods_of_job(j.id);
    if (!pods.ok()) continue;
    BootSample s;
    if (!boot_sample_of(j, *phases, *pods, &s)) continue;
    // The job's image size, when its plan knew it: the sample is then provisioning alone.
    if (!j.facts_json.empty()) {
      const ReportFacts facts = report_facts_from_json(j.facts_json);
      s.image_bytes = facts.image_bytes;
      s.link_bps = facts.image_link_bps;  // the pull's rate as planned (a slow Vast host's link)
    }
    out.push_back(std::move(s));
  }
  return out;
}

// Every recent job's measured weight download (plan/load_history.h), any pipeline: its prepare
// step's time over the bytes its plan said it fetches (the job's facts). Keyed by provider.
std::vector<LoadSample> load_samples(Store& store) {
  std::vector<LoadSample> out;
  auto jobs = store.recent_jobs(kLoadHistoryJobs);
  if (!jobs.ok()) return out;
  for (const JobRecord& j : *jobs) {
    if (j.finished_ms == 0 || j.facts_json.empty()) continue;
    const ReportFacts facts = report_facts_from_json(j.facts_json);
    if (facts.prepare_download_bytes <= 0) continue;
    auto phases = store.phases(j.id);
    if (!phases.ok()) continue;
    LoadSample s;
    if (load_sample_of(j.provider, facts.prepare_download_bytes, *phases, &s))
      out.push_back(std::move(s));
  }
  return out;
}

// Whether a pod of this plan pulls its image from a registry: an offer of a cloud whose API is not
// on this machine. The local cloud runs images it has; an emulated cloud on loopback pulls none.
bool plan_pulls_images(const PlanInput& in, const Config& config) {
  std::string seen;  // providers already judged, ';'-separated: 10,000 offers name a few
  for (const Offer& o : in.gpu_offers) {
    if (seen.find(";" + o.provider + ";") != std::string::npos) continue;
    seen += ";" + o.provider + ";";
    if (traits_of(o).runs_here) continue;
    auto cloud = config.clouds.find(o.provider);
    const std::string url = cloud == config.clouds.end() ? "" : cloud->second.base_url;
    if (url.rfind("http://127.0.0.1", 0) == 0 || url.rfind("http://localhost", 0) == 0 ||
        url.rfind("http://[::1]", 0) == 0)
      continue;
    return true;
  }
  return false;
}

// The image's size (app/image_size_lookup.h): the spec's, the store's cache, else its registry.
ImagePull image_pull_of(const PipelineSpec& spec, const PlanInput& in, const Config& config,
                        Store* store) {
  ImageLookup lookup;
  lookup.store = store;
  static SystemClock clock;
  lookup.clock = &clock;
  std::unique_ptr<HttpClient> http;
  const bool override_url = config.image_registry.rfind("http", 0) == 0;
  if (config.image_registry == "off") {
    lookup.off_why = "registry lookups are off: BURST_IMAGE_REGISTRY=off";
  } else if (!override_url && config.image_registry != "auto") {
    lookup.off_why = "BURST_IMAGE_REGISTRY is neither auto, off nor a URL";
  } else if (!override_url && !plan_pulls_images(in, config)) {
    lookup.off_why = "no pod of this plan pulls from a registry";
  } else if (!spec.image_size_gb) {
    // Short timeouts: the whole lookup has kImageLookupDeadline (image/registry_client.h).
    CurlOptions options;
    options.connect_timeout = Duration(1000);
    options.total_timeout = Duration(1500);
    // Automatic mode goes where the spec (and then its registry) says: public addresses only.
    options.public_addresses_only = !override_url;
    http = make_curl_http_client(options);
    lookup.http = http.get();
    lookup.registry.deadline = kImageLookupDeadline;
    if (override_url) lookup.registry.base_url = config.image_registry;
  }
  return image_pull_for(spec, lookup);
}

}  // namespace

std::vector<LoadSample> warm_read_samples(Store& store) {
  std::vector<LoadSample> out;
  auto jobs = store.recent_jobs(kLoadHistoryJobs);
  if (!jobs.ok()) return out;
  for (const JobRecord& j : *jobs) {
    auto transfers = store.transfers(j.id);
    if (!transfers.ok()) continue;
    LoadSample s;
    if (warm_read_sample_of(j.provider, *transfers, &s)) out.push_back(std::move(s));
  }
  return out;
}

// Every recent job's spot pods (plan/spot_risk.h): the hours each lived, by its provider, and the
// preemptions its phase rows recorded (kPreemptionMarker; the report reads the same rows).
std::vector<SpotSample> spot_samples(Store& store) {
  std::map<std::string, SpotSample> by;
  auto jobs = store.recent_jobs(kBootHistoryJobs);
  if (!jobs.ok()) return {};
  const std::string_view mark = kSpotPriceMark;
  for (const JobRecord& j : *jobs) {
    if (j.finished_ms == 0) continue;
    auto pods = store.pods_of_job(j.id);
    if (!pods.ok()) continue;
    std::string provider;
    for (const PodRecord& p : *pods) {
      const std::string& src = p.price_source;
      if (p.role != "gpu" || p.deleted_ms <= p.created_ms || src.size() < mark.size() ||
          src.compare(src.size() - mark.size(), mark.size(), mark) != 0)
        continue;
      provider = p.provider;
      SpotSample& s = by[p.provider];
      s.provider = p.provider;
      s.pod_hours += (p.deleted_ms - p.created_ms) / 3.6e6;
    }
    if (provider.empty()) continue;
    auto phases = store.phases(j.id);
    if (!phases.ok()) continue;
    for (const PhaseRecord& ph : *phases)
      if (ph.detail.find(kPreemptionMarker) != std::string::npos) ++by[provider].preemptions;
  }
  std::vector<SpotSample> out;
  for (auto& [name, s] : by) out.push_back(std::move(s));
  return out;
}

Result<Plan> plan_with_history(const PipelineSpec& spec, PlanInput* input, const Config& config,
                               Store* given) {
  // Planning creates no SQLite file; a team's PostgreSQL store is always there.
  bool image_done = false;
  std::unique_ptr<Store> opened;
  if (!given && (!config.store_url.empty() || access(config.db_path.c_str(), F_OK) == 0))
    if (auto o = open_store(config.store_url, config.db_path); o.ok()) opened = std::move(*o);
  if (Store* const store = given ? given : opened.get()) {
    input->image = image_pull_of(spec, *input, config, store);
    image_done = true;
    input->warm_volumes = warm_volumes_of(*store, spec);
    input->volume_homes = volume_homes_of(*store, spec);
    input->boot_history = boot_samples(*store);
    input->spot_history = spot_samples(*store);
    input->load_history = load_samples(*store);
    for (LoadSample& s : warm_read_samples(*store)) input->load_history.push_back(std::move(s));
    // The planner fits each GPU type from these runs (plan/calibration.h).
    if (auto runs = store->calibration_samples(spec.name, spec.workload.kind, kCalibrationHistory);
        runs.ok())
      input->calibration_history = std::move(*runs);
  }
  if (!image_done) input->image = image_pull_of(spec, *input, config, nullptr);
  return make_plan(spec, *input);
}

}  // namespace burst

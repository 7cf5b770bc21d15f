#include "runpod/runpod_provider.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "create_rule.h"
#include "driver_common.h"
#include "http/api_call.h"
#include "runpod/runpod_account.h"
#include "runpod/runpod_graphql.h"
#include "runpod/runpod_json.h"
#include "runpod/runpod_ssh.h"

namespace burst {
namespace {

using runpod::json;

class RunpodProvider : public Provider {
 public:
  RunpodProvider(RunpodOptions o, std::unique_ptr<HttpClient> http, Clock& clock)
      : o_(std::move(o)), http_(std::move(http)), clock_(clock) {
    api_.provider = "runpod";
    api_.http = http_.get();
    api_.clock = &clock_;
    api_.api_key = o_.api_key;
    api_.base_url = o_.base_url;
    api_.error_message = [](const HttpResponse& r) { return runpod::problem_message(r.body); };
    api_.no_capacity = [](const HttpResponse& r) {
      return runpod::is_no_capacity(r.status, r.body);
    };
    // GraphQL (spot pods): errors[] words; no capacity comes as HTTP 200 (parse_rent_answer).
    gql_ = api_;
    gql_.error_message = [](const HttpResponse& r) {
      const std::string said = runpod::graphql_errors(r.body);
      return said.empty() ? runpod::problem_message(r.body) : said;
    };
    gql_.no_capacity = [](const HttpResponse&) { return false; };
  }

  std::string name() const override { return "runpod"; }

  Result<std::vector<Offer>> offers(bool gpu) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    read_volume_data_centers();
    auto r = call("GET", gpu ? "/v2/catalog/gpus?include=AVAILABILITY&product=POD&cloud=" + o_.cloud
                             : "/v2/catalog/cpus?include=AVAILABILITY&product=POD");
    if (!r.ok()) return with_context(r.error(), "offers");
    json j = json::parse(r->body, nullptr, false);
    const char* list = gpu ? "gpus" : "cpus";
    if (j.is_discarded() || !j.is_object() || !j[list].is_array())
      return make_error(ErrorCode::kUnavailable,
                        std::string("runpod: offers: the catalog is not the documented {\"") +
                            list + "\":[...]}");
    std::vector<Offer> out;
    for (const auto& t : j[list]) {
      if (!t.is_object() || !t.contains("id") || !t["id"].is_string()) continue;
      if (gpu)
        add_gpu_offers(t, &out);
      else
        add_cpu_offers(t, &out);
    }
    if (gpu) add_spot_prices(&out);
    return out;
  }

  Result<Volume> ensure_volume(const std::string& name, int size_gb,
                               const std::string& region) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto found = find_volume(name, region);
    if (!found.ok() || found->has_value()) {
      if (!found.ok()) return found.error();
      return **found;
    }
    if (region.empty())
      return make_error(ErrorCode::kInvalid,
                        "runpod: network volume " + name + " needs a data centre to be created in");
    auto r = call("POST", "/v2/network-volumes", runpod_create_volume_body(name, size_gb, region),
                  false);
    if (r.ok()) {
      auto v = runpod::parse_volume(json::parse(r->body, nullptr, false));
      if (v.ok()) volume_dc_[v->id] = v->region;
      return v;
    }
    // A create that may have happened: look before deciding.
    if (r.error().code == ErrorCode::kTimeout || r.error().code == ErrorCode::kUnavailable) {
      auto again = find_volume(name, region);
      if (again.ok() && again->has_value()) return **again;
    }
    return with_context(r.error(), "create network volume " + name);
  }

  Result<std::vector<Volume>> list_volumes() override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto r = call("GET", "/v2/network-volumes");
    if (!r.ok()) return r.error();
    auto vols = runpod::parse_volume_list(r->body);
    if (vols.ok())
      for (const auto& v : *vols) volume_dc_[v.id] = v.region;
    return vols;
  }

  // DELETE /v2/network-volumes/{id}: 204 no body; 404 means gone already (RPv2).
  Status delete_volume(const std::string& id) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto r = call("DELETE", "/v2/network-volumes/" + percent_encode(id));
    if (!r.ok() && r.error().code != ErrorCode::kNotFound)
      return with_context(r.error(), "delete network volume " + id);
    volume_dc_.erase(id);
    return Status::Ok();
  }

  Result<Pod> create_pod(const PodRequest& req) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto dc = volume_data_center(req.volume_id);
    if (!dc.ok()) return with_context(dc.error(), "create pod " + req.name);
    // A CPU pod goes where its volume is (the upload's): the cheapest flavour offered there.
    std::string type_id = req.gpu ? gpu_id(req.gpu_type) : cpu_flavor_;
    if (auto here = cpu_by_dc_.find(*dc); !req.gpu && here != cpu_by_dc_.end())
      type_id = here->second.first;
    if (type_id.empty())
      return make_error(ErrorCode::kInvalid,
                        "runpod: no RunPod GPU type for \"" + req.gpu_type + "\"");
    if (!runpod_image_runs_sshd(req.image)) {  // refused here, not after a pod is billing
      auto args = runpod_ssh_bootstrap_args(req.ssh_public_key);
      if (!args.ok()) return with_context(args.error(), "create pod " + req.name);
    }
    register_ssh_key(req.ssh_public_key);
    if (req.gpu && req.spot) return create_spot_pod(req, type_id, *dc);
    const std::string body = runpod_create_pod_body(req, type_id, o_.cpu_vcpus, *dc, o_.cloud);
    // The createPod status table (runpod_json.h): 400 and 403 are kNoCapacity (the job tries its
    // next candidate), 402 stays kAuth (stop: the account, not the offer), 5xx is resent only
    // when no pod of this name is listed.
    ApiCaller create_api = api_;
    create_api.no_capacity = [](const HttpResponse& r) {
      return runpod::create_tries_next(r.status);
    };
    create_api.error_message = [](const HttpResponse& r) {
      return runpod::create_pod_message(r.status, r.body);
    };
    Error last;
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto r = call_api(create_api, o_.base_url, "POST", "/v2/pods", body, false);
      if (r.ok()) {
        auto pod = runpod::parse_pod(json::parse(r->body, nullptr, false));
        if (pod.ok()) return pod;
        // Created, but the answer is unreadable: find it by name rather than lose it.
        auto mine = find_pod_by_name(req.name);
        if (mine.ok() && mine->has_value()) return **mine;
        return with_context(pod.error(), "create pod " + req.name);
      }
      auto next = after_failed_create(r.error(), req.name, {"pod", "pods", "named", "create"},
                                      [&] { return find_pod_by_name(req.name); });
      last = next.error;
      if (next.next == CreateNext::kFound) return next.pod;
      if (next.next == CreateNext::kFail) break;
      clock_.sleep_for(backoff_delay(api_.retry, attempt, 0.5));
    }
    return with_context(last, "create pod " + req.name);
  }

  Result<Pod> get_pod(const std::string& id) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto r = call("GET", "/v2/pods/" + percent_encode(id));
    if (!r.ok()) return r.error();
    auto pod = runpod::parse_pod(json::parse(r->body, nullptr, false));
    // An interruptible pod "can be stopped at any time to free up resources for another Pod"
    // (v1 spec, Pod.interruptible; REFERENCE §2.3.3): stopped is v2's EXITED (§2.4.3). burst
    // never stops a pod (it deletes them), so a spot pod of this driver that is EXITED was taken
    // back. A step that failed on a RUNNING pod stays a crash (job/worker_fleet.h).
    if (pod.ok() && spot_pods_.count(pod->id) &&
        json::parse(r->body, nullptr, false).value("status", "") == "EXITED") {
      pod->preempted = true;
      pod->status_note = "EXITED: RunPod stopped the interruptible pod";
    }
    return pod;
  }

  Result<std::vector<Pod>> list_pods() override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto r = call("GET", "/v2/pods?includeClusterPods=false");
    if (!r.ok()) return r.error();
    auto all = runpod::parse_pod_list(r->body);
    if (!all.ok()) return all.error();
    std::vector<Pod> out;
    for (const auto& p : *all)
      if (p.name.rfind(kPodNamePrefix, 0) == 0 && p.state != PodState::kGone) out.push_back(p);
    return out;
  }

  Status delete_pod(const std::string& id) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto r = call("DELETE", "/v2/pods/" + percent_encode(id));
    if (!r.ok() && r.error().code == ErrorCode::kNotFound) return Status::Ok();  // already gone
    if (!r.ok()) return r.error();
    return Status::Ok();
  }

  Result<AccountCheck> check_account(const std::string& ssh_public_key) override {
    return runpod_check_account(api_, o_.base_url, ssh_public_key);
  }

 private:
  Status need_key() const { return need_api_key("runpod", o_.api_key); }

  // Every burst pod mounts the spec's network volume, so an offer in a data centre that has none
  // is no offer: `DataCenter.networkVolumeTypes` "Empty = none" (v2 GET /v2/catalog/datacenters).
  // Unreadable: no filter (the volume's create then says why).
  void read_volume_data_centers() {
    if (volume_dcs_) return;
    auto r = call("GET", "/v2/catalog/datacenters");
    if (!r.ok()) return;
    json j = json::parse(r->body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.value("dataCenters", json()).is_array()) return;
    std::set<std::string> with;
    for (const auto& dc : j["dataCenters"])
      if (dc.is_object() && dc.value("id", json()).is_string() &&
          dc.value("networkVolumeTypes", json()).is_array() && !dc["networkVolumeTypes"].empty())
        with.insert(dc["id"].get<std::string>());
    volume_dcs_ = std::move(with);
  }
  bool hosts_volumes(const std::string& dc) const {
    return dc.empty() || !volume_dcs_ || volume_dcs_->count(dc) > 0;
  }

  // Adds burst's key to the account's keys (GET, then PUT of the merged list: the PUT replaces
  // the whole set) so that `startSsh` and the SSH proxy know it too. Best effort: the pod gets the
  // key from its own env and start command, so a refusal here does not stop the run, and each
  // request is tried once (the next create tries again).
  void register_ssh_key(const std::string& key) {
    if (key.empty() || key_registered_ == key) return;
    ApiCaller once = api_;
    once.max_attempts = 1;
    auto r = call_api(once, o_.base_url, "GET", "/v2/account/ssh-keys");
    if (!r.ok()) return;
    json j = json::parse(r->body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("keys") || !j["keys"].is_array()) return;
    std::vector<std::string> existing;
    for (const auto& k : j["keys"])
      if (k.is_string())
        existing.push_back(k);
      else
        return;  // not the documented list of strings: never overwrite what we cannot read
    const auto merged = runpod_merged_ssh_keys(existing, key);
    if (!merged.empty() &&
        !call_api(once, o_.base_url, "PUT", "/v2/account/ssh-keys", json{{"keys", merged}}.dump())
             .ok())
      return;
    key_registered_ = key;
  }

  // Spot prices from GraphQL's minimum bids (runpod_graphql.h): each GPU offer of a type with a
  // floor gets spot_usd_per_hour = the per-GPU bid x count. GraphQL unreachable or retired: no
  // spot price (the planner then rents on-demand), never a failed offers().
  void add_spot_prices(std::vector<Offer>* offers) {
    if (!read_min_bids()) return;
    for (Offer& o : *offers) {
      auto id = gpu_ids_.find(o.gpu_type);
      if (id == gpu_ids_.end() || o.gpu_count < 1) continue;
      const double bid = spot_bid(id->second);
      if (bid > 0) o.spot_usd_per_hour = bid * o.gpu_count;
    }
  }

  // GPU type id -> minimumBidPrice, read once per driver (POST /graphql, one try).
  bool read_min_bids() {
    if (min_bids_) return true;
    ApiCaller once = gql_;
    once.max_attempts = 1;
    auto r = call_api(once, o_.base_url, "POST", "/graphql",
                      runpod::min_bid_query_body(1, o_.cloud == "SECURE"));
    if (!r.ok()) return false;
    auto bids = runpod::parse_min_bids(r->body);
    if (!bids.ok()) return false;
    min_bids_ = std::move(*bids);
    return true;
  }

  // The per-GPU bid for a RunPod GPU type id; 0 when it has no floor (no spot market).
  double spot_bid(const std::string& type_id) {
    if (!min_bids_) return 0;
    auto floor = min_bids_->find(type_id);
    if (floor == min_bids_->end()) return 0;
    auto od = on_demand_.find(type_id);
    return runpod::bid_per_gpu(floor->second, od == on_demand_.end() ? 0 : od->second);
  }

  // podRentInterruptable through GraphQL (REST v2 has no interruptible create), then the pod
  // through v2 like any other. The create rule holds: a lost answer is looked up by name first.
  Result<Pod> create_spot_pod(const PodRequest& req, const std::string& type_id,
                              const std::string& dc) {
    read_min_bids();
    const double bid = spot_bid(type_id);
    if (bid <= 0)
      return make_error(ErrorCode::kNoCapacity, "runpod: create pod " + req.name +
                                                    ": no interruptible " + type_id +
                                                    " (GraphQL gives no minimum bid for it)");
    runpod::SpotPodInput in;
    in.gpu_type_id = type_id;
    in.bid_per_gpu = bid;
    in.cloud = o_.cloud;
    in.data_center = dc;
    in.container_disk_gb = req.disk_gb;
    if (!runpod_image_runs_sshd(req.image))
      if (auto args = runpod_ssh_bootstrap_args(req.ssh_public_key); args.ok())
        in.docker_args = *args;
    const std::string body = runpod::rent_interruptable_body(req, in);
    Error last;
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto r = call_api(gql_, o_.base_url, "POST", "/graphql", body, false);
      if (r.ok()) {
        auto id = runpod::parse_rent_answer(r->body);
        if (!id.ok()) return with_context(id.error(), "create pod " + req.name);
        spot_pods_.insert(*id);
        auto pod = get_pod(*id);
        if (pod.ok()) return pod;
        Pod made;  // rented; v2 has not shown it yet: the job's wait reads it again
        made.id = *id;
        made.name = req.name;
        made.state = PodState::kPending;
        made.gpu_type = req.gpu_type;
        return made;
      }
      auto next = after_failed_create(r.error(), req.name, {"pod", "pods", "named", "create"},
                                      [&] { return find_pod_by_name(req.name); });
      last = next.error;
      if (next.next == CreateNext::kFound) {
        spot_pods_.insert(next.pod.id);
        return next.pod;
      }
      if (next.next == CreateNext::kFail) break;
      clock_.sleep_for(backoff_delay(api_.retry, attempt, 0.5));
    }
    return with_context(last, "create pod " + req.name);
  }

  Result<HttpResponse> call(const std::string& method, const std::string& path,
                            std::string body = "", bool idempotent = true) {
    return call_api(api_, o_.base_url, method, path, std::move(body), idempotent);
  }

  void add_gpu_offers(const json& t, std::vector<Offer>* out) {
    const std::string id = t["id"];
    if (!t.value("secure", true) && o_.cloud == "SECURE") return;
    const json price = t.value("price", json::object());
    const double per_gpu =
        price.is_object() ? price.value(o_.cloud == "SECURE" ? "secure" : "community", 0.0) : 0.0;
    if (per_gpu <= 0) return;
    const std::string name = runpod::catalog_name(id);
    gpu_ids_[name] = id;
    on_demand_[id] = per_gpu;
    int max_count = 1;
    if (t.contains("maxCount") && t["maxCount"].is_object())
      max_count = t["maxCount"].value(o_.cloud == "SECURE" ? "secure" : "community", 1);
    std::optional<double> vram;
    if (t.contains("memory") && t["memory"].is_number()) vram = t["memory"].get<double>();
    std::vector<std::pair<std::string, bool>> places;
    if (t.contains("dataCenters") && t["dataCenters"].is_array()) {
      for (const auto& dc : t["dataCenters"])
        if (dc.is_object() && dc.contains("id") && hosts_volumes(dc.value("id", "")))
          places.emplace_back(dc.value("id", ""), dc.value("availability", "NONE") != "NONE");
    }
    const bool per_dc = t.contains("dataCenters") && t["dataCenters"].is_array();
    if (places.empty() && !per_dc)
      places.emplace_back("", t.value("availability", "NONE") != "NONE");
    for (int count = 1; count <= std::max(1, max_count); count *= 2) {
      for (const auto& [dc, available] : places) {
        Offer o;
        o.provider = "runpod";
        o.gpu_type = name;
        o.gpu_count = count;
        o.vram_gb = vram;
        o.usd_per_hour = per_gpu * count;
        o.region = dc;
        o.available = available;
        o.price_source = "live offer";
        out->push_back(o);
      }
    }
  }

  void add_cpu_offers(const json& t, std::vector<Offer>* out) {
    const json price = t.value("price", json::object());
    const double per_vcpu = price.is_object() ? price.value("securePerVcpu", 0.0) : 0.0;
    if (per_vcpu <= 0) return;
    const double usd = per_vcpu * o_.cpu_vcpus;
    if (usd < cpu_usd_) {  // the cheapest flavour serves CPU pods
      cpu_flavor_ = t["id"];
      cpu_usd_ = usd;
    }
    if (t.contains("dataCenters") && t["dataCenters"].is_array()) {
      for (const auto& dc : t["dataCenters"]) {
        if (!dc.is_object() || !hosts_volumes(dc.value("id", ""))) continue;
        // The flavour a CPU pod in this data centre gets: the cheapest one it offers.
        auto& here = cpu_by_dc_[dc.value("id", "")];
        if (dc.value("availability", "NONE") != "NONE" && (here.first.empty() || usd < here.second))
          here = {t["id"].get<std::string>(), usd};
        Offer o{"runpod",
                "cpu",
                0,
                std::nullopt,
                usd,
                std::nullopt,
                dc.value("id", ""),
                dc.value("availability", "NONE") != "NONE",
                "live offer"};
        out->push_back(o);
      }
    }
  }

  std::string gpu_id(const std::string& catalog_name) {
    auto it = gpu_ids_.find(catalog_name);
    if (it != gpu_ids_.end()) return it->second;
    std::string id = runpod::runpod_id_for(catalog_name);
    return id.empty() ? catalog_name : id;  // maybe already a RunPod id
  }

  // The data centre of the volume (by id, or by name for callers that only know that).
  Result<std::string> volume_data_center(const std::string& volume) {
    if (volume.empty()) return std::string();
    if (auto it = volume_dc_.find(volume); it != volume_dc_.end()) return it->second;
    auto vols = list_volumes();
    if (!vols.ok()) return vols.error();
    for (const auto& v : *vols)
      if (v.id == volume) return v.region;
    return make_error(ErrorCode::kNotFound, "runpod: network volume " + volume + " not found");
  }

  Result<std::optional<Volume>> find_volume(const std::string& name, const std::string& region) {
    auto vols = list_volumes();
    if (!vols.ok()) return vols.error();
    for (const auto& v : *vols)
      if (v.name == name && (region.empty() || v.region == region)) return std::optional(v);
    return std::optional<Volume>();
  }

  Result<std::optional<Pod>> find_pod_by_name(const std::string& name) {
    auto pods = list_pods();
    if (!pods.ok()) return pods.error();
    for (const auto& p : *pods)
      if (p.name == name) return std::optional(p);
    return std::optional<Pod>();
  }

  RunpodOptions o_;
  std::unique_ptr<HttpClient> http_;
  Clock& clock_;
  ApiCaller api_;
  ApiCaller gql_;  // the same, reading GraphQL's errors[] (runpod_graphql.h)
  std::map<std::string, std::string> gpu_ids_;       // catalog name -> RunPod id, from offers
  std::map<std::string, std::string> volume_dc_;     // volume id -> data centre
  std::string key_registered_;                       // the key already on the account
  std::optional<std::set<std::string>> volume_dcs_;  // data centres with network volumes
  // Data centre -> the cheapest CPU flavour with stock there, and its $/h (from offers(false)).
  std::map<std::string, std::pair<std::string, double>> cpu_by_dc_;
  std::string cpu_flavor_ = "cpu3c";
  // Spot (runpod_graphql.h): GPU type id -> minimumBidPrice (read once), id -> on-demand $/h per
  // GPU (from offers), and the pods this driver rented as interruptible (get_pod's preemption
  // test; a pod rented by an earlier process is not known here, and reads as a crash).
  std::optional<std::map<std::string, double>> min_bids_;
  std::map<std::string, double> on_demand_;
  std::set<std::string> spot_pods_;
  double cpu_usd_ = 1e18;  // until the CPU catalog is read, cpu3c serves
};

}  // namespace

std::unique_ptr<Provider> make_runpod_provider(const RunpodOptions& options,
                                               std::unique_ptr<HttpClient> http, Clock& clock) {
  return std::make_unique<RunpodProvider>(options, std::move(http), clock);
}

}  // namespace burst

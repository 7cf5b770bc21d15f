#include "vast/vast_provider.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "create_rule.h"
#include "driver_common.h"
#include "http/api_call.h"
#include "vast/vast_account.h"
#include "vast/vast_json.h"

namespace burst {
namespace {

using vast::json;

// "ssh-ed25519 AAAA..." without the comment: how two spellings of one key compare.
std::string key_body(const std::string& key) {
  size_t sp = key.find(' ');
  if (sp == std::string::npos) return key;
  size_t sp2 = key.find(' ', sp + 1);
  return key.substr(0, sp2);
}

class VastProvider : public Provider {
 public:
  VastProvider(VastOptions o, std::unique_ptr<HttpClient> http, Clock& clock)
      : o_(std::move(o)), http_(std::move(http)), clock_(clock) {
    api_.provider = "vast";
    api_.http = http_.get();
    api_.clock = &clock_;
    api_.api_key = o_.api_key;
    api_.error_message = [](const HttpResponse& r) { return vast::error_message(r.body); };
    api_.no_capacity = [](const HttpResponse& r) { return vast::is_no_capacity(r.status, r.body); };
  }

  std::string name() const override { return "vast"; }

  Result<std::vector<Offer>> offers(bool gpu) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    if (!gpu) return std::vector<Offer>{};  // no CPU-only instances burst relies on (§4.10)
    auto found = search({}, 0, 0);
    if (!found.ok()) return with_context(found.error(), "offers");
    std::vector<Offer> out;
    out.reserve(found->size());
    for (const auto& o : *found)
      if (o.num_gpus > 0) out.push_back(vast::to_offer(o));
    return out;
  }

  // Vast's Volume has no name in the spec (REFERENCE §4.7; docs/providers.md "Vast"), so a volume
  // is found again by its id: across processes through the store's mapping (job/volume_binding),
  // within this one through made_. The name is still sent at create as a tag (the volumes guide
  // accepts it) and matched if a list ever returns it.
  Result<Volume> ensure_volume(const std::string& name, int size_gb,
                               const std::string& region) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    const long machine = vast::machine_of(region);
    std::vector<long> elsewhere;
    auto found = find_volume(name, machine, &elsewhere);
    if (!found.ok()) return found.error();
    if (found->has_value()) {
      Volume v = **found;
      v.region = region;
      return v;
    }
    if (machine == 0)
      return make_error(ErrorCode::kInvalid,
                        "vast: volume " + name +
                            ": a Vast volume lives on one machine, and the region \"" + region +
                            "\" names none (plan with a live Vast offer)");
    // A new volume on the plan's machine. Any volume of this name elsewhere is left alone: this
    // one starts empty, so the weights cache is cold (docs/providers.md, "Vast").
    auto offers =
        call("POST", "/api/v0/volumes/search/", vast_search_volumes_body(machine, size_gb));
    if (!offers.ok()) return with_context(offers.error(), "search volume offers");
    json j = json::parse(offers->body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("offers") || !j["offers"].is_array())
      return make_error(ErrorCode::kUnavailable,
                        "vast: search volume offers: the response is not the documented JSON");
    long offer_id = 0;
    double per_gb_month = 0;  // VolumeOffer.storage_cost: $/GB/month (REFERENCE §4.2, §4.7)
    for (const auto& o : j["offers"])
      if (o.is_object() && o.value("id", json()).is_number_integer() && offer_id == 0) {
        offer_id = o["id"].get<long>();
        if (o.value("storage_cost", json()).is_number()) per_gb_month = o["storage_cost"];
      }
    if (offer_id == 0)
      return make_error(ErrorCode::kNoCapacity, "vast: no volume offer on machine " +
                                                    std::to_string(machine) + " for " + name);
    // The ids before the create: if its answer is lost, the one new id on the machine is ours.
    auto before = vast_volumes();
    if (!before.ok()) return with_context(before.error(), "list volumes");
    auto r =
        call("PUT", "/api/v0/volumes/",
             vast_create_volume_body(offer_id, size_gb, vast::encode_volume_name(name)), false);
    if (!r.ok() && r.error().code != ErrorCode::kTimeout &&
        r.error().code != ErrorCode::kUnavailable)
      return with_context(r.error(), "create volume " + name);
    long id = r.ok() ? vast::volume_id_from_name(r->body) : 0;
    if (id == 0) {  // answer lost or without "V.<id>": the list decides, so never two
      auto after = vast_volumes();
      if (!after.ok()) return with_context(after.error(), "create volume " + name);
      std::vector<long> fresh;
      for (const auto& v : *after) {
        bool known = false;
        for (const auto& b : *before) known = known || b.id == v.id;
        if (!known && v.machine_id == machine) fresh.push_back(v.id);
      }
      if (fresh.size() == 1) id = fresh[0];
    }
    if (id == 0) {
      if (!r.ok()) return with_context(r.error(), "create volume " + name);
      return make_error(ErrorCode::kUnavailable,
                        "vast: volume " + name + " was created but is not listed yet");
    }
    made_[name].push_back({machine, id});
    Volume v{std::to_string(id), name, region, std::max(1, size_gb)};
    v.note = vast::new_volume_note(machine, elsewhere);
    v.usd_per_gb_month = per_gb_month;
    volume_machine_[v.id] = machine;
    return v;
  }

  Result<std::vector<Volume>> list_volumes() override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto vols = vast_volumes();
    if (!vols.ok()) return vols.error();
    std::vector<Volume> out;
    for (const auto& v : *vols)
      out.push_back({std::to_string(v.id), v.name, vast::region_for(v.geolocation, v.machine_id),
                     static_cast<int>(v.size_gb)});
    return out;
  }

  // deleteVolume: DELETE /api/v0/volumes/ with {"id": <int>} (spec; vast-cli sends ?id=). 404
  // no_such_volume means it is gone already.
  Status delete_volume(const std::string& id) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    const long n = std::atol(id.c_str());
    if (n <= 0 || std::to_string(n) != id)
      return make_error(ErrorCode::kInvalid, "vast: volume id " + id + " is not a Vast id");
    auto r = call("DELETE", "/api/v0/volumes/", json{{"id", n}}.dump());
    if (!r.ok() && r.error().code != ErrorCode::kNotFound)
      return with_context(r.error(), "delete volume " + id);
    volume_machine_.erase(id);
    return Status::Ok();
  }

  bool volume_names_listed() const override { return false; }

  Result<Pod> create_pod(const PodRequest& req) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    if (!req.gpu)
      return make_error(ErrorCode::kInvalid,
                        "vast: no CPU-only instances (burst hands off from Vast another way)");
    const std::vector<std::string> names = vast::vast_names_for(req.gpu_type);
    if (names.empty())
      return make_error(ErrorCode::kInvalid, "vast: no Vast GPU name for \"" + req.gpu_type + "\"");
    long volume = 0, machine = 0;
    if (!req.volume_id.empty()) {
      auto where = volume_machine(req.volume_id);
      if (!where.ok()) return with_context(where.error(), "create instance " + req.name);
      volume = std::atol(req.volume_id.c_str());
      machine = *where;
    }
    if (Status st = ensure_ssh_key(req.ssh_public_key); !st.ok())
      return with_context(st.error(), "create instance " + req.name);
    std::set<long> tried;
    Error last;
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto picked = pick_offer(req, names, machine, tried);
      if (!picked.ok()) return with_context(picked.error(), "create instance " + req.name);
      const long* offer = &picked->id;
      // Spot: an interruptible instance at the offer's minimum bid times kVastBidMargin.
      const std::string body = vast_create_instance_body(
          req, volume, std::max(o_.disk_gb, req.disk_gb), req.spot ? vast::bid_for(*picked) : 0);
      auto r = call("PUT", "/api/v0/asks/" + std::to_string(*offer) + "/", body, false);
      if (r.ok()) return created(r->body, req);
      if (r.error().code == ErrorCode::kNoCapacity) {  // the offer went since the search: next
        last = r.error();
        tried.insert(*offer);
        continue;
      }
      auto next =
          after_failed_create(r.error(), req.name, {"instance", "instances", "labelled", "create"},
                              [&] { return find_by_label(req.name); });
      last = next.error;
      if (next.next == CreateNext::kFound) return next.pod;
      if (next.next == CreateNext::kFail) break;
      clock_.sleep_for(backoff_delay(api_.retry, attempt, 0.5));
    }
    return with_context(last, "create instance " + req.name);
  }

  Result<Pod> get_pod(const std::string& id) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto r = call("GET", "/api/v0/instances/" + percent_encode(id) + "/?owner=me");
    if (!r.ok()) {
      // The spec answers an unknown id with 400 "Invalid instance ID"; vast-cli and dstack also
      // see {"instances": null} (below) and 404 not_found / no_such_instance. The id came from
      // Vast itself, so each of these means the instance is gone.
      const Error& e = r.error();
      const bool gone_400 = e.code == ErrorCode::kInvalid &&
                            (e.message.find("invalid instance_id") != std::string::npos ||
                             e.message.find("no_such_instance") != std::string::npos ||
                             e.message.find("not_found") != std::string::npos);
      if (gone_400) return make_error(ErrorCode::kNotFound, "vast: instance " + id + " not found");
      return e;
    }
    json j = json::parse(r->body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("instances"))
      return make_error(ErrorCode::kUnavailable,
                        "vast: instance " + id + ": the response is not the documented JSON");
    if (j["instances"].is_null())  // how Vast answers for a destroyed instance
      return make_error(ErrorCode::kNotFound, "vast: instance " + id + " not found");
    // A machine whose container runtime failed our instance: the next create picks another.
    if (vast::start_error(j["instances"]) &&
        j["instances"].value("machine_id", json()).is_number_integer())
      failed_machines_.insert(j["instances"]["machine_id"].get<long>());
    return vast::parse_instance(j["instances"]);
  }

  Result<std::vector<Pod>> list_pods() override {
    if (auto st = need_key(); !st.ok()) return st.error();
    std::vector<Pod> out;
    std::string token;
    for (int page = 0; page < 400; ++page) {  // 25 a page: 10,000 instances
      std::string path = "/api/v1/instances/?limit=25";
      if (!token.empty()) path += "&after_token=" + percent_encode(token);
      auto r = call("GET", path);
      if (!r.ok()) return r.error();
      auto parsed = vast::parse_instance_page(r->body);
      if (!parsed.ok()) return parsed.error();
      for (const auto& p : parsed->pods)
        if (p.name.rfind(kPodNamePrefix, 0) == 0 && p.state != PodState::kGone) out.push_back(p);
      if (parsed->next_token.empty()) return out;
      token = parsed->next_token;
    }
    return make_error(ErrorCode::kUnavailable, "vast: list instances: more than 400 pages");
  }

  Status delete_pod(const std::string& id) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    // destroyInstance documents no request body (vast-cli sends {}; a DELETE's body means nothing).
    auto r = call("DELETE", "/api/v0/instances/" + percent_encode(id) + "/");
    if (!r.ok() && r.error().code == ErrorCode::kNotFound) return Status::Ok();  // already gone
    if (!r.ok()) return r.error();
    return Status::Ok();
  }

  Result<AccountCheck> check_account(const std::string& ssh_public_key) override {
    return vast_check_account(api_, o_.base_url, ssh_public_key);
  }

 private:
  Status need_key() const { return need_api_key("vast", o_.api_key); }

  Result<HttpResponse> call(const std::string& method, const std::string& path,
                            std::string body = "", bool idempotent = true) {
    return call_api(api_, o_.base_url, method, path, std::move(body), idempotent);
  }

  // A search is a read, so it may be retried (POST, but idempotent).
  // `disk_gb`: the instance's disk (0: the driver's); priced as allocated_storage and asked of
  // the machine's free disk_space, so a host that cannot hold it is never offered.
  Result<std::vector<vast::VastOffer>> search(const std::vector<std::string>& names, int count,
                                              long machine, double image_cuda = 0, bool bid = false,
                                              int disk_gb = 0) {
    VastOfferQuality q = o_.quality;
    q.min_cuda = std::max(q.min_cuda, image_cuda);
    const int disk = std::max(o_.disk_gb, disk_gb);
    auto r = call("POST", "/api/v0/bundles/",
                  vast_search_offers_body(names, count, machine, disk, o_.search_limit, q, bid));
    if (!r.ok()) {
      // searchOffers answers a bad key with 404 "Invalid user key" (spec; REFERENCE §4.1).
      Error e = r.error();
      if (e.code == ErrorCode::kNotFound && e.message.find("Invalid user key") != std::string::npos)
        e.code = ErrorCode::kAuth;
      return e;
    }
    return vast::parse_offers(r->body);
  }

  // The cheapest rentable offer for the request, re-searched now (offers are dynamic); for a
  // spot request, among the interruptible ones (a `type: "bid"` search), by their bid.
  Result<vast::VastOffer> pick_offer(const PodRequest& req, const std::vector<std::string>& names,
                                     long machine, const std::set<long>& tried) {
    const double cuda = vast_image_cuda(req.image);
    auto found = search(names, std::max(1, req.gpu_count), machine, cuda, req.spot, req.disk_gb);
    if (!found.ok()) return with_context(found.error(), "search offers");
    const vast::VastOffer* best = nullptr;
    for (const auto& o : *found) {
      if (!o.rentable || o.rented || tried.count(o.id)) continue;
      if (failed_machines_.count(o.machine_id) && o.machine_id != machine) continue;
      if (vast::catalog_name(o.gpu_name, o.gpu_ram_mb) != req.gpu_type) continue;
      if (req.spot && vast::bid_for(o) <= 0) continue;  // the host takes no bids
      // (A bid search prices dph_total at the bid; the bid itself is what differs by machine.)
      const double price = req.spot ? vast::bid_for(o) : o.dph_total;
      if (!best || price < (req.spot ? vast::bid_for(*best) : best->dph_total)) best = &o;
    }
    if (best) return *best;
    std::string where = machine ? " on machine " + std::to_string(machine) + " (where volume " +
                                      req.volume_id + " lives)"
                                : "";
    if (cuda > 0) {
      char need[16];
      std::snprintf(need, sizeof need, "%.1f", cuda);
      where += std::string(" whose driver runs CUDA ") + need + " (" + req.image + ")";
    }
    if (req.spot) where += " taking interruptible bids";
    return make_error(ErrorCode::kNoCapacity, "vast: no rentable " + req.gpu_type + " x" +
                                                  std::to_string(std::max(1, req.gpu_count)) +
                                                  " offer" + where);
  }

  Result<Pod> created(const std::string& body, const PodRequest& req) {
    json j = json::parse(body, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.value("new_contract", json()).is_number_integer()) {
      Pod p;
      p.id = std::to_string(j["new_contract"].get<long>());
      p.name = req.name;
      p.state = PodState::kPending;
      p.gpu_type = req.gpu_type;
      return p;
    }
    // Created, but the answer is unreadable: find it by label rather than lose it.
    auto mine = find_by_label(req.name);
    if (mine.ok() && mine->has_value()) return **mine;
    return make_error(ErrorCode::kUnavailable,
                      "vast: create instance " + req.name + ": no new_contract in the answer");
  }

  Status ensure_ssh_key(const std::string& key) {
    if (key.empty()) return Status::Ok();
    if (key_registered_ == key) return Status::Ok();
    auto r = call("GET", "/api/v0/ssh/");
    if (!r.ok()) return with_context(r.error(), "list ssh keys");
    auto keys = vast::parse_ssh_keys(r->body);
    if (!keys.ok()) return keys.error();
    bool have = false;
    for (const auto& k : *keys) have = have || key_body(k) == key_body(key);
    if (!have) {
      // Account keys reach new instances (REFERENCE §4.8); adding one twice is harmless.
      auto add = call("POST", "/api/v0/ssh/", vast_add_ssh_key_body(key), false);
      if (!add.ok()) return with_context(add.error(), "add ssh key");
    }
    key_registered_ = key;
    return Status::Ok();
  }

  Result<std::vector<vast::VastVolume>> vast_volumes() {
    auto r = call("GET", "/api/v0/volumes/?owner=me&type=all_volume");
    if (!r.ok()) return r.error();
    auto vols = vast::parse_volumes(r->body);
    if (vols.ok())
      for (const auto& v : *vols) volume_machine_[std::to_string(v.id)] = v.machine_id;
    return vols;
  }

  // The volume of this name on `machine` (any machine when 0): one this process made (made_), or
  // one the list names (the spec's Volume has no name; read if present). `elsewhere`, when given,
  // receives the machines holding a volume of this name that is not the one asked for.
  Result<std::optional<Volume>> find_volume(const std::string& name, long machine,
                                            std::vector<long>* elsewhere = nullptr) {
    auto vols = vast_volumes();
    if (!vols.ok()) return vols.error();
    const auto& mine = made_[name];
    for (const auto& v : *vols) {
      bool ours = v.name == name;
      for (const auto& [m, id] : mine) ours = ours || id == v.id;
      if (!ours) continue;
      if (machine == 0 || v.machine_id == machine)
        return std::optional(Volume{std::to_string(v.id), name,
                                    vast::region_for(v.geolocation, v.machine_id),
                                    static_cast<int>(v.size_gb)});
      if (elsewhere) elsewhere->push_back(v.machine_id);
    }
    return std::optional<Volume>();
  }

  Result<long> volume_machine(const std::string& id) {
    if (auto it = volume_machine_.find(id); it != volume_machine_.end()) return it->second;
    auto vols = vast_volumes();
    if (!vols.ok()) return vols.error();
    if (auto it = volume_machine_.find(id); it != volume_machine_.end()) return it->second;
    return make_error(ErrorCode::kNotFound, "vast: volume " + id + " not found");
  }

  Result<std::optional<Pod>> find_by_label(const std::string& label) {
    auto pods = list_pods();
    if (!pods.ok()) return pods.error();
    for (const auto& p : *pods)
      if (p.name == label) return std::optional(p);
    return std::optional<Pod>();
  }

  VastOptions o_;
  std::unique_ptr<HttpClient> http_;
  Clock& clock_;
  ApiCaller api_;
  std::map<std::string, long> volume_machine_;  // volume id -> machine id
  // Spec volume name -> (machine, volume id) of the volumes this process created.
  std::map<std::string, std::vector<std::pair<long, long>>> made_;
  std::string key_registered_;
  std::set<long> failed_machines_;  // machines that reported a start error for our instance
};

}  // namespace

std::unique_ptr<Provider> make_vast_provider(const VastOptions& options,
                                             std::unique_ptr<HttpClient> http, Clock& clock) {
  return std::make_unique<VastProvider>(options, std::move(http), clock);
}

std::string vast_gpu_to_catalog(const std::string& vast_name, double gpu_ram_mb) {
  return vast::catalog_name(vast_name, gpu_ram_mb);
}

// searchOffers body: {field: {op: value}} filters plus order/type/limit/allocated_storage; the
// defaults vast-cli adds (verified, not external, rentable, not rented) are sent explicitly.
std::string vast_search_offers_body(const std::vector<std::string>& gpu_names, int num_gpus,
                                    long machine_id, int disk_gb, int limit,
                                    const VastOfferQuality& q, bool bid) {
  json b = {{"verified", {{"eq", true}}},
            {"external", {{"eq", false}}},
            {"rentable", {{"eq", true}}},
            {"rented", {{"eq", false}}},
            {"order", json::array({json::array({"dph_total", "asc"})})},
            {"type", bid ? "bid" : "ondemand"},
            {"allocated_storage", disk_gb},
            {"disk_space", {{"gte", disk_gb}}},  // the machine's free disk holds the instance's
            {"limit", limit}};
  if (num_gpus > 0)
    b["num_gpus"] = {{"eq", num_gpus}};
  else
    b["num_gpus"] = {{"gte", 1}};
  if (!gpu_names.empty()) b["gpu_name"] = {{"in", gpu_names}};
  if (machine_id > 0) b["machine_id"] = {{"eq", machine_id}};
  if (q.min_reliability > 0) b["reliability"] = {{"gte", q.min_reliability}};
  if (q.min_direct_ports > 0) b["direct_port_count"] = {{"gte", q.min_direct_ports}};
  if (q.min_inet_down_mbps > 0) b["inet_down"] = {{"gte", q.min_inet_down_mbps}};
  if (q.min_cuda > 0) b["cuda_max_good"] = {{"gte", q.min_cuda}};
  return b.dump();
}

// createInstance body (REFERENCE §4.3). env is a JSON object of strings; extra ports are
// "-p P:P" keys. onstart turns off the tmux Vast attaches to every SSH login ("touch
// ~/.no_auto_tmux", Vast's SSH guide; SkyPilot and dstack do the same) and exports env to SSH
// sessions (Vast's SSH runtypes replace the entrypoint
// and do not pass env to login shells). cancel_unavail: fail rather than leave a stopped instance.
std::string vast_create_instance_body(const PodRequest& r, long volume_id, int disk_gb,
                                      double bid_usd) {
  json env = json::object();
  for (const auto& [k, v] : r.env) env[k] = v;
  for (int p : r.ports)
    if (p != 22) env["-p " + std::to_string(p) + ":" + std::to_string(p)] = "1";
  json b = {{"image", r.image},
            {"label", r.name},
            {"disk", disk_gb},
            {"runtype", "ssh_direct"},
            {"env", env},
            {"onstart", "touch ~/.no_auto_tmux; env >> /etc/environment"},
            {"cancel_unavail", true}};
  if (bid_usd > 0) b["price"] = std::round(bid_usd * 1e4) / 1e4;  // spec: 0.001 .. 128
  if (volume_id > 0)
    b["volume_info"] = {
        {"create_new", false}, {"volume_id", volume_id}, {"mount_path", r.mount_path}};
  return b.dump();
}

std::string vast_search_volumes_body(long machine_id, int size_gb) {
  return json{{"verified", {{"eq", true}}},
              {"machine_id", {{"eq", machine_id}}},
              {"disk_space", {{"gte", std::max(1, size_gb)}}},
              {"order", json::array({json::array({"storage_cost", "asc"})})},
              {"limit", 8}}
      .dump();
}

std::string vast_create_volume_body(long volume_offer_id, int size_gb, const std::string& name) {
  return json{{"id", volume_offer_id}, {"size", std::max(1, size_gb)}, {"name", name}}.dump();
}

std::string vast_add_ssh_key_body(const std::string& public_key) {
  return json{{"ssh_key", public_key}}.dump();
}

}  // namespace burst

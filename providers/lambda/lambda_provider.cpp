#include "lambda/lambda_provider.h"

#include <algorithm>
#include <map>

#include "create_rule.h"
#include "crypto/sha256.h"
#include "driver_common.h"
#include "http/api_call.h"
#include "lambda/lambda_account.h"
#include "lambda/lambda_json.h"

namespace burst {

using lambda::json;

std::string lambda_ssh_key_name(const std::string& public_key) {
  // Trailing whitespace (the .pub file's newline) must not change the name.
  std::string k = public_key;
  while (!k.empty() && (k.back() == '\n' || k.back() == ' ' || k.back() == '\r')) k.pop_back();
  return "burst-" + sha256_hex(k).substr(0, 12);
}

// Only documented InstanceLaunchRequest fields; no image (the default Lambda Stack image), no
// quantity (not in the 1.8.3 schema), exactly one SSH key name, as the spec requires.
std::string lambda_launch_body(const std::string& region, const std::string& instance_type,
                               const std::string& ssh_key_name, const std::string& file_system,
                               const std::string& name) {
  json b = {{"region_name", region},
            {"instance_type_name", instance_type},
            {"ssh_key_names", json::array({ssh_key_name})},
            {"name", name}};
  if (!file_system.empty()) b["file_system_names"] = json::array({file_system});
  return b.dump();
}

std::string lambda_terminate_body(const std::string& instance_id) {
  return json{{"instance_ids", json::array({instance_id})}}.dump();
}

std::string lambda_add_ssh_key_body(const std::string& name, const std::string& public_key) {
  std::string k = public_key;
  while (!k.empty() && (k.back() == '\n' || k.back() == '\r')) k.pop_back();
  return json{{"name", name}, {"public_key", k}}.dump();
}

std::string lambda_create_filesystem_body(const std::string& name, const std::string& region) {
  return json{{"name", name}, {"region", region}}.dump();
}

namespace {

class LambdaProvider : public Provider {
 public:
  LambdaProvider(LambdaOptions o, std::unique_ptr<HttpClient> http, Clock& clock)
      : o_(std::move(o)), http_(std::move(http)), clock_(clock) {
    api_.provider = "lambda";
    api_.http = http_.get();
    api_.clock = &clock_;
    api_.api_key = o_.api_key;
    api_.error_message = [](const HttpResponse& r) { return lambda::error_message(r.body); };
    // "Requests to the API are generally limited to one request per second ... the launch
    // endpoint ... one request per 12 seconds" and no Retry-After is documented (REFERENCE §3.8):
    // SkyPilot backs off from 10 s on a 429, so burst does (backoff_delay's jitter draws from the
    // upper half, so the first wait is 10-20 s). Later waits are capped at 20-40 s, so three
    // rate-limited answers in a row are always waited out within retry.total (2 minutes); with
    // doubling to 80 s they sometimes were not (the jitter decided).
    api_.rate_limit_retry = RetryPolicy{Duration(20000), Duration(40000), api_.retry.total};
    api_.no_capacity = [](const HttpResponse& r) {
      return lambda::error_code(r.body) == lambda::kInsufficientCapacity;
    };
  }

  std::string name() const override { return "lambda"; }

  Result<std::vector<Offer>> offers(bool gpu) override {
    if (!gpu) return std::vector<Offer>{};  // Lambda has no CPU-only instances
    if (auto st = need_key(); !st.ok()) return st.error();
    auto r = call("GET", "/api/v1/instance-types");
    if (!r.ok()) return with_context(r.error(), "offers");
    auto types = lambda::parse_instance_types(r->body);
    if (!types.ok()) return types.error();
    types_ = std::move(*types);
    std::vector<Offer> out;
    for (const auto& t : types_) {
      Offer o;
      o.provider = "lambda";
      o.gpu_type = t.gpu_type;
      o.gpu_count = t.gpus;
      o.vram_gb = t.vram_gb;
      o.usd_per_hour = t.usd_per_hour;
      o.price_source = "live offer";
      if (t.regions.empty()) {  // listed, but no capacity anywhere now
        o.available = false;
        out.push_back(o);
      }
      for (const auto& region : t.regions) {
        o.region = region;
        out.push_back(o);
      }
    }
    return out;
  }

  Result<Volume> ensure_volume(const std::string& name, int /*size_gb: file systems grow*/,
                               const std::string& region) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto found = find_volume(name);
    if (!found.ok()) return found.error();
    // File system names are unique per account, so one found in another region is still the
    // volume: create_pod launches in its region (the only place it can be mounted).
    if (found->has_value()) return **found;
    if (region.empty())
      return make_error(ErrorCode::kInvalid,
                        "lambda: file system " + name + " needs a region to be created in");
    auto r =
        call("POST", "/api/v1/filesystems", lambda_create_filesystem_body(name, region), false);
    if (r.ok()) {
      auto data = lambda::data_of(r->body, "create file system");
      if (!data.ok()) return data.error();
      auto v = lambda::parse_filesystem(*data);
      if (v.ok()) volumes_[v->id] = *v;
      return v;
    }
    // A create that may have happened: look before deciding.
    if (r.error().code == ErrorCode::kTimeout || r.error().code == ErrorCode::kUnavailable) {
      auto again = find_volume(name);
      if (again.ok() && again->has_value()) return **again;
    }
    return with_context(r.error(), "create file system " + name);
  }

  Result<std::vector<Volume>> list_volumes() override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto r = call("GET", "/api/v1/file-systems");  // hyphen here, none on create
    if (!r.ok()) return r.error();
    auto vols = lambda::parse_filesystem_list(r->body);
    if (vols.ok())
      for (const auto& v : *vols) volumes_[v.id] = v;
    return vols;
  }

  // DELETE /api/v1/filesystems/{id} -> {"data":{"deleted_ids":[...]}}; 404
  // global/object-does-not-exist means gone already; a mounted one is refused (400).
  Status delete_volume(const std::string& id) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto r = call("DELETE", "/api/v1/filesystems/" + percent_encode(id));
    if (!r.ok() && r.error().code != ErrorCode::kNotFound)
      return with_context(r.error(), "delete file system " + id);
    volumes_.erase(id);
    return Status::Ok();
  }

  Result<Pod> create_pod(const PodRequest& req) override {
    if (!req.gpu)
      return make_error(ErrorCode::kInvalid,
                        "lambda: Lambda has no CPU-only instances (the upload runs where the "
                        "plan's hand-off says)");
    if (auto st = need_key(); !st.ok()) return st.error();
    auto type = instance_type(req.gpu_type, req.gpu_count);
    if (!type.ok()) return with_context(type.error(), "create pod " + req.name);
    std::string fs_name, region;
    if (!req.volume_id.empty()) {
      auto v = volume(req.volume_id);
      if (!v.ok()) return with_context(v.error(), "create pod " + req.name);
      fs_name = v->name;
      region = v->region;  // a file system mounts only in its own region
    } else if (!type->regions.empty()) {
      region = type->regions.front();
    }
    if (region.empty())
      return make_error(ErrorCode::kNoCapacity, "lambda: create pod " + req.name + ": " +
                                                    type->name + " has no capacity in any region");
    auto key = ssh_key(req.ssh_public_key);
    if (!key.ok()) return with_context(key.error(), "create pod " + req.name);
    const std::string body = lambda_launch_body(region, type->name, *key, fs_name, req.name);
    Error last;
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto r = call("POST", "/api/v1/instance-operations/launch", body, false);
      if (r.ok()) {
        auto data = lambda::data_of(r->body, "launch");
        if (data.ok() && data->is_object() && data->contains("instance_ids") &&
            (*data)["instance_ids"].is_array() && !(*data)["instance_ids"].empty() &&
            (*data)["instance_ids"][0].is_string()) {
          Pod p;
          p.id = (*data)["instance_ids"][0];
          p.name = req.name;
          p.state = PodState::kPending;
          p.gpu_type = type->gpu_type;
          p.usd_per_hour = type->usd_per_hour;
          return p;
        }
        // Launched, but the answer is unreadable: find it by name rather than lose it.
        auto mine = find_pod_by_name(req.name);
        if (mine.ok() && mine->has_value()) return **mine;
        return make_error(ErrorCode::kUnavailable,
                          "lambda: create pod " + req.name +
                              ": the launch answer has no instance id; `burst reap` checks again");
      }
      auto next =
          after_failed_create(r.error(), req.name, {"instance", "instances", "named", "launch"},
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
    auto r = call("GET", "/api/v1/instances/" + percent_encode(id));
    if (!r.ok()) return r.error();
    auto data = lambda::data_of(r->body, "get instance");
    if (!data.ok()) return data.error();
    return lambda::parse_instance(*data, o_.ssh_user);
  }

  Result<std::vector<Pod>> list_pods() override {
    if (auto st = need_key(); !st.ok()) return st.error();
    auto r = call("GET", "/api/v1/instances");
    if (!r.ok()) return r.error();
    auto all = lambda::parse_instance_list(r->body, o_.ssh_user);
    if (!all.ok()) return all.error();
    std::vector<Pod> out;
    for (const auto& p : *all)
      if (p.name.rfind(kPodNamePrefix, 0) == 0 && p.state != PodState::kGone) out.push_back(p);
    return out;
  }

  Status delete_pod(const std::string& id) override {
    if (auto st = need_key(); !st.ok()) return st.error();
    // Terminating twice has the effect of once, so the request may be retried.
    auto r = call("POST", "/api/v1/instance-operations/terminate", lambda_terminate_body(id));
    if (!r.ok() && r.error().code == ErrorCode::kNotFound) return Status::Ok();  // already gone
    if (!r.ok()) return r.error();
    return Status::Ok();
  }

  Result<AccountCheck> check_account(const std::string& ssh_public_key) override {
    return lambda_check_account(api_, o_.base_url, ssh_public_key);
  }

 private:
  Status need_key() const { return need_api_key("lambda", o_.api_key); }

  Result<HttpResponse> call(const std::string& method, const std::string& path,
                            std::string body = "", bool idempotent = true) {
    return call_api(api_, o_.base_url, method, path, std::move(body), idempotent);
  }

  // The instance type for a catalog GPU name and count (or a Lambda type name as is).
  Result<lambda::InstanceType> instance_type(const std::string& gpu, int count) {
    if (types_.empty()) {
      auto o = offers(true);
      if (!o.ok()) return o.error();
    }
    for (const auto& t : types_)
      if (t.name == gpu || (t.gpu_type == gpu && t.gpus == std::max(1, count))) return t;
    return make_error(ErrorCode::kInvalid, "lambda: no instance type with " +
                                               std::to_string(std::max(1, count)) + " x " + gpu);
  }

  Result<Volume> volume(const std::string& id_or_name) {
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto& [id, v] : volumes_)
        if (id == id_or_name || v.name == id_or_name) return v;
      if (pass == 0) {
        auto vols = list_volumes();
        if (!vols.ok()) return vols.error();
      }
    }
    return make_error(ErrorCode::kNotFound, "lambda: file system " + id_or_name + " not found");
  }

  Result<std::optional<Volume>> find_volume(const std::string& name) {
    auto vols = list_volumes();
    if (!vols.ok()) return vols.error();
    for (const auto& v : *vols)
      if (v.name == name) return std::optional(v);
    return std::optional<Volume>();
  }

  // The registered key's name, registering the key first when absent.
  Result<std::string> ssh_key(const std::string& public_key) {
    if (public_key.empty())
      return make_error(ErrorCode::kInvalid, "lambda: an SSH public key is required");
    const std::string name = lambda_ssh_key_name(public_key);
    if (registered_key_ == ssh_key_body(public_key)) return registered_;
    auto r = call("GET", "/api/v1/ssh-keys");
    if (!r.ok()) return with_context(r.error(), "list SSH keys");
    auto data = lambda::data_of(r->body, "list SSH keys");
    if (!data.ok()) return data.error();
    if (!data->is_array())
      return make_error(ErrorCode::kUnavailable, "lambda: list SSH keys: not an array");
    // The key may be registered already under the user's own name: Lambda refuses the same key
    // twice (global/duplicate), so it is found by its public_key as SkyPilot does (REFERENCE
    // §3.7), then by burst's name.
    std::string found;
    for (const auto& k : *data)
      if (k.is_object() && k.value("public_key", json()).is_string() &&
          ssh_key_body(k["public_key"].get<std::string>()) == ssh_key_body(public_key) &&
          k.value("name", json()).is_string() && found.empty())
        found = k["name"].get<std::string>();
    for (const auto& k : *data)
      if (found.empty() && k.is_object() && k.value("name", "") == name) found = name;
    if (!found.empty()) {
      registered_ = found;
      registered_key_ = ssh_key_body(public_key);
      return found;
    }
    auto add = call("POST", "/api/v1/ssh-keys", lambda_add_ssh_key_body(name, public_key), false);
    if (!add.ok()) {
      // A lost answer may hide a key that was added: its name is stable, so look again.
      auto again = call("GET", "/api/v1/ssh-keys");
      if (again.ok() && again->body.find("\"" + name + "\"") != std::string::npos) {
        registered_ = name;
        registered_key_ = ssh_key_body(public_key);
        return name;
      }
      return with_context(add.error(), "register SSH key " + name);
    }
    registered_ = name;
    registered_key_ = ssh_key_body(public_key);
    return name;
  }

  Result<std::optional<Pod>> find_pod_by_name(const std::string& name) {
    auto pods = list_pods();
    if (!pods.ok()) return pods.error();
    for (const auto& p : *pods)
      if (p.name == name) return std::optional(p);
    return std::optional<Pod>();
  }

  LambdaOptions o_;
  std::unique_ptr<HttpClient> http_;
  Clock& clock_;
  ApiCaller api_;
  std::vector<lambda::InstanceType> types_;  // from the last offers()
  std::map<std::string, Volume> volumes_;    // file system id -> file system
  std::string registered_;                   // the SSH key name known to be registered
  std::string registered_key_;               // its "type base64", so another spelling matches
};

}  // namespace

std::unique_ptr<Provider> make_lambda_provider(const LambdaOptions& options,
                                               std::unique_ptr<HttpClient> http, Clock& clock) {
  return std::make_unique<LambdaProvider>(options, std::move(http), clock);
}

}  // namespace burst

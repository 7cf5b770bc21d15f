// RunPod REST v2, as the emulator serves it under /runpod: the paths, field names, status codes,
// RFC 9457 error bodies and pod lifecycle of RunPod's published OpenAPI spec ("Frontdoor v2.9.0",
// runpod/docs api-reference-v2/openapi.json; digest in shared/provider-apis/REFERENCE.md §2.4).
// Served: catalog (gpus, cpus, data centres: runpod_catalog_api.cpp), network volumes (list,
// create, get), pods (list, create, get, delete), account SSH keys (get, put: a full replacement).
// Not served: templates, clusters, serverless, billing, pod actions. The GPU types and prices
// (runpod_catalog.h) are the emulator's own illustrative numbers, not RunPod's. GraphQL, for spot
// pods: runpod_graphql.cpp; a pod it rents is served here like any other, EXITED once preempted.
// SSH as documented (REFERENCE §2.4.2, §2.6): an image from the catalogue (image_runs_sshd)
// starts sshd with env PUBLIC_KEY, which startSsh fills from the account's keys unless the request
// sets it; any other image has no SSH server unless its start command (`args`) survives the
// argument split (runpod_start.h) and installs and runs one, authorising the key lines it writes. A
// pod with no sshd still gets ssh.direct once RUNNING (the 22/tcp mapping), but connections to it
// are refused.
#include <algorithm>
#include <cmath>
#include <regex>

#include "api_module.h"
#include "runpod_catalog.h"
#include "runpod_start.h"

namespace burst::fakecloud {
namespace {

using nlohmann::json;
const char* const kProvider = "runpod";

const char* title_for(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
  }
  return "Error";
}

json problem(int status, const std::string& detail, const std::vector<std::string>& errors = {}) {
  json j = {{"title", title_for(status)}, {"status", status}, {"detail", detail}};
  if (!errors.empty()) j["errors"] = errors;
  return j;
}

std::string error_body(int status, const std::string& detail) {
  return problem(status, detail).dump();
}

void fail(httplib::Response& res, int status, const std::string& detail,
          const std::vector<std::string>& errors = {}) {
  send_json(res, status, problem(status, detail, errors), "application/problem+json");
}

bool valid_dc(const std::string& id) {
  for (const auto& dc : kDataCenters)
    if (id == dc.id) return true;
  return false;
}

const GpuKind* find_gpu(const std::string& id) {
  for (const auto& g : kGpus)
    if (id == g.id) return &g;
  return nullptr;
}

const CpuKind* find_cpu(const std::string& id) {
  for (const auto& c : kCpus)
    if (id == c.id) return &c;
  return nullptr;
}

// JSON-schema-like checks, worded like the real API's `errors[]`.
void unknown_props(const json& obj, const std::string& at, std::initializer_list<const char*> known,
                   std::vector<std::string>* errors) {
  for (const auto& [k, v] : obj.items()) {
    bool ok = false;
    for (const char* n : known) ok = ok || k == n;
    if (!ok) errors->push_back(at + ": additional properties '" + k + "' not allowed");
  }
}

void want(const json& obj, const char* key, const std::string& at, bool ok, const char* type,
          std::vector<std::string>* errors) {
  if (obj.contains(key) && !ok) errors->push_back(at + "." + key + ": expected " + type);
}

json volume_json(const FakeVolume& v) {
  return {{"id", v.id},
          {"name", v.name},
          {"size", v.size_gb},
          {"dataCenter", v.region},
          {"type", "STANDARD"}};
}

void create_volume(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  json b = json::parse(req.body, nullptr, false);
  if (b.is_discarded() || !b.is_object())
    return fail(res, 400, "request body is not a JSON object");
  std::vector<std::string> errors;
  unknown_props(b, "$", {"dataCenter", "name", "size", "type"}, &errors);
  for (const char* k : {"dataCenter", "name", "size"})
    if (!b.contains(k)) errors.push_back(std::string("$: missing property '") + k + "'");
  want(b, "name", "$", b.value("name", json()).is_string() && !b["name"].get<std::string>().empty(),
       "a non-empty string", &errors);
  want(b, "dataCenter", "$", b.value("dataCenter", json()).is_string(), "a string", &errors);
  want(b, "size", "$",
       b.value("size", json()).is_number_integer() && b["size"] >= 10 && b["size"] <= 4096,
       "an integer from 10 to 4096", &errors);
  if (!errors.empty()) return fail(res, 422, "Request validation failed.", errors);
  const std::string dc = b["dataCenter"];
  if (!valid_dc(dc)) return fail(res, 400, "unknown data center \"" + dc + "\"");
  for (const auto& d : kDataCenters)
    if (dc == d.id && !d.volumes)
      return fail(res, 400, "data center " + dc + " does not support network volumes");
  auto v = state.create_volume(kProvider, b["name"], dc, b["size"]);
  if (!v.ok()) return fail(res, 500, v.error().message);
  send_json(res, 201, volume_json(*v));
}

const char* status_of(const FakePod& p, TimePoint now) {
  if (p.phase == Phase::kTerminated) return "TERMINATED";
  // An interruptible pod taken back (Faults::preempt_bids, CloudState::preempt) "can be stopped
  // at any time to free up resources for another Pod" (v1 spec, Pod.interruptible): EXITED,
  // "stopped" (v2 PodStatus), until deleted.
  if (p.preempted) return "EXITED";
  if (p.phase == Phase::kRunning) return "RUNNING";
  if (p.ready_at != TimePoint::max() && now >= p.created + (p.ready_at - p.created) / 2)
    return "STARTING";
  return "PROVISIONING";
}

json pod_json(const FakePod& p, TimePoint now) {
  const json& rq = p.extra;
  const std::string status = status_of(p, now);
  const bool running = status == "RUNNING", exited = status == "EXITED";
  bool has22 = false;
  for (const auto& port : p.ports) has22 = has22 || port == "22/tcp";
  json direct = nullptr, runtime = nullptr;
  if (running && has22 && p.ssh.port > 0) {
    const std::string port = std::to_string(p.ssh.port);
    direct = {{"host", p.ssh.host},
              {"port", p.ssh.port},
              {"username", p.ssh.user},
              {"command", "ssh " + p.ssh.user + "@" + p.ssh.host + " -p " + port}};
    runtime = {
        {"uptime", std::chrono::duration_cast<std::chrono::seconds>(now - p.ready_at).count()},
        {"ports",
         json::array(
             {{{"private", 22}, {"public", p.ssh.port}, {"type", "tcp"}, {"ip", p.ssh.host}}})}};
  }
  const std::string proxy_user = p.id + "-" + p.id.substr(0, 8);
  json mounts = json::object();
  if (!p.volume_id.empty())
    mounts["network"] = json::array({{{"volumeId", p.volume_id}, {"path", p.mount_path}}});
  json j = {{"id", p.id},
            {"name", p.name},
            {"image", p.image},
            {"args", rq.value("args", "")},
            {"disk", rq.value("disk", 50)},
            {"ports", p.ports},
            {"env", p.env},
            {"registry", rq.value("registry", json(nullptr))},
            {"status", status},
            {"actions", running  ? json::array({"stop", "restart", "terminate"})
                        : exited ? json::array({"start", "terminate"})
                                 : json::array({"stop", "terminate"})},
            {"mounts", mounts},
            {"cloud", rq.value("cloud", "SECURE")},
            {"dataCenterId", p.region},
            {"cudaVersion", p.gpu ? json("12.8") : json(nullptr)},
            {"ssh",
             {{"proxy",
               {{"host", "ssh.runpod.io"},
                {"port", 22},
                {"username", proxy_user},
                {"command", "ssh " + proxy_user + "@ssh.runpod.io"}}},
              {"direct", direct}}},
            {"template", nullptr},
            {"cost", exited ? 0.0 : p.usd_per_hour},  // "0.0 when EXITED or TERMINATED"
            {"locked", false},
            {"globalNetworking", {{"enabled", false}}},
            {"runtime", runtime},
            {"createdAt", rfc3339(p.created)},
            {"startedAt", running ? json(rfc3339(p.ready_at)) : json(nullptr)}};
  if (p.gpu)
    j["gpu"] = {{"id", p.gpu_type}, {"count", p.gpu_count}};
  else
    j["cpu"] = {{"id", p.gpu_type},
                {"vcpuCount", rq["cpu"].value("vcpuCount", 2)},
                {"memory", rq["cpu"].value("vcpuCount", 2) * 2}};
  return j;
}

json account_keys_json(CloudState& state) { return {{"keys", state.account_keys(kProvider)}}; }

void put_account_keys(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  json b = json::parse(req.body, nullptr, false);
  if (b.is_discarded() || !b.is_object())
    return fail(res, 400, "request body is not a JSON object");
  std::vector<std::string> errors;
  unknown_props(b, "$", {"keys"}, &errors);
  if (!b.contains("keys") || !b["keys"].is_array()) errors.push_back("$.keys: expected an array");
  static const std::regex kPattern(R"(^(ssh|ecdsa|sk)-[^\s]+ [^\s]+([ \t][^\n\r]*)?$)");
  std::vector<std::string> keys;
  for (const auto& k : b.value("keys", json::array())) {
    if (!k.is_string() || !std::regex_match(k.get<std::string>(), kPattern))
      errors.push_back("$.keys: item does not match the authorized_keys pattern");
    else
      keys.push_back(k);
  }
  if (!errors.empty()) return fail(res, 422, "Request validation failed.", errors);
  state.set_account_keys(kProvider, keys);
  send_json(res, 200, account_keys_json(state));
}

// Schema checks of CreatePodRequest (422), then the cross-field rules (400/404).
void create_pod(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  json b = json::parse(req.body, nullptr, false);
  if (b.is_discarded() || !b.is_object())
    return fail(res, 400, "request body is not a JSON object");
  std::vector<std::string> errors;
  unknown_props(
      b, "$",
      {"args", "disk", "env", "image", "ports", "registry", "name", "cloud", "cpu", "dataCenterIds",
       "globalNetworking", "gpu", "mounts", "startJupyter", "startSsh", "templateId"},
      &errors);
  if (!b.contains("name")) errors.push_back("$: missing property 'name'");
  want(b, "name", "$", b.value("name", json()).is_string() && !b["name"].get<std::string>().empty(),
       "a non-empty string", &errors);
  want(b, "image", "$", b.value("image", json()).is_string(), "a string", &errors);
  want(b, "disk", "$", b.value("disk", json()).is_number_integer() && b["disk"] >= 1,
       "an integer >= 1", &errors);
  want(b, "startSsh", "$", b.value("startSsh", json()).is_boolean(), "a boolean", &errors);
  want(
      b, "cloud", "$",
      b.value("cloud", json()).is_string() && (b["cloud"] == "SECURE" || b["cloud"] == "COMMUNITY"),
      "SECURE or COMMUNITY", &errors);
  if (b.contains("env")) {
    bool ok = b["env"].is_object();
    for (const auto& [k, v] : ok ? b["env"].items() : json::object().items())
      ok = ok && v.is_string();
    want(b, "env", "$", ok, "an object of strings", &errors);
  }
  for (const char* arr : {"ports", "dataCenterIds"}) {
    bool ok = b.value(arr, json()).is_array();
    if (ok)
      for (const auto& v : b[arr]) ok = ok && v.is_string();
    want(b, arr, "$", ok, "an array of strings", &errors);
  }
  if (b.contains("gpu")) {
    const json& g = b["gpu"];
    if (!g.is_object()) {
      errors.push_back("$.gpu: expected an object");
    } else {
      unknown_props(g, "$.gpu", {"id", "count", "allowedCudaVersions", "minCudaVersion"}, &errors);
      if (!g.value("id", json()).is_string()) errors.push_back("$.gpu.id: expected a string");
      want(g, "count", "$.gpu", g.value("count", json()).is_number_integer() && g["count"] >= 1,
           "an integer >= 1", &errors);
    }
  }
  if (b.contains("cpu")) {
    const json& c = b["cpu"];
    if (!c.is_object()) {
      errors.push_back("$.cpu: expected an object");
    } else {
      unknown_props(c, "$.cpu", {"id", "vcpuCount"}, &errors);
      if (!c.value("id", json()).is_string()) errors.push_back("$.cpu.id: expected a string");
      const json n = c.value("vcpuCount", json());
      if (!n.is_number_integer() || n < 2)
        errors.push_back("$.cpu.vcpuCount: expected an integer >= 2");
    }
  }
  if (b.contains("mounts")) {
    const json& m = b["mounts"];
    if (!m.is_object()) {
      errors.push_back("$.mounts: expected an object");
    } else {
      unknown_props(m, "$.mounts", {"persistent", "network"}, &errors);
      if (m.contains("network")) {
        if (!m["network"].is_array() || m["network"].size() > 1)
          errors.push_back("$.mounts.network: expected an array of at most 1 item");
        else
          for (const auto& n : m["network"]) {
            unknown_props(n, "$.mounts.network[0]", {"volumeId", "path"}, &errors);
            if (!n.value("volumeId", json()).is_string() || !n.value("path", json()).is_string())
              errors.push_back("$.mounts.network[0]: volumeId and path must be strings");
          }
      }
    }
  }
  if (!errors.empty()) return fail(res, 422, "Request validation failed.", errors);

  const bool gpu = b.contains("gpu");
  if (gpu == b.contains("cpu")) return fail(res, 400, "exactly one of gpu or cpu is required");
  if (!b.contains("image") && !b.contains("templateId"))
    return fail(res, 400, "image is required unless templateId is set");
  if (!gpu && b.contains("mounts") && b["mounts"].contains("persistent"))
    return fail(res, 400, "mounts.persistent is not supported for CPU pods");

  const Faults f = state.faults(kProvider);
  // createPod's table (v2 spec): "402 insufficient balance -> stop", "403 account cannot access
  // the pool -> skip candidate", "400 ... no capacity for this GPU/DC -> try next candidate".
  if (f.insufficient_balance)
    return fail(res, 402, "insufficient balance to deploy this pod; add funds to continue");
  const std::string no_capacity_detail =
      f.capacity_detail.empty() ? "There are no longer any instances available with the requested "
                                  "specifications. Please refresh and try again."
                                : f.capacity_detail;
  FakePod p;
  p.provider = kProvider;
  p.name = b["name"];
  p.gpu = gpu;
  p.image = b.value("image", "");
  if (b.contains("env")) p.env = b["env"].get<std::map<std::string, std::string>>();
  if (b.contains("ports")) p.ports = b["ports"].get<std::vector<std::string>>();
  std::vector<std::string> dcs = b.value("dataCenterIds", std::vector<std::string>{});
  if (gpu) {
    p.gpu_type = b["gpu"]["id"];
    p.gpu_count = b["gpu"].value("count", 1);
    const GpuKind* g = find_gpu(p.gpu_type);
    if (!g) return fail(res, 400, "unknown GPU type \"" + p.gpu_type + "\"");
    if (f.forbidden.count(p.gpu_type)) return fail(res, 403, "access denied");
    if (f.no_capacity.count(p.gpu_type)) return fail(res, 400, no_capacity_detail);
    p.usd_per_hour =
        (b.value("cloud", "SECURE") == "COMMUNITY" ? g->community : g->secure) * p.gpu_count;
  } else {
    p.gpu_type = b["cpu"]["id"];
    const CpuKind* c = find_cpu(p.gpu_type);
    const int n = b["cpu"]["vcpuCount"];
    if (!c) return fail(res, 400, "unknown CPU flavor \"" + p.gpu_type + "\"");
    if ((n & (n - 1)) != 0) return fail(res, 400, "cpu.vcpuCount must be a power of two");
    if (f.no_capacity.count(p.gpu_type)) return fail(res, 400, no_capacity_detail);
    p.usd_per_hour = c->secure_per_vcpu * n;
  }
  p.region = dcs.empty() ? kDataCenters[1].id : dcs.front();
  if (b.contains("mounts") && b["mounts"].contains("network") && !b["mounts"]["network"].empty()) {
    const json& n = b["mounts"]["network"][0];
    auto v = state.volume(kProvider, n["volumeId"]);
    if (!v)
      return fail(res, 404, "network volume " + n["volumeId"].get<std::string>() + " not found");
    if (!dcs.empty() && std::find(dcs.begin(), dcs.end(), v->region) == dcs.end())
      return fail(
          res, 400,
          "network volume " + v->id + " is in " + v->region + ", which is not in dataCenterIds");
    p.volume_id = v->id;
    p.mount_path = n["path"];
    p.region = v->region;
  }
  if (!valid_dc(p.region)) return fail(res, 400, "unknown data center \"" + p.region + "\"");
  if (!gpu && find_cpu(p.gpu_type)->not_in == p.region)
    return fail(res, 400, no_capacity_detail);  // the flavour is not offered there
  if (b.value("startSsh", false) && !p.env.count("PUBLIC_KEY")) {
    std::string keys;  // startSsh without registered keys does nothing
    for (const auto& k : state.account_keys(kProvider)) keys += (keys.empty() ? "" : "\n") + k;
    if (!keys.empty()) p.env["PUBLIC_KEY"] = keys;
  }
  runpod_ssh_server(b.value("args", ""), &p);
  p.extra = b;
  auto made = state.create_pod(p);
  if (!made.ok() && made.error().code == ErrorCode::kNoCapacity)  // Faults::capacity
    return fail(res, 400, no_capacity_detail);
  if (!made.ok()) return fail(res, 500, made.error().message);
  if (state.take_create_timeout(kProvider)) sleep_ms(f.hang_ms);  // made, but answers too late
  send_json(res, 201, pod_json(*made, state.clock().now()));
}

void install(httplib::Server& s, CloudState& state, const std::string& prefix) {
  install_runpod_graphql(s, state, prefix);  // spot pods (runpod_graphql.cpp)
  const std::string v2 = prefix + "/v2";
  install_runpod_catalog(s, state, v2);  // gpus, cpus, data centres (runpod_catalog_api.cpp)
  s.Get(v2 + "/network-volumes", [&state](const httplib::Request&, httplib::Response& r) {
    json vols = json::array();
    for (const auto& v : state.volumes(kProvider)) vols.push_back(volume_json(v));
    send_json(r, 200, {{"networkVolumes", vols}});
  });
  s.Post(v2 + "/network-volumes",
         [&state](const httplib::Request& q, httplib::Response& r) { create_volume(state, q, r); });
  s.Get(v2 + R"(/network-volumes/([^/]+))",
        [&state](const httplib::Request& q, httplib::Response& r) {
          auto v = state.volume(kProvider, q.matches[1]);
          if (!v) return fail(r, 404, "network volume not found");
          send_json(r, 200, volume_json(*v));
        });
  s.Get(v2 + "/account/ssh-keys", [&state](const httplib::Request&, httplib::Response& r) {
    send_json(r, 200, account_keys_json(state));
  });
  s.Put(v2 + "/account/ssh-keys", [&state](const httplib::Request& q, httplib::Response& r) {
    put_account_keys(state, q, r);
  });
  s.Delete(v2 + R"(/network-volumes/([^/]+))",
           [&state](const httplib::Request& q, httplib::Response& r) {
             Status st = state.delete_volume(kProvider, q.matches[1]);
             if (!st.ok() && st.error().code == ErrorCode::kNotFound)
               return fail(r, 404, "network volume not found");
             if (!st.ok()) return fail(r, 400, st.error().message);
             r.status = 204;  // "Deleted. Response has no body." (RPv2 deleteNetworkVolume)
           });
  s.Get(v2 + "/pods", [&state](const httplib::Request&, httplib::Response& r) {
    auto pods = state.pods(kProvider);
    if (answer_list_fault(state.faults(kProvider), R"({"pods":[]})", r)) return;
    if (state.faults(kProvider).malformed_list) {
      r.status = 200;
      r.set_content(R"({"pods":[{"id":"x7","name":"burst-)", "application/json");
      return;
    }
    json arr = json::array();
    for (const auto& p : pods) arr.push_back(pod_json(p, state.clock().now()));
    send_json(r, 200, {{"pods", arr}});
  });
  s.Post(v2 + "/pods",
         [&state](const httplib::Request& q, httplib::Response& r) { create_pod(state, q, r); });
  s.Get(v2 + R"(/pods/([^/]+))", [&state](const httplib::Request& q, httplib::Response& r) {
    auto p = state.pod(kProvider, q.matches[1]);
    if (!p || p->phase == Phase::kTerminated) return fail(r, 404, "pod not found");
    send_json(r, 200, pod_json(*p, state.clock().now()));
  });
  s.Delete(v2 + R"(/pods/([^/]+))", [&state](const httplib::Request& q, httplib::Response& r) {
    if (!state.delete_pod(kProvider, q.matches[1])) return fail(r, 404, "pod not found");
    r.status = 204;
  });
}

}  // namespace

void runpod_fail(httplib::Response& res, int status, const std::string& detail) {
  fail(res, status, detail);
}

extern const ApiModule kRunpodModule;
const ApiModule kRunpodModule = {kProvider, &install, &error_body, "application/problem+json",
                                 nullptr};

}  // namespace burst::fakecloud

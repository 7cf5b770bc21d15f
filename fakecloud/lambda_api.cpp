// Lambda Cloud API v1, as the emulator serves it under /lambda: the paths, field names, status
// codes, {"data": ...} envelopes, {"error": {code, message, suggestion}} bodies and the instance
// lifecycle (booting -> active -> terminating -> terminated) of Lambda's published OpenAPI spec
// (Lambda Cloud API 1.8.3; digest in shared/provider-apis/REFERENCE.md §3). Served: instance
// types, launch, instances (list, get), terminate, SSH keys (list, add, delete), file systems
// (list, create, delete). Not served: restart, rename, images, firewall rules, audit events. The
// instance types and prices below are the emulator's own illustrative numbers, not Lambda's.
#include <algorithm>
#include <optional>
#include <regex>

#include "api_module.h"
#include "body_cache.h"

namespace burst::fakecloud {
namespace {

using nlohmann::json;
const char* const kProvider = "lambda";

struct TypeKind {
  const char* name;
  const char* gpu_description;
  int cents;
  int gpus;
};
const TypeKind kTypes[] = {
    {"gpu_1x_a10", "A10 (24 GB PCIe)", 75, 1},
    {"gpu_1x_a6000", "RTX A6000 (48 GB)", 80, 1},
    {"gpu_1x_a100_sxm4", "A100 (40 GB SXM4)", 129, 1},
    {"gpu_1x_gh200", "GH200 (96 GB)", 149, 1},
    {"gpu_1x_h100_pcie", "H100 (80 GB PCIe)", 249, 1},
    {"gpu_8x_h100_sxm5", "H100 (80 GB SXM5)", 2392, 8},
};

struct Region {
  const char* name;
  const char* description;
};
const Region kRegions[] = {{"us-east-1", "Virginia, USA"}, {"us-west-1", "California, USA"}};

// A suggestion for every error: the spec requires `suggestion` in several error schemas (e.g.
// ApiErrorLaunchResourceNotFound, ApiErrorInternal, ApiErrorUnauthorized) and allows it in the
// rest, so the emulator always sends one.
std::string default_suggestion(const std::string& code) {
  if (code == "global/object-does-not-exist") return "Check the name or ID and try again.";
  if (code == "global/invalid-parameters") return "Check the request body against the API docs.";
  if (code == "global/duplicate") return "Choose a different name.";
  if (code == "instance-operations/launch/insufficient-capacity")
    return "Choose an instance type with more availability, or try again later.";
  if (code == "instance-operations/launch/file-system-in-wrong-region")
    return "Launch in the file system's region, or use a file system in this region.";
  if (code == "filesystems/filesystem-in-use") return "Terminate the instances that use it first.";
  if (code == "global/internal-error") return "Try again shortly.";
  return "Try again shortly.";
}

json error_json(const std::string& code, const std::string& message,
                const std::string& suggestion = "") {
  json e = {{"code", code},
            {"message", message},
            {"suggestion", suggestion.empty() ? default_suggestion(code) : suggestion}};
  return {{"error", e}};
}

std::string error_body(int status, const std::string& detail) {
  if (status == 401)
    return error_json("global/invalid-api-key", "API key was invalid, expired, or deleted.",
                      "Check your API key.")
        .dump();
  if (status == 429)  // the spec documents no 429 body; this shape is the emulator's guess
    return error_json("global/rate-limited", "Too many requests", detail).dump();
  return error_json("provider/internal-unavailable", "Provider unavailable", "Try again shortly")
      .dump();
}

void fail(httplib::Response& res, int status, const std::string& code, const std::string& message,
          const std::string& suggestion = "") {
  send_json(res, status, error_json(code, message, suggestion));
}

void invalid(httplib::Response& res, const std::string& why) {
  fail(res, 400, "global/invalid-parameters", "Invalid request data.", why);
}

const Region* find_region(const std::string& name) {
  for (const auto& r : kRegions)
    if (name == r.name) return &r;
  return nullptr;
}

json region_json(const std::string& name) {
  const Region* r = find_region(name);
  return {{"name", name}, {"description", r ? r->description : name}};
}

json type_json(const TypeKind& t) {
  return {{"name", t.name},
          {"description", std::to_string(t.gpus) + "x " + t.gpu_description},
          {"gpu_description", t.gpu_description},
          {"price_cents_per_hour", t.cents},
          {"specs",
           {{"vcpus", 30 * t.gpus},
            {"memory_gib", 200 * t.gpus},
            {"storage_gib", 1400 * t.gpus},
            {"gpus", t.gpus}}}};
}

// Synthetic types for benchmarks (extra_offers), named like Lambda's.
std::vector<TypeKind> all_types(const Faults& f, std::vector<std::string>* names) {
  std::vector<TypeKind> out(std::begin(kTypes), std::end(kTypes));
  names->clear();
  for (int i = 0; i < f.extra_offers; ++i) names->push_back("gpu_1x_fake" + std::to_string(i));
  for (int i = 0; i < f.extra_offers; ++i)
    out.push_back({(*names)[i].c_str(), "FAKE (24 GB)", 20 + (i % 97) * 3, 1});
  return out;
}

std::optional<TypeKind> find_type(const Faults& f, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& t : all_types(f, &names))
    if (name == t.name) return TypeKind{nullptr, nullptr, t.cents, t.gpus};  // names die here
  return std::nullopt;
}

// Registered SSH keys live in CloudState's account keys as "id\tname\tpublic_key".
struct Key {
  std::string id, name, public_key;
};
std::vector<Key> keys(CloudState& state) {
  std::vector<Key> out;
  for (const auto& k : state.account_keys(kProvider)) {
    const size_t a = k.find('\t'), b = k.find('\t', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    out.push_back({k.substr(0, a), k.substr(a + 1, b - a - 1), k.substr(b + 1)});
  }
  return out;
}

const char* status_of(const FakePod& p) {
  if (p.phase == Phase::kTerminated) return "terminated";
  if (p.lingering_reads >= 0) return "terminating";  // deleted, still running a while
  if (p.phase == Phase::kRunning) return "active";
  return "booting";
}

json instance_json(const FakePod& p) {
  const std::string status = status_of(p);
  const json& rq = p.extra;
  json fs_names = json::array();
  json j = {{"id", p.id},
            {"name", p.name},
            {"status", status},
            {"ssh_key_names", rq.value("ssh_key_names", json::array())},
            {"file_system_names", fs_names},
            {"region", region_json(p.region)},
            {"instance_type", rq.value("_type", json::object())},
            {"is_reserved", false},
            {"actions",
             {{"migrate", {{"available", false}}},
              {"rebuild", {{"available", false}}},
              {"restart", {{"available", status == "active"}}},
              {"cold_reboot", {{"available", status == "active"}}},
              {"terminate", {{"available", status == "booting" || status == "active"}}}}}};
  if (!p.volume_id.empty()) {
    j["file_system_names"] = json::array({rq.value("_fs_name", "")});
    j["file_system_mounts"] =
        json::array({{{"mount_point", p.mount_path}, {"file_system_id", p.volume_id}}});
  }
  // The ip appears once the VM has booted. The loopback sshd cannot listen on 22, so the
  // emulator adds its one non-Lambda field, fakecloud_ssh_port (docs/providers.md, "Lambda").
  if ((status == "active" || status == "terminating") && p.ssh.port > 0) {
    j["ip"] = p.ssh.host;
    j["private_ip"] = p.ssh.host;
    j["hostname"] = p.ssh.host;
    j["fakecloud_ssh_port"] = p.ssh.port;
  }
  return j;
}

json filesystem_json(CloudState& state, const FakeVolume& v) {
  bool in_use = false;
  for (const auto& p : state.pods(kProvider)) in_use = in_use || p.volume_id == v.id;
  return {{"id", v.id},
          {"name", v.name},
          {"mount_point", "/lambda/nfs/" + v.name},
          {"created", "2026-11-22T00:00:00Z"},
          {"created_by",
           {{"id", "0000000000000000000000000000000a"},
            {"email", "burst@example.com"},
            {"status", "active"}}},
          {"is_in_use", in_use},
          {"region", region_json(v.region)},
          {"bytes_used", 0}};
}

bool only_known(const json& b, std::initializer_list<const char*> known, httplib::Response& res) {
  for (const auto& [k, v] : b.items()) {
    bool ok = false;
    for (const char* n : known) ok = ok || k == n;
    if (!ok) {
      invalid(res, "unknown field \"" + k + "\"");
      return false;
    }
  }
  return true;
}

void launch(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  json b = json::parse(req.body, nullptr, false);
  if (b.is_discarded() || !b.is_object()) return invalid(res, "the body is not a JSON object");
  if (!only_known(b,
                  {"region_name", "instance_type_name", "ssh_key_names", "file_system_names",
                   "file_system_mounts", "hostname", "name", "image", "user_data", "tags",
                   "firewall_rulesets"},
                  res))
    return;
  for (const char* k : {"region_name", "instance_type_name", "ssh_key_names"})
    if (!b.contains(k)) return invalid(res, std::string("missing field \"") + k + "\"");
  if (!b["region_name"].is_string() || !find_region(b["region_name"]))
    return invalid(res, "region_name: not a region code");
  if (!b["instance_type_name"].is_string()) return invalid(res, "instance_type_name: a string");
  if (!b["ssh_key_names"].is_array() || b["ssh_key_names"].size() != 1 ||
      !b["ssh_key_names"][0].is_string())
    return invalid(res, "ssh_key_names: exactly one SSH key must be specified");
  if (b.contains("name") && (!b["name"].is_string() || b["name"].get<std::string>().size() > 64))
    return invalid(res, "name: a string of at most 64 characters");
  const Faults f = state.faults(kProvider);
  const std::string type_name = b["instance_type_name"];
  auto type = find_type(f, type_name);
  if (!type) return fail(res, 404, "global/object-does-not-exist", "Instance type not found.");
  const std::string region = b["region_name"];
  if (f.no_capacity.count(type_name))
    return fail(res, 400, "instance-operations/launch/insufficient-capacity",
                "Not enough capacity to fulfill launch request.",
                "Choose an instance type with more availability, or try again later.");
  std::optional<Key> key;
  for (const auto& k : keys(state))
    if (k.name == b["ssh_key_names"][0]) key = k;
  if (!key) return fail(res, 400, "global/object-does-not-exist", "SSH key not found.");
  FakePod p;
  p.provider = kProvider;
  p.name = b.value("name", "");
  p.gpu = true;
  p.gpu_type = type_name;
  p.gpu_count = type->gpus;
  p.region = region;
  p.public_key = key->public_key;
  p.usd_per_hour = type->cents / 100.0;
  p.ports = {"22/tcp"};
  // The VM's image ships docker with the NVIDIA runtime (REFERENCE.md §3.2): here the strict
  // shim (docker_shim.h), first on the VM's PATH.
  auto docker = state.vm_docker_bin();
  if (!docker.ok()) return fail(res, 500, "global/internal-error", docker.error().message);
  p.env["PATH"] = *docker + ":/usr/local/bin:/usr/bin:/bin";
  // This VM's faults, read by the shim (Faults::no_nvidia_runtime, volume_root_squash).
  std::string vm_faults;
  if (f.no_nvidia_runtime) vm_faults += " no-nvidia-runtime";
  if (f.volume_root_squash) vm_faults += " root-squash";
  if (!vm_faults.empty()) p.env["FAKECLOUD_VM_FAULTS"] = vm_faults.substr(1);
  json extra = b;
  std::vector<std::string> names;
  for (const auto& t : all_types(f, &names))
    if (type_name == t.name) extra["_type"] = type_json(t);
  if (b.contains("file_system_names")) {
    if (!b["file_system_names"].is_array() || b["file_system_names"].size() > 1)
      return invalid(res, "file_system_names: an array of names (the emulator mounts one)");
    for (const auto& n : b["file_system_names"]) {
      if (!n.is_string()) return invalid(res, "file_system_names: an array of strings");
      std::optional<FakeVolume> fs;
      for (const auto& v : state.volumes(kProvider))
        if (v.name == n) fs = v;
      if (!fs) return fail(res, 400, "global/object-does-not-exist", "Filesystem was not found.");
      if (fs->region != region)
        return fail(res, 400, "instance-operations/launch/file-system-in-wrong-region",
                    "File system " + fs->name + " is in " + fs->region + ", not " + region + ".");
      p.volume_id = fs->id;
      p.mount_path = "/lambda/nfs/" + fs->name;  // Lambda's fixed default mount point
      extra["_fs_name"] = fs->name;
    }
  }
  p.extra = extra;
  auto made = state.create_pod(p);
  if (!made.ok() && made.error().code == ErrorCode::kNoCapacity)  // Faults::capacity
    return fail(res, 400, "instance-operations/launch/insufficient-capacity",
                "Not enough capacity to fulfill launch request.",
                "Choose an instance type with more availability, or try again later.");
  if (!made.ok()) return fail(res, 500, "global/internal-error", made.error().message);
  if (state.take_create_timeout(kProvider)) sleep_ms(f.hang_ms);  // made, but answers too late
  send_json(res, 200, {{"data", {{"instance_ids", json::array({made->id})}}}});
}

void terminate(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  json b = json::parse(req.body, nullptr, false);
  if (b.is_discarded() || !b.is_object() || !b.contains("instance_ids") ||
      !b["instance_ids"].is_array() || b["instance_ids"].empty())
    return invalid(res, "instance_ids: a non-empty array of instance ids");
  if (!only_known(b, {"instance_ids"}, res)) return;
  for (const auto& id : b["instance_ids"]) {
    auto p = id.is_string() ? state.pod(kProvider, id) : std::nullopt;
    if (!p || p->phase == Phase::kTerminated)
      return fail(res, 404, "global/object-does-not-exist", "Specified instance does not exist.");
  }
  json done = json::array();
  for (const auto& id : b["instance_ids"]) {
    state.delete_pod(kProvider, id);
    auto p = state.pod(kProvider, id);
    json j = instance_json(*p);
    if (j["status"] == "terminated") j["status"] = "terminating";  // as the terminate answer says
    done.push_back(j);
  }
  send_json(res, 200, {{"data", {{"terminated_instances", done}}}});
}

void add_key(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  json b = json::parse(req.body, nullptr, false);
  if (b.is_discarded() || !b.is_object()) return invalid(res, "the body is not a JSON object");
  if (!only_known(b, {"name", "public_key"}, res)) return;
  if (!b.contains("name") || !b["name"].is_string() || b["name"].get<std::string>().empty() ||
      b["name"].get<std::string>().size() > 64)
    return invalid(res, "name: 1 to 64 characters");
  if (!b.contains("public_key") || !b["public_key"].is_string())
    return invalid(res, "public_key: the emulator does not generate key pairs");
  const std::string pub = b["public_key"];
  if (pub.empty() || pub.size() > 4096 || pub.find('\n') != std::string::npos)
    return invalid(res, "public_key: one line of 1 to 4096 characters");
  // global/duplicate (LAM error table) for the name, and for the key itself: a client that looks
  // for its key by name only is refused when the user registered it under another name (SkyPilot
  // finds an existing key by its public_key for this reason; REFERENCE §3.7). Keys compare by
  // type and base64, as OpenSSH does.
  auto body_of = [](const std::string& key) {
    const size_t a = key.find(' ');
    const size_t b2 = a == std::string::npos ? a : key.find(' ', a + 1);
    return key.substr(0, b2);
  };
  for (const auto& k : keys(state)) {
    if (k.name == b["name"])
      return fail(res, 400, "global/duplicate", "An SSH key with this name already exists.");
    if (body_of(k.public_key) == body_of(pub))
      return fail(res, 400, "global/duplicate", "An SSH key with this public key already exists.");
  }
  const std::string id = state.new_id(32);
  state.add_account_key(kProvider, id + "\t" + b["name"].get<std::string>() + "\t" + pub);
  send_json(res, 200, {{"data", {{"id", id}, {"name", b["name"]}, {"public_key", pub}}}});
}

void create_filesystem(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  json b = json::parse(req.body, nullptr, false);
  if (b.is_discarded() || !b.is_object()) return invalid(res, "the body is not a JSON object");
  if (!only_known(b, {"name", "region"}, res)) return;
  static const std::regex kName("^[a-zA-Z]+[0-9a-zA-Z-]*$");
  if (!b.contains("name") || !b["name"].is_string() || b["name"].get<std::string>().size() > 60 ||
      !std::regex_match(b["name"].get<std::string>(), kName))
    return invalid(res, "name: 1 to 60 characters matching ^[a-zA-Z]+[0-9a-zA-Z-]*$");
  if (!b.contains("region") || !b["region"].is_string() || !find_region(b["region"]))
    return invalid(res, "region: not a region code");
  for (const auto& v : state.volumes(kProvider))
    if (v.name == b["name"])
      return fail(res, 400, "global/duplicate", "A filesystem with this name already exists.");
  auto v = state.create_volume(kProvider, b["name"], b["region"], 0, state.new_id(32));
  if (!v.ok()) return fail(res, 500, "global/internal-error", v.error().message);
  send_json(res, 200, {{"data", filesystem_json(state, *v)}});
}

void install(httplib::Server& s, CloudState& state, const std::string& prefix) {
  const std::string v1 = prefix + "/api/v1";
  auto types = std::make_shared<BuiltOnce<std::string>>();
  s.Get(v1 + "/instance-types", [&state, types](const httplib::Request&, httplib::Response& r) {
    const Faults f = state.faults(kProvider);
    // The answer depends only on these knobs: serialized once per change.
    std::string key = std::to_string(f.extra_offers);
    for (const auto& n : f.no_capacity) key += "\n" + n;
    auto body = types->get(key, [&f] {
      json data = json::object();
      std::vector<std::string> names;
      for (const auto& t : all_types(f, &names)) {
        json regions = json::array();
        if (!f.no_capacity.count(t.name))
          for (const auto& reg : kRegions)
            regions.push_back({{"name", reg.name}, {"description", reg.description}});
        data[t.name] = {{"instance_type", type_json(t)},
                        {"regions_with_capacity_available", regions}};
      }
      return json{{"data", data}}.dump();
    });
    r.status = 200;
    r.set_content(*body, "application/json");
  });
  s.Post(v1 + "/instance-operations/launch",
         [&state](const httplib::Request& q, httplib::Response& r) { launch(state, q, r); });
  s.Post(v1 + "/instance-operations/terminate",
         [&state](const httplib::Request& q, httplib::Response& r) { terminate(state, q, r); });
  s.Get(v1 + "/instances", [&state](const httplib::Request&, httplib::Response& r) {
    auto pods = state.pods(kProvider);
    if (answer_list_fault(state.faults(kProvider), R"({"data":[]})", r)) return;
    if (state.faults(kProvider).malformed_list) {
      r.status = 200;
      r.set_content(R"({"data":[{"id":"0920582c7ff0","name":"burst-)", "application/json");
      return;
    }
    json arr = json::array();
    for (const auto& p : pods) arr.push_back(instance_json(p));
    send_json(r, 200, {{"data", arr}});
  });
  s.Get(v1 + R"(/instances/([^/]+))", [&state](const httplib::Request& q, httplib::Response& r) {
    auto p = state.pod(kProvider, q.matches[1]);
    if (!p)
      return fail(r, 404, "global/object-does-not-exist", "Specified instance does not exist.");
    send_json(r, 200, {{"data", instance_json(*p)}});
  });
  s.Get(v1 + "/ssh-keys", [&state](const httplib::Request&, httplib::Response& r) {
    json arr = json::array();
    for (const auto& k : keys(state))
      arr.push_back({{"id", k.id}, {"name", k.name}, {"public_key", k.public_key}});
    send_json(r, 200, {{"data", arr}});
  });
  s.Post(v1 + "/ssh-keys",
         [&state](const httplib::Request& q, httplib::Response& r) { add_key(state, q, r); });
  s.Get(v1 + "/file-systems", [&state](const httplib::Request&, httplib::Response& r) {
    json arr = json::array();
    for (const auto& v : state.volumes(kProvider)) arr.push_back(filesystem_json(state, v));
    send_json(r, 200, {{"data", arr}});
  });
  s.Post(v1 + "/filesystems", [&state](const httplib::Request& q, httplib::Response& r) {
    create_filesystem(state, q, r);
  });
  // DELETE /filesystems/{id} (Lambda 1.8.3): {"data":{"deleted_ids":[id]}}; mounted: 400
  // filesystems/filesystem-in-use; unknown: 404 global/object-does-not-exist.
  s.Delete(v1 + R"(/filesystems/([^/]+))",
           [&state](const httplib::Request& q, httplib::Response& r) {
             const std::string id = q.matches[1];
             Status st = state.delete_volume(kProvider, id);
             if (!st.ok() && st.error().code == ErrorCode::kNotFound)
               return fail(r, 404, "global/object-does-not-exist", "Filesystem was not found.");
             if (!st.ok())
               return fail(r, 400, "filesystems/filesystem-in-use",
                           "Filesystems that are mounted cannot be deleted.");
             send_json(r, 200, {{"data", {{"deleted_ids", json::array({id})}}}});
           });
}

}  // namespace

extern const ApiModule kLambdaModule;
const ApiModule kLambdaModule = {kProvider, &install, &error_body, "application/json", nullptr};

}  // namespace burst::fakecloud

// Vast.ai, as the emulator serves it under /vast: the paths (with or without the trailing slash
// clients send), field names, status codes, error bodies and instance lifecycle of Vast's
// published OpenAPI spec (shared/provider-apis/vast/openapi.yaml; digest in REFERENCE.md §4).
// Served: offer search (POST /api/v0/bundles/: vast_offers.cpp, with the machines and error
// bodies), create (PUT /api/v0/asks/{id}/), get / destroy (/api/v0/instances/{id}/), the paged
// v1 list (GET /api/v1/instances/, 25 a page, next_token), account SSH keys (/api/v0/ssh/),
// volumes local to one machine (search, rent, list), and interruptible instances: a `type: "bid"`
// search prices offers at `min_bid`, a create with `price` (>= the offer's min_bid) rents one, and
// Faults::preempt_bids takes it back the way an outbid instance is stopped (CloudState::preempt;
// instance_json below). Not served: stop/start, templates, changing a bid, network volumes.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include "api_module.h"
#include "body_cache.h"
#include "vast_offers.h"

namespace burst::fakecloud {
namespace {

using nlohmann::json;
using vast::error_body;
using vast::fail;
using vast::image_cuda;
using vast::kProvider;
using vast::kStorageCost;
using vast::Machine;
using vast::machine_by_id;
using vast::matches;
using vast::offer_table;
using vast::OfferTable;
using vast::refused_key_status;
using vast::search_offers;

// actual_status: null while provisioning, "loading" for the second half of the boot delay,
// "running" once the SSH endpoint is up (REFERENCE §4.4.1).
json actual_status(const FakePod& p, TimePoint now) {
  if (p.phase == Phase::kRunning) return "running";
  if (p.ready_at != TimePoint::max() && now >= p.created + (p.ready_at - p.created) / 2)
    return "loading";
  return nullptr;
}

json instance_json(const FakePod& p, TimePoint now) {
  const json& x = p.extra;
  // Outbid (CloudState::preempt): "Your instance is stopped (killing running processes)"
  // (docs.vast.ai FAQ, rental types); stopped as contract, container and intent alike, which is
  // how dstack reads an interrupted instance (REFERENCE §4.4.1). The status_msg words are the
  // emulator's own.
  if (p.preempted && p.phase != Phase::kTerminated)
    return {{"id", std::stol(p.id)},
            {"label", p.name},
            {"actual_status", "stopped"},
            {"intended_status", "stopped"},
            {"cur_state", "stopped"},
            {"next_state", "stopped"},
            {"status_msg", "stopped: outbid by a higher priority rental"},
            {"is_bid", x.value("is_bid", false)},
            {"min_bid", x.value("min_bid", 0.0)},
            {"machine_id", x.value("machine_id", 0L)},
            {"gpu_name", p.gpu_type},
            {"gpu_ram", x.value("gpu_ram", 0)},
            {"num_gpus", p.gpu_count},
            {"dph_total", p.usd_per_hour},
            {"geolocation", x.value("geolocation", "")},
            {"image_uuid", p.image}};
  // A container that could not start (Faults::start_error): the instance stays "created" and
  // status_msg carries the runtime's error, as dstack reads it (REFERENCE §4.4.1).
  const bool start_failed = x.contains("start_error") && p.phase != Phase::kTerminated;
  const json status = start_failed ? json("created") : actual_status(p, now);
  const bool running = status == "running";
  json extra_env = json::array();
  for (const auto& [k, v] : p.env) extra_env.push_back({k, v});
  json ports = nullptr;
  if (running && p.ssh.port > 0 && x.value("runtype", "").find("direct") != std::string::npos &&
      x.value("direct_ports", 1) > 0)
    ports = json::object(
        {{"22/tcp", json::array({json::object(
                        {{"HostIp", "0.0.0.0"}, {"HostPort", std::to_string(p.ssh.port)}})})}});
  json out = {{"id", std::stol(p.id)},
              {"label", p.name},
              {"actual_status", status},
              {"intended_status", "running"},
              {"cur_state", "running"},
              {"next_state", "running"},
              {"status_msg", start_failed ? x["start_error"]
                             : running    ? json("success, running")
                                          : json("Pulling image")},
              {"image_uuid", p.image},
              {"image_runtype", x.value("runtype", "ssh")},
              {"extra_env", extra_env},
              {"onstart", x.value("onstart", json(nullptr))},
              {"machine_id", x.value("machine_id", 0L)},
              {"gpu_name", p.gpu_type},
              {"gpu_ram", x.value("gpu_ram", 0)},
              {"num_gpus", p.gpu_count},
              {"dph_total", p.usd_per_hour},
              {"is_bid", x.value("is_bid", false)},
              {"min_bid", x.value("min_bid", 0.0)},
              {"geolocation", x.value("geolocation", "")},
              {"ssh_idx", "1"},
              {"disk_space", x.value("disk", 8.0)},
              {"start_date", std::chrono::duration<double>(p.created.time_since_epoch()).count()}};
  // The spec types public_ipaddr and ssh_host as string and ssh_port as integer, not nullable:
  // while the instance loads they are absent, never null. `ports` is "only present on running
  // instances" (showInstances' schema).
  if (running) {
    out["public_ipaddr"] = p.ssh.host + "\n";  // stray whitespace, as Vast sends (§4.4)
    out["ssh_host"] = p.ssh.host;
    out["ssh_port"] = p.ssh.port;
    if (!ports.is_null()) out["ports"] = ports;
  }
  return out;
}

// createInstance's body fields (REFERENCE §4.3); anything else is refused so a driver typo shows.
const char* const kCreateFields[] = {"image",          "template_hash_id",
                                     "label",          "disk",
                                     "runtype",        "target_state",
                                     "price",          "env",
                                     "cancel_unavail", "vm",
                                     "onstart",        "args",
                                     "args_str",       "use_jupyter_lab",
                                     "jupyter_dir",    "python_utf8",
                                     "lang_utf8",      "force",
                                     "user",           "image_login",
                                     "volume_info"};
const char* const kRuntypes[] = {"ssh",        "jupyter",       "args",          "ssh_proxy",
                                 "ssh_direct", "jupyter_proxy", "jupyter_direct"};

void create_instance(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  const long ask = std::stol(req.matches[1]);
  json b = json::parse(req.body, nullptr, false);
  if (b.is_discarded() || !b.is_object())
    return fail(res, 400, "invalid_args", "error 400/3467: Invalid args: body is not a JSON object",
                {{"ask_id", ask}});
  for (const auto& [k, v] : b.items())
    if (std::none_of(std::begin(kCreateFields), std::end(kCreateFields),
                     [&key = k](const char* f) { return key == f; }))
      return fail(res, 400, "invalid_args",
                  "error 400/3467: Invalid args: unknown field '" + k + "'", {{"ask_id", ask}});
  auto bad = [&](const std::string& what) {
    fail(res, 400, "invalid_args", "error 400/3467: Invalid args: " + what, {{"ask_id", ask}});
  };
  if (!b.value("image", json()).is_string() && !b.contains("template_hash_id"))
    return bad("image is required");
  if (b.contains("label") && !b["label"].is_string()) return bad("label must be a string");
  if (b.contains("disk") && !b["disk"].is_number()) return bad("disk must be a number");
  if (b.contains("onstart") && !b["onstart"].is_string()) return bad("onstart must be a string");
  if (b.contains("cancel_unavail") && !b["cancel_unavail"].is_boolean())
    return bad("cancel_unavail must be a boolean");
  // price: "Bid price per machine (in $/hour). Only for interruptible instances", 0.001..128.
  if (b.contains("price") &&
      (!b["price"].is_number() || b["price"].get<double>() < 0.001 || b["price"] > 128.0))
    return bad("price must be a number from 0.001 to 128");
  const std::string runtype = b.value("runtype", "ssh");
  if (std::none_of(std::begin(kRuntypes), std::end(kRuntypes),
                   [&](const char* r) { return runtype == r; }))
    return bad("runtype must be one of ssh, jupyter, args, ssh_proxy, ssh_direct, ...");
  std::map<std::string, std::string> env;
  std::vector<std::string> ports;
  if (runtype.find("ssh") != std::string::npos) ports.push_back("22/tcp");
  if (b.contains("env")) {
    if (!b["env"].is_object()) return bad("env must be an object (dict), not a string");
    for (const auto& [k, v] : b["env"].items()) {
      if (!v.is_string()) return bad("env values must be strings");
      if (k.rfind("-p ", 0) == 0)
        ports.push_back(k.substr(3, k.find(':') - 3) + "/tcp");
      else
        env[k] = v.get<std::string>();
    }
  }

  std::optional<json> offer;
  for (auto& o : offer_table(state, b.value("disk", 8.0), false))
    if (o.obj["id"] == ask) offer = std::move(o.obj);
  if (!offer)
    return fail(res, 404, "invalid_args",
                "error 404/3603: no_such_ask Instance type by id " + std::to_string(ask) +
                    " is not available.",
                {{"ask_id", ask}});
  if ((*offer)["rented"] == true)
    return fail(res, 410, "no_such_ask",
                "error 410/3907: no_such_ask Instance type " + std::to_string(ask) +
                    " is no longer available.",
                {{"ask_id", ask}});
  const long machine = (*offer)["machine_id"];
  const bool bid = b.contains("price");
  const double min_bid = (*offer)["min_bid"];
  // A bid below the host's floor is refused (dstack: Vast "returns an error if the bid is
  // insufficient"; REFERENCE §4.3).
  if (bid && b["price"].get<double>() < min_bid - 1e-9)
    return fail(res, 400, "invalid_args",
                "error 400/3467: Invalid args: bid " + b["price"].dump() +
                    " is below the offer's min_bid " + (*offer)["min_bid"].dump(),
                {{"ask_id", ask}});

  FakePod p;
  p.provider = kProvider;
  p.id = state.new_id(8, true);
  p.name = b.value("label", "");
  p.gpu = true;
  p.gpu_type = (*offer)["gpu_name"];
  p.gpu_count = (*offer)["num_gpus"];
  p.image = b.value("image", "");
  p.env = env;
  p.ports = ports;
  p.region = std::to_string(machine);
  p.usd_per_hour = (*offer)["dph_total"];
  if (bid)  // the bid replaces the GPU part of the price; storage is billed as before
    p.usd_per_hour =
        b["price"].get<double>() + (p.usd_per_hour - (*offer)["dph_base"].get<double>());
  if (b.contains("volume_info")) {
    const json& vi = b["volume_info"];
    if (!vi.is_object() || !vi.value("volume_id", json()).is_number_integer() ||
        !vi.value("mount_path", json()).is_string())
      return bad("volume_info needs an integer volume_id and a string mount_path");
    const std::string vid = std::to_string(vi["volume_id"].get<long>());
    if (vi.value("create_new", false)) {
      auto v = state.create_volume(kProvider, "", std::to_string(machine), vi.value("size", 15),
                                   state.new_id(8, true));
      if (!v.ok()) return fail(res, 500, "server_error", v.error().message);
      p.volume_id = v->id;
    } else {
      auto v = state.volume(kProvider, vid);
      if (!v) return bad("volume " + vid + " does not exist");
      // Vast volumes are local to one machine (REFERENCE §4.7).
      if (v->region != std::to_string(machine))
        return bad("volume " + vid + " is on machine " + v->region + ", not on machine " +
                   std::to_string(machine) + " of offer " + std::to_string(ask));
      p.volume_id = v->id;
    }
    p.mount_path = vi["mount_path"];
  }
  std::string keys;
  for (const auto& k : state.account_keys(kProvider)) keys += (keys.empty() ? "" : "\n") + k;
  p.public_key = keys;  // account keys reach new instances
  p.extra = {{"ask_id", ask},
             {"machine_id", machine},
             {"gpu_ram", (*offer)["gpu_ram"]},
             {"geolocation", (*offer)["geolocation"]},
             {"runtype", runtype},
             {"disk", b.value("disk", 8.0)},
             {"onstart", b.value("onstart", json(nullptr))},
             {"is_bid", bid},
             {"min_bid", min_bid}};
  const Faults f = state.faults(kProvider);
  if (!f.start_error.empty() && (f.start_error_machine == 0 || f.start_error_machine == machine))
    p.extra["start_error"] = f.start_error;
  if (const Machine* m = machine_by_id(machine)) {
    p.extra["direct_ports"] = m->direct_ports;
    char need[16];
    if (const double cuda = image_cuda(p.image); cuda > m->cuda + 1e-9) {
      std::snprintf(need, sizeof need, "%.1f", cuda);
      p.extra["start_error"] =
          "Error response from daemon: failed to create task for container: failed to create "
          "shim task: OCI runtime create failed: runc create failed: unable to start container "
          "process: error during container init: error running hook #0: error running hook: exit "
          "status 1, stdout: , stderr: Auto-detected mode as 'legacy' nvidia-container-cli: "
          "requirement error: unsatisfied condition: cuda>=" +
          std::string(need) + ", please update your driver to a newer version: unknown";
    }
  }
  auto made = state.create_pod(p);
  if (!made.ok() && made.error().code == ErrorCode::kNoCapacity)  // Faults::capacity
    return fail(res, 410, "no_such_ask",
                "error 410/3907: no_such_ask Instance type " + std::to_string(ask) +
                    " is no longer available.",
                {{"ask_id", ask}});
  if (!made.ok()) return fail(res, 500, "server_error", made.error().message);
  if (bid && f.preempt_bids > 0 &&
      made->ready_at != TimePoint::max()) {  // Faults::preempt_bids, used up one instance at a time
    Faults left = state.faults(kProvider);
    left.preempt_bids = std::max(0, left.preempt_bids - 1);
    state.set_faults(kProvider, left);
    state.preempt_at(kProvider, made->id,
                     made->ready_at + std::chrono::milliseconds(f.preempt_after_ms));
  }
  if (state.take_create_timeout(kProvider)) sleep_ms(f.hang_ms);  // made, but answers too late
  send_json(res, 200, {{"success", true}, {"new_contract", std::stol(made->id)}});
}

// after_token / next_token: opaque to clients; here "i" + the last id in hex.
std::string token_for(long id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "i%lx", id);
  return buf;
}

void list_instances(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  auto pods = state.pods(kProvider);
  if (answer_list_fault(state.faults(kProvider), R"({"success":true,"instances":[]})", res)) return;
  if (state.faults(kProvider).malformed_list) {
    res.status = 200;
    res.set_content(R"({"success":true,"instances":[{"id":7,"label":"burst-)", "application/json");
    return;
  }
  long limit = req.has_param("limit") ? std::atol(req.get_param_value("limit").c_str()) : 25;
  if (limit <= 0) limit = 5;
  limit = std::min(limit, 25L);
  long after = 0;
  if (req.has_param("after_token")) {
    const std::string t = req.get_param_value("after_token");
    char* end = nullptr;
    after = t.size() > 1 && t[0] == 'i' ? std::strtol(t.c_str() + 1, &end, 16) : -1;
    if (after < 0 || !end || *end) return fail(res, 400, "invalid_token", "Invalid after_token");
  }
  std::sort(pods.begin(), pods.end(),
            [](const FakePod& a, const FakePod& b) { return std::stol(a.id) < std::stol(b.id); });
  json arr = json::array(), labels = json::object();
  std::string next;
  for (const auto& p : pods) {
    labels[p.name] = labels.value(p.name, 0) + 1;
    if (std::stol(p.id) <= after) continue;
    if (static_cast<long>(arr.size()) == limit) {
      next = token_for(arr.back()["id"].get<long>());
      break;
    }
    arr.push_back(instance_json(p, state.clock().now()));
  }
  send_json(res, 200,
            {{"success", true},
             {"instances_found", arr.size()},
             {"total_instances", pods.size()},
             {"label_counts", labels},
             {"next_token", next.empty() ? json(nullptr) : json(next)},
             {"instances", arr}});
}

json volume_json(const FakeVolume& v, CloudState& state) {
  json users = json::array();
  for (const auto& p : state.all_pods())
    if (p.provider == kProvider && p.phase != Phase::kTerminated && p.volume_id == v.id)
      users.push_back(std::stol(p.id));
  // Only fields of the spec's Volume schema: it has no name (the name a rent is given is the
  // emulator's own record) and no geolocation, so burst must find a volume again by its id.
  return {{"id", std::stol(v.id)},   {"machine_id", std::stol(v.region)},
          {"disk_space", v.size_gb}, {"status", users.empty() ? "idle" : "in_use"},
          {"instances", users},      {"start_date", 1.7e9}};
}

// deleteVolume: the spec sends {"id": <int>} as a JSON body; vast-cli sends ?id=<int>. Both taken.
void delete_volume(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  long id = 0;
  json b = req.body.empty() ? json::object() : json::parse(req.body, nullptr, false);
  if (b.is_object() && b.value("id", json()).is_number_integer())
    id = b["id"].get<long>();
  else if (req.has_param("id"))
    id = std::atol(req.get_param_value("id").c_str());
  if (id <= 0) return fail(res, 400, "invalid_args", "Please provide a valid volume ID.");
  Status st = state.delete_volume(kProvider, std::to_string(id));
  if (!st.ok() && st.error().code == ErrorCode::kNotFound)
    return fail(res, 404, "no_such_volume", "Volume with that ID does not exist.");
  if (!st.ok()) return fail(res, 400, "invalid_args", st.error().message);
  send_json(res, 200, {{"success", true}});
}

// Volume offers: one per machine, id = machine id * 10 + 9.
void search_volumes(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  json q = req.body.empty() ? json::object() : json::parse(req.body, nullptr, false);
  if (q.is_discarded() || !q.is_object())
    return fail(res, 400, "invalid_request", "Invalid query: must be dict of conditions");
  json out = json::array();
  std::set<long> machines;
  for (const auto& o : offer_table(state, 0, false))
    machines.insert(o.obj["machine_id"].get<long>());
  for (long m : machines) {
    json o = {{"id", m * 10 + 9},     {"machine_id", m},
              {"disk_space", 2000.0}, {"storage_cost", kStorageCost},
              {"verified", true},     {"reliability2", 0.995}};
    bool ok = true;
    for (const auto& [field, cond] : q.items())
      if (field != "order" && field != "limit" && field != "allocated_storage" &&
          o.contains(field) && !matches(o[field], cond))
        ok = false;
    if (ok) out.push_back(o);
    if (out.size() >= static_cast<size_t>(q.value("limit", 64))) break;
  }
  send_json(res, 200, {{"offers", out}});
}

void rent_volume(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  json b = json::parse(req.body, nullptr, false);
  if (b.is_discarded() || !b.is_object() || !b.value("id", json()).is_number_integer())
    return fail(res, 400, "invalid_args", "Please provide a valid volume offer ID.");
  for (const auto& [k, v] : b.items())
    if (k != "id" && k != "size" && k != "name")
      return fail(res, 400, "invalid_args", "unknown field '" + k + "'");
  const long id = b["id"];
  const std::string name = b.value("name", "");
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return fail(res, 400, "invalid_args", "name may hold only letters, digits and _");
  if (name.size() > 64) return fail(res, 400, "invalid_args", "name is longer than 64");
  if (id % 10 != 9) return fail(res, 404, "no_such_ask", "no_such_ask volume offer not available");
  auto v = state.create_volume(kProvider, name, std::to_string(id / 10), b.value("size", 15),
                               state.new_id(8, true));
  if (!v.ok()) return fail(res, 500, "server_error", v.error().message);
  send_json(res, 200, {{"success", true}, {"volume_name", "V." + v->id}});
}

void install(httplib::Server& s, CloudState& state, const std::string& prefix) {
  const std::string v0 = prefix + "/api/v0";
  auto offers = std::make_shared<BuiltOnce<OfferTable>>();
  s.Post(v0 + "/bundles/?", [&state, offers](const httplib::Request& q, httplib::Response& r) {
    search_offers(state, *offers, q, r);
  });
  s.Put(v0 + R"(/asks/(\d+)/?)", [&state](const httplib::Request& q, httplib::Response& r) {
    create_instance(state, q, r);
  });
  s.Get(v0 + R"(/instances/(\d+)/?)", [&state](const httplib::Request& q, httplib::Response& r) {
    // showInstance documents 200 {"instances": Instance} (an object, not nullable), 400 "Invalid
    // instance ID", 401 and 429: an unknown or destroyed instance is the documented 400.
    auto p = state.pod(kProvider, q.matches[1]);
    if (!p || p->phase == Phase::kTerminated)
      return fail(r, 400, "invalid_args", "invalid instance_id");
    send_json(r, 200, {{"instances", instance_json(*p, state.clock().now())}});
  });
  s.Delete(v0 + R"(/instances/(\d+)/?)", [&state](const httplib::Request& q, httplib::Response& r) {
    if (!state.delete_pod(kProvider, q.matches[1]))
      return fail(r, 404, "not_found", "Instance not found");
    send_json(r, 200, {{"success", true}, {"msg", "Instance destroyed successfully"}});
  });
  s.Get(prefix + "/api/v1/instances/?",
        [&state](const httplib::Request& q, httplib::Response& r) { list_instances(state, q, r); });
  s.Get(v0 + "/ssh/?", [&state](const httplib::Request&, httplib::Response& r) {
    json arr = json::array();
    int id = 1;
    for (const auto& k : state.account_keys(kProvider))
      arr.push_back({{"id", id++},
                     {"user_id", 456},
                     {"key", k},
                     {"created_at", "2026-11-01T00:00:00Z"},
                     {"deleted_at", nullptr}});
    send_json(r, 200, arr);
  });
  s.Post(v0 + "/ssh/?", [&state](const httplib::Request& q, httplib::Response& r) {
    json b = json::parse(q.body, nullptr, false);
    if (b.is_discarded() || !b.is_object() || !b.value("ssh_key", json()).is_string() ||
        b["ssh_key"].get<std::string>().empty())
      return fail(r, 400, "no_ssh_key", "No ssh key provided");
    state.add_account_key(kProvider, b["ssh_key"]);
    send_json(r, 200,
              {{"success", true},
               {"key",
                {{"id", state.account_keys(kProvider).size()},
                 {"user_id", 456},
                 {"public_key", b["ssh_key"]},
                 {"created_at", rfc3339(state.clock().now())},
                 {"deleted_at", nullptr}}}});
  });
  // showUser: the account, with its balance and key (spec GET /api/v0/users/current).
  s.Get(v0 + "/users/current/?", [&state](const httplib::Request&, httplib::Response& r) {
    std::string key;
    for (const auto& k : state.account_keys(kProvider)) key = k;
    send_json(r, 200,
              {{"id", 456},
               {"key_id", 789},
               {"email", "burst@example.com"},
               {"balance", 25.0},
               {"ssh_key", key},
               {"sid", "fakecloud"}});
  });
  s.Get(v0 + "/volumes/?", [&state](const httplib::Request&, httplib::Response& r) {
    json vols = json::array();
    for (const auto& v : state.volumes(kProvider)) vols.push_back(volume_json(v, state));
    send_json(r, 200, {{"volumes", vols}});
  });
  s.Post(v0 + "/volumes/search/?", [&state](const httplib::Request& q, httplib::Response& r) {
    search_volumes(state, q, r);
  });
  s.Put(v0 + "/volumes/?",
        [&state](const httplib::Request& q, httplib::Response& r) { rent_volume(state, q, r); });
  s.Delete(v0 + "/volumes/?", [&state](const httplib::Request& q, httplib::Response& r) {
    delete_volume(state, q, r);
  });
}

}  // namespace

extern const ApiModule kVastModule;
const ApiModule kVastModule = {kProvider, &install, &error_body, "application/json",
                               &refused_key_status};

}  // namespace burst::fakecloud

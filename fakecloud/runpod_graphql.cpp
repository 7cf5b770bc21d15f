// RunPod's GraphQL endpoint, as the emulator serves it at POST /runpod/graphql: the part burst
// uses for spot pods (shared/provider-apis/REFERENCE.md §2.5): `gpuTypes` with
// `lowestPrice(input) { minimumBidPrice ... }` (§2.5.2) and `podRentInterruptable(input:
// PodRentInterruptableInput)` with its required `bidPerGpu` (§2.5.3). A pod it rents is an
// ordinary pod of the account: REST v2 lists, gets and deletes it (runpod_api.cpp), and
// Faults::preempt_bids takes it back the way RunPod documents an interruptible pod ("can be
// stopped at any time to free up resources for another Pod", v1 spec, Pod.interruptible): EXITED,
// its container and sshd gone, kept until deleted.
//
// Transport as documented (§2.2, §2.5.1): the key as `?api_key=` (RunPod's docs) or
// "Authorization: Bearer" (runpodctl, runpod-python, dstack), checked by the server's gate (401
// on a bad or missing key, fake_cloud.cpp); a document naming a field, argument or input field
// the schema does not have, or one that is not JSON {"query", "variables"}, is HTTP 400 (runpod
// issue: an unknown input field `objectMounts` -> 400); business errors are HTTP 200 with
// `errors[]` and `data.<field>: null`, RunPod's no-stock words when no pod can be placed.
// Literal arguments are not evaluated: inputs come from `variables` (what burst, runpodctl and
// SkyPilot send). Not served: every other query and mutation.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>

#include "api_module.h"
#include "runpod_catalog.h"

namespace burst::fakecloud {
namespace runpod_gql {

using nlohmann::json;
const char* const kGqlProvider = "runpod";

// The schema the emulator knows (REFERENCE §2.5.2-§2.5.3): output fields, then input fields.
const std::set<std::string>& output_fields() {
  static const std::set<std::string> s = {"gpuTypes",
                                          "id",
                                          "displayName",
                                          "manufacturer",
                                          "memoryInGb",
                                          "maxGpuCount",
                                          "secureCloud",
                                          "communityCloud",
                                          "securePrice",
                                          "communityPrice",
                                          "secureSpotPrice",
                                          "communitySpotPrice",
                                          "lowestPrice",
                                          "gpuName",
                                          "gpuTypeId",
                                          "minimumBidPrice",
                                          "uninterruptablePrice",
                                          "minMemory",
                                          "minVcpu",
                                          "stockStatus",
                                          "countryCode",
                                          "availableGpuCounts",
                                          "podRentInterruptable",
                                          "name",
                                          "desiredStatus",
                                          "imageName",
                                          "costPerHr",
                                          "gpuCount",
                                          "machineId",
                                          "machine",
                                          "podHostId",
                                          "gpuDisplayName",
                                          "location",
                                          "__typename"};
  return s;
}
const std::set<std::string>& rent_inputs() {
  static const std::set<std::string> s = {"bidPerGpu",
                                          "cloudType",
                                          "gpuTypeId",
                                          "gpuTypeIdList",
                                          "gpuCount",
                                          "name",
                                          "imageName",
                                          "templateId",
                                          "dockerArgs",
                                          "ports",
                                          "env",
                                          "containerDiskInGb",
                                          "volumeInGb",
                                          "volumeMountPath",
                                          "networkVolumeId",
                                          "dataCenterId",
                                          "countryCode",
                                          "minVcpuCount",
                                          "minMemoryInGb",
                                          "minDisk",
                                          "minDownload",
                                          "minUpload",
                                          "supportPublicIp",
                                          "startSsh",
                                          "startJupyter",
                                          "stopAfter",
                                          "terminateAfter",
                                          "cudaVersion",
                                          "minCudaVersion",
                                          "allowedCudaVersions",
                                          "containerRegistryAuthId",
                                          "volumeKey",
                                          "deployCost",
                                          "compliance",
                                          "computeType",
                                          "instanceIds",
                                          "savingsPlan"};
  return s;
}
const std::set<std::string>& price_inputs() {
  static const std::set<std::string> s = {
      "gpuCount",       "secureCloud",         "dataCenterId",    "countryCode",
      "minMemoryInGb",  "minVcpuCount",        "minDisk",         "minDownload",
      "minUpload",      "totalDisk",           "supportPublicIp", "cudaVersion",
      "minCudaVersion", "allowedCudaVersions", "compliance",      "includeAiApi"};
  return s;
}
const std::set<std::string>& in_parens() {  // argument names, type names, literals
  static const std::set<std::string> s = {"input",
                                          "GpuLowestPriceInput",
                                          "PodRentInterruptableInput",
                                          "GpuTypeFilter",
                                          "ids",
                                          "String",
                                          "Int",
                                          "Float",
                                          "Boolean",
                                          "true",
                                          "false",
                                          "null",
                                          "SECURE",
                                          "COMMUNITY",
                                          "ALL"};
  return s;
}

struct Document {
  std::set<std::string> selected;  // field names outside parentheses
  std::string error;               // "" when the document only names what the schema has
};

// Names outside (...) are fields, checked against the output fields; names inside are arguments,
// variable types, input fields and literals. "$name" variables and "..." strings are skipped.
Document read_document(const std::string& q) {
  Document d;
  int parens = 0;
  bool head = true;  // before the first '{': "query"/"mutation" and the operation's name
  for (size_t i = 0; i < q.size();) {
    const char c = q[i];
    if (c == '"') {
      for (++i; i < q.size() && q[i] != '"'; ++i)
        if (q[i] == '\\') ++i;
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < q.size() && q[i] != '\n') ++i;
      continue;
    }
    const bool var = c == '$';
    if (var || std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i + (var ? 1 : 0);
      while (j < q.size() && (std::isalnum(static_cast<unsigned char>(q[j])) || q[j] == '_')) ++j;
      const std::string name = q.substr(i, j - i);
      i = j;
      if (var) continue;
      if (parens > 0) {
        if (!in_parens().count(name) && !rent_inputs().count(name) && !price_inputs().count(name))
          d.error = "Unknown argument, type or input field \"" + name + "\".";
      } else if (!head) {
        if (!output_fields().count(name)) d.error = "Cannot query field \"" + name + "\".";
        d.selected.insert(name);
      } else if (name != "query" && name != "mutation" && d.selected.count("#op")) {
        d.error = "Syntax Error: Unexpected Name \"" + name + "\".";
      } else if (name != "query" && name != "mutation") {
        d.selected.insert("#op");  // the operation's name: anything
      }
      if (!d.error.empty()) return d;
      continue;
    }
    if (c == '(') ++parens;
    if (c == ')') --parens;
    if (c == '{' && parens == 0) head = false;
    ++i;
  }
  if (head) d.error = "Syntax Error: Expected \"{\", found <EOF>.";
  return d;
}

void bad_request(httplib::Response& res, const std::string& message) {
  send_json(res, 400,
            {{"errors", json::array({{{"message", message},
                                      {"extensions", {{"code", "GRAPHQL_VALIDATION_FAILED"}}}}})}});
}

// HTTP 200 with errors[] (REFERENCE §2.5.1: "Runpod returns 200 on client errors").
void business_error(httplib::Response& res, const std::string& field, const std::string& message) {
  send_json(res, 200,
            {{"errors", json::array({{{"message", message},
                                      {"path", json::array({field})},
                                      {"extensions", {{"code", "RUNPOD"}}}}})},
             {"data", {{field, nullptr}}}});
}

json only(const json& full, const std::set<std::string>& selected) {
  json out = json::object();
  for (const auto& [k, v] : full.items())
    if (selected.count(k)) out[k] = v;
  return out;
}

// The one object variable the operation takes (its `input`), or an empty object.
json input_of(const json& variables) {
  if (variables.is_object())
    for (const auto& [k, v] : variables.items())
      if (v.is_object()) return v;
  return json::object();
}

std::string unknown_input(const json& input, const std::set<std::string>& known, const char* type) {
  for (const auto& [k, v] : input.items())
    if (!known.count(k))
      return "Variable \"$input\" got invalid value; Field \"" + k +
             "\" is not defined by type \"" + type + "\".";
  return "";
}

void gpu_types(CloudState& state, const Document& d, const json& variables,
               httplib::Response& res) {
  const json input = input_of(variables);
  if (auto e = unknown_input(input, price_inputs(), "GpuLowestPriceInput"); !e.empty())
    return bad_request(res, e);
  const Faults f = state.faults(kGqlProvider);
  const int count = input.value("gpuCount", 1);
  json types = json::array();
  for (const auto& g : kGpus) {
    const bool stock = !f.no_capacity.count(g.id) && count <= g.max_secure;
    json lowest = nullptr;  // "null when there is no stock for the input" (§2.5.2)
    if (stock)
      lowest = only({{"gpuName", g.name},
                     {"gpuTypeId", g.id},
                     {"minimumBidPrice", runpod_min_bid(g)},
                     {"uninterruptablePrice", g.secure},
                     {"minMemory", 8},
                     {"minVcpu", 4},
                     {"stockStatus", "High"},
                     {"countryCode", "US"},
                     {"availableGpuCounts", json::array({1, 2, 4, 8})}},
                    d.selected);
    types.push_back(only({{"id", g.id},
                          {"displayName", g.name},
                          {"manufacturer", "Nvidia"},
                          {"memoryInGb", g.memory},
                          {"maxGpuCount", g.max_secure},
                          {"secureCloud", true},
                          {"communityCloud", true},
                          {"securePrice", g.secure},
                          {"communityPrice", g.community},
                          {"secureSpotPrice", runpod_min_bid(g)},
                          {"communitySpotPrice", runpod_min_bid(g)},
                          {"lowestPrice", lowest}},
                         d.selected));
  }
  send_json(res, 200, {{"data", {{"gpuTypes", types}}}});
}

// PodRentInterruptableInput's types, as a GraphQL server coerces variables (400 when wrong).
std::string typed_wrong(const json& in) {
  for (const char* k : {"cloudType", "gpuTypeId", "name", "imageName", "dockerArgs", "ports",
                        "volumeMountPath", "networkVolumeId", "dataCenterId"})
    if (in.contains(k) && !in[k].is_string()) return std::string(k) + ": expected String";
  for (const char* k : {"gpuCount", "containerDiskInGb", "volumeInGb"})
    if (in.contains(k) && !in[k].is_number_integer()) return std::string(k) + ": expected Int";
  for (const char* k : {"startSsh", "supportPublicIp"})
    if (in.contains(k) && !in[k].is_boolean()) return std::string(k) + ": expected Boolean";
  if (!in.contains("bidPerGpu")) return "bidPerGpu: Field of required type Float! not provided";
  if (!in["bidPerGpu"].is_number()) return "bidPerGpu: expected Float";
  if (in.contains("env")) {
    bool ok = in["env"].is_array();
    for (const auto& e : ok ? in["env"] : json::array())
      ok = ok && e.is_object() && e.value("key", json()).is_string() &&
           e.value("value", json()).is_string();
    if (!ok) return "env: expected [EnvironmentVariableInput] ({key, value} strings)";
  }
  if (in.contains("cloudType") && in["cloudType"] != "SECURE" && in["cloudType"] != "COMMUNITY" &&
      in["cloudType"] != "ALL")
    return "cloudType: Value is not a valid CloudTypeEnum";
  return "";
}

void rent_interruptable(CloudState& state, const Document& d, const json& variables,
                        httplib::Response& res) {
  const char* field = "podRentInterruptable";
  const json in = input_of(variables);
  if (in.empty())
    return bad_request(res,
                       "Variable \"$input\" of required type PodRentInterruptableInput! "
                       "was not provided.");
  if (auto e = unknown_input(in, rent_inputs(), "PodRentInterruptableInput"); !e.empty())
    return bad_request(res, e);
  if (auto e = typed_wrong(in); !e.empty())
    return bad_request(res, "Variable \"$input\" got invalid value; " + e);
  const Faults f = state.faults(kGqlProvider);
  const std::string no_stock =
      f.capacity_detail.empty()
          ? "There are no longer any instances available with the requested specifications. "
            "Please refresh and try again."
          : f.capacity_detail;
  if (f.insufficient_balance)
    return business_error(res, field, "You do not have enough funds to rent this pod.");
  FakePod p;
  p.provider = kGqlProvider;
  p.name = in.value("name", "");
  p.gpu_type = in.value("gpuTypeId", "");
  p.gpu_count = in.value("gpuCount", 1);
  p.image = in.value("imageName", "");
  const GpuKind* g = nullptr;
  for (const auto& k : kGpus)
    if (p.gpu_type == k.id) g = &k;
  if (!g) return business_error(res, field, "Invalid gpuTypeId \"" + p.gpu_type + "\".");
  if (f.forbidden.count(p.gpu_type) || f.no_capacity.count(p.gpu_type) || p.gpu_count < 1)
    return business_error(res, field, no_stock);
  const double bid = in["bidPerGpu"].get<double>();
  if (bid + 1e-9 < runpod_min_bid(*g))  // the emulator's words: RunPod's are not published
    return business_error(res, field,
                          "Your bid per GPU " + json(bid).dump() +
                              " is below the minimum bid price " + json(runpod_min_bid(*g)).dump() +
                              ".");
  for (const auto& e : in.value("env", json::array())) p.env[e["key"]] = e["value"];
  const std::string ports = in.value("ports", "");
  for (size_t at = 0; at <= ports.size() && !ports.empty();) {
    const size_t comma = std::min(ports.find(',', at), ports.size());
    if (comma > at) p.ports.push_back(ports.substr(at, comma - at));
    at = comma + 1;
  }
  p.region = in.value("dataCenterId", std::string(kDataCenters[1].id));
  if (const std::string vol = in.value("networkVolumeId", ""); !vol.empty()) {
    auto v = state.volume(kGqlProvider, vol);
    if (!v) return business_error(res, field, "Network volume " + vol + " not found.");
    if (in.contains("dataCenterId") && in["dataCenterId"] != v->region)
      return business_error(res, field, no_stock);  // the volume pins the data centre
    p.volume_id = v->id;
    p.mount_path = in.value("volumeMountPath", "/runpod-volume");
    p.region = v->region;
  }
  bool dc_known = false;
  for (const auto& dc : kDataCenters) dc_known = dc_known || p.region == dc.id;
  if (!dc_known) return business_error(res, field, no_stock);
  if (in.value("startSsh", false) && !p.env.count("PUBLIC_KEY")) {
    std::string keys;
    for (const auto& k : state.account_keys(kGqlProvider)) keys += (keys.empty() ? "" : "\n") + k;
    if (!keys.empty()) p.env["PUBLIC_KEY"] = keys;
  }
  runpod_ssh_server(in.value("dockerArgs", ""), &p);
  p.usd_per_hour = bid * p.gpu_count;
  // What v2 shows of it (runpod_api.cpp pod_json), and that it is a spot pod.
  p.extra = {{"args", in.value("dockerArgs", "")},
             {"disk", in.value("containerDiskInGb", 50)},
             {"cloud", in.value("cloudType", "SECURE") == "COMMUNITY" ? "COMMUNITY" : "SECURE"},
             {"interruptible", true},
             {"bidPerGpu", bid}};
  auto made = state.create_pod(p);
  if (!made.ok() && made.error().code == ErrorCode::kNoCapacity)  // Faults::capacity
    return business_error(res, field, no_stock);
  if (!made.ok()) return business_error(res, field, made.error().message);
  if (f.preempt_bids > 0 && made->ready_at != TimePoint::max()) {  // used up one pod at a time
    Faults left = state.faults(kGqlProvider);
    left.preempt_bids = std::max(0, left.preempt_bids - 1);
    state.set_faults(kGqlProvider, left);
    state.preempt_at(kGqlProvider, made->id,
                     made->ready_at + std::chrono::milliseconds(f.preempt_after_ms));
  }
  if (state.take_create_timeout(kGqlProvider)) sleep_ms(f.hang_ms);  // made, but answers late
  const json pod = only({{"id", made->id},
                         {"name", made->name},
                         {"desiredStatus", "RUNNING"},
                         {"imageName", made->image},
                         {"costPerHr", made->usd_per_hour},
                         {"gpuCount", made->gpu_count},
                         {"machineId", "m" + made->id.substr(0, 8)},
                         {"machine", {{"podHostId", made->id + "-" + made->id.substr(0, 8)}}}},
                        d.selected);
  send_json(res, 200, {{"data", {{field, pod}}}});
}

void serve(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  const json b = json::parse(req.body, nullptr, false);
  if (b.is_discarded() || !b.is_object() || !b.value("query", json()).is_string())
    return bad_request(res, "Must provide query string.");
  const json variables = b.value("variables", json::object());
  if (!variables.is_object() && !variables.is_null())
    return bad_request(res, "Variables must be provided as an Object.");
  const Document d = read_document(b["query"]);
  if (!d.error.empty()) return bad_request(res, d.error);
  if (d.selected.count("podRentInterruptable")) return rent_interruptable(state, d, variables, res);
  if (d.selected.count("gpuTypes")) return gpu_types(state, d, variables, res);
  return bad_request(res, "The emulator serves gpuTypes and podRentInterruptable only.");
}

}  // namespace runpod_gql

void install_runpod_graphql(httplib::Server& s, CloudState& state, const std::string& prefix) {
  s.Post(prefix + "/graphql", [&state](const httplib::Request& q, httplib::Response& r) {
    runpod_gql::serve(state, q, r);
  });
}

}  // namespace burst::fakecloud

#include "runpod/runpod_graphql.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

namespace burst::runpod {
namespace {

using nlohmann::json;

// Printable ASCII only, at most 300 characters: RunPod's words reach the console and the report.
std::string printable(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (out.size() >= 300) {
      out += "...";
      break;
    }
    out += std::isprint(static_cast<unsigned char>(c)) ? c : ' ';
  }
  return out;
}

Error undocumented(const std::string& what, const std::string& body) {
  return make_error(ErrorCode::kUnavailable, "runpod: " + what +
                                                 ": the GraphQL answer is not the documented "
                                                 "shape (" +
                                                 printable(body.substr(0, 120)) + ")");
}

}  // namespace

double bid_per_gpu(double min_bid, double on_demand) {
  if (!(min_bid > 0) || !std::isfinite(min_bid)) return 0;
  double bid = min_bid * kRunpodBidMargin;
  if (on_demand > 0) bid = std::min(bid, on_demand);
  return std::max(std::round(bid * 1e4) / 1e4, min_bid);  // never below the floor
}

std::string min_bid_query_body(int gpu_count, bool secure_cloud) {
  // runpodctl's form (REFERENCE §2.5.2) with the type's id beside its lowest price.
  const char* query =
      "query LowestPrice($input: GpuLowestPriceInput!) { gpuTypes { id lowestPrice(input: "
      "$input) { minimumBidPrice uninterruptablePrice } } }";
  return json{{"query", query},
              {"variables",
               {{"input", {{"gpuCount", std::max(1, gpu_count)}, {"secureCloud", secure_cloud}}}}}}
      .dump();
}

std::string graphql_errors(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "";
  auto it = j.find("errors");
  if (it == j.end() || !it->is_array() || it->empty()) return "";
  std::string words;
  for (const auto& e : *it) {
    std::string m = e.is_object() && e.contains("message") && e["message"].is_string()
                        ? e["message"].get<std::string>()
                        : std::string("an error without a message");
    words += (words.empty() ? "" : "; ") + m;
  }
  return printable(words);
}

Result<std::map<std::string, double>> parse_min_bids(const std::string& body) {
  if (std::string said = graphql_errors(body); !said.empty())
    return make_error(ErrorCode::kUnavailable, "runpod: minimum bids: " + said);
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.value("data", json()).is_object() ||
      !j["data"].value("gpuTypes", json()).is_array())
    return undocumented("minimum bids", body);
  std::map<std::string, double> out;
  for (const auto& t : j["data"]["gpuTypes"]) {
    if (!t.is_object() || !t.value("id", json()).is_string()) continue;
    const json lp = t.value("lowestPrice", json());
    if (!lp.is_object()) continue;  // null: no stock for the input
    const json bid = lp.value("minimumBidPrice", json());
    if (!bid.is_number()) continue;
    const double v = bid.get<double>();
    if (v > 0 && std::isfinite(v)) out[t["id"].get<std::string>()] = v;
  }
  return out;
}

std::string rent_interruptable_body(const PodRequest& r, const SpotPodInput& in) {
  // GraphQL's env is a list of {key, value} and ports one comma-separated string (§2.5.3).
  json env = json::array();
  for (const auto& [k, v] : r.env)
    if (k != "PUBLIC_KEY") env.push_back({{"key", k}, {"value", v}});
  env.push_back({{"key", "PUBLIC_KEY"}, {"value", r.ssh_public_key}});  // as v2's create (§2.6)
  std::string ports = "22/tcp";
  for (int p : r.ports)
    if (p != 22) ports += "," + std::to_string(p) + "/tcp";
  json input = {{"bidPerGpu", in.bid_per_gpu},
                {"cloudType", in.cloud},
                {"gpuTypeId", in.gpu_type_id},
                {"gpuCount", std::max(1, r.gpu_count)},
                {"name", r.name},
                {"imageName", r.image},
                {"ports", ports},
                {"env", env},
                {"startSsh", true},
                {"supportPublicIp", true}};
  if (!in.docker_args.empty()) input["dockerArgs"] = in.docker_args;
  if (in.container_disk_gb > 0) input["containerDiskInGb"] = in.container_disk_gb;
  if (!r.volume_id.empty()) {
    input["networkVolumeId"] = r.volume_id;
    input["volumeMountPath"] = r.mount_path;
  }
  if (!in.data_center.empty()) input["dataCenterId"] = in.data_center;  // one only (§2.5.3)
  const char* query =
      "mutation rentSpot($input: PodRentInterruptableInput!) { podRentInterruptable(input: "
      "$input) { id desiredStatus costPerHr } }";
  return json{{"query", query}, {"variables", {{"input", input}}}}.dump();
}

Result<std::string> parse_rent_answer(const std::string& body) {
  if (std::string said = graphql_errors(body); !said.empty()) {
    std::string lower = said;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    // RunPod's no-stock words (REFERENCE §2.5.1, runpod-python issues #21, #168).
    const bool no_stock = lower.find("no longer any instances available") != std::string::npos ||
                          lower.find("not enough free gpus") != std::string::npos;
    return make_error(no_stock ? ErrorCode::kNoCapacity : ErrorCode::kUnavailable,
                      "runpod: rent spot pod: " + said);
  }
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.value("data", json()).is_object())
    return undocumented("rent spot pod", body);
  const json pod = j["data"].value("podRentInterruptable", json());
  if (!pod.is_object() || !pod.value("id", json()).is_string() ||
      pod["id"].get<std::string>().empty())
    return undocumented("rent spot pod", body);
  return pod["id"].get<std::string>();
}

}  // namespace burst::runpod

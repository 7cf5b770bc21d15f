#include "runpod/runpod_json.h"

#include <algorithm>
#include <cctype>

#include "runpod/runpod_provider.h"
#include "runpod/runpod_ssh.h"
#include "util/whole_number.h"

namespace burst {
namespace runpod {
namespace {

// RunPod GPU type ids (GET /v2/catalog/gpus `id`; the create body's gpuTypeIds enum) for the
// catalog's GPUs.
const std::pair<const char*, const char*> kGpuIds[] = {
    {"NVIDIA GeForce RTX 3070", "RTX_3070"},
    {"NVIDIA GeForce RTX 3080", "RTX_3080"},
    {"NVIDIA GeForce RTX 3080 Ti", "RTX_3080_TI"},
    {"NVIDIA GeForce RTX 3080TI", "RTX_3080_TI"},
    {"NVIDIA GeForce RTX 3090", "RTX_3090"},
    {"NVIDIA GeForce RTX 3090 Ti", "RTX_3090_TI"},
    {"NVIDIA GeForce RTX 4070 Ti", "RTX_4070_TI"},
    {"NVIDIA GeForce RTX 4080", "RTX_4080"},
    {"NVIDIA GeForce RTX 4080 SUPER", "RTX_4080_SUPER"},
    {"NVIDIA GeForce RTX 4090", "RTX_4090"},
    {"NVIDIA GeForce RTX 5080", "RTX_5080"},
    {"NVIDIA GeForce RTX 5090", "RTX_5090"},
    {"NVIDIA RTX A4000", "RTX_A4000"},
    {"NVIDIA RTX A4500", "RTX_A4500"},
    {"NVIDIA  RTX A4500", "RTX_A4500"},  // two spaces: in the spec's enum too (runpod/docs#633)
    {"NVIDIA RTX A5000", "RTX_A5000"},
    {"NVIDIA RTX A6000", "RTX_A6000"},
    {"NVIDIA RTX 2000 Ada Generation", "RTX_2000_ADA"},
    {"NVIDIA RTX 4000 Ada Generation", "RTX_4000_ADA"},
    {"NVIDIA RTX 5000 Ada Generation", "RTX_5000_ADA"},
    {"NVIDIA RTX 6000 Ada Generation", "RTX_6000_ADA"},
    {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTX_PRO_6000"},
    {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX_PRO_6000_SERVER"},
    {"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "RTX_PRO_6000_MAXQ"},
    {"Tesla T4", "T4"},
    {"Tesla V100-SXM2-16GB", "V100"},
    {"Tesla V100-SXM2-32GB", "V100_32GB"},
    {"Tesla V100-PCIE-16GB", "V100_PCIE"},
    {"NVIDIA L4", "L4"},
    {"NVIDIA A30", "A30"},
    {"NVIDIA A40", "A40"},
    {"NVIDIA L40", "L40"},
    {"NVIDIA L40S", "L40S"},
    {"NVIDIA A100-SXM4-40GB", "A100_40GB"},
    {"NVIDIA A100 80GB PCIe", "A100_80GB_PCIE"},
    {"NVIDIA A100-SXM4-80GB", "A100_80GB"},
    {"NVIDIA H100 PCIe", "H100_PCIE"},
    {"NVIDIA H100 NVL", "H100_NVL"},
    {"NVIDIA H100 80GB HBM3", "H100_SXM"},
    {"NVIDIA H200", "H200"},
    {"NVIDIA H200 NVL", "H200_NVL"},
    {"NVIDIA B200", "B200"},
    {"AMD Instinct MI300X OAM", "MI300X"},
};
// Left out of the spec's 50 ids: "NVIDIA RTX A2000" (6 or 12 GB), "NVIDIA A5000 Ada" and
// "NVIDIA RTX A30" / "NVIDIA  A30" (undocumented spellings), "NVIDIA RTX 4000 SFF Ada Generation"
// (no tensor rate found), "Tesla V100-PCIE-32GB" and "Tesla V100-FHHL-16GB" (other clocks).

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

double num(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) return std::atof(it->get<std::string>().c_str());
  return 0;
}

Error not_documented(const std::string& what, const std::string& body) {
  std::string head = body.substr(0, 120);
  return make_error(ErrorCode::kUnavailable,
                    "runpod: " + what + ": the response is not the documented JSON (" + head +
                        (body.size() > 120 ? "..." : "") + "); not treating it as empty");
}

}  // namespace

std::string problem_message(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return body.substr(0, 300);
  std::string msg = str(j, "detail");
  if (msg.empty()) msg = str(j, "title");
  if (j.contains("errors") && j["errors"].is_array())
    for (const auto& e : j["errors"])
      if (e.is_string()) msg += "; " + e.get<std::string>();
  return msg.empty() ? body.substr(0, 300) : msg;
}

bool is_no_capacity(int status, const std::string& body) {
  if (status != 400) return false;
  std::string lower = problem_message(body);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* s : {"no longer any instances available", "no capacity", "not enough capacity",
                        "no available", "out of stock"})
    if (lower.find(s) != std::string::npos) return true;
  return false;
}

bool create_tries_next(int status) { return status == 400 || status == 403; }

std::string create_pod_message(int status, const std::string& body) {
  const std::string said = problem_message(body);
  if (status == 402)
    return said +
           " (insufficient balance: add funds to the RunPod account; no other candidate "
           "is tried)";
  if (status == 403)
    return said + " (this account cannot use this GPU pool; the candidate is skipped)";
  return said;
}

PodState pod_state(const std::string& s) {
  if (s == "PROVISIONING" || s == "STARTING") return PodState::kPending;
  if (s == "RUNNING") return PodState::kRunning;
  if (s == "EXITED" || s == "ERROR") return PodState::kStopping;  // still exists: needs a delete
  if (s == "TERMINATED") return PodState::kGone;
  return PodState::kUnknown;
}

Result<Pod> parse_pod(const json& j) {
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || !j.contains("name") ||
      !j["name"].is_string())
    return not_documented("pod", j.dump());
  Pod p;
  p.id = j["id"];
  p.name = j["name"];
  p.state = pod_state(str(j, "status"));
  p.usd_per_hour = num(j, "cost");
  if (j.contains("gpu") && j["gpu"].is_object())
    p.gpu_type = catalog_name(str(j["gpu"], "id"));
  else
    p.gpu_type = "cpu";
  // ssh.direct is the full-featured endpoint (SFTP works); the proxy is interactive-only, so it
  // is never used. Fallback: the runtime port entry for private port 22 with a public IP.
  if (p.state == PodState::kRunning && j.contains("ssh") && j["ssh"].is_object()) {
    const json& d = j["ssh"].value("direct", json());
    if (d.is_object() && !str(d, "host").empty() && port_number(num(d, "port")) > 0)
      p.ssh = {str(d, "host"), port_number(num(d, "port")), str(d, "username")};
  }
  if (p.state == PodState::kRunning && p.ssh.port == 0 && j.contains("runtime") &&
      j["runtime"].is_object() && j["runtime"].contains("ports") &&
      j["runtime"]["ports"].is_array()) {
    for (const auto& port : j["runtime"]["ports"])
      if (port.is_object() && num(port, "private") == 22 && port_number(num(port, "public")) > 0 &&
          !str(port, "ip").empty())
        p.ssh = {str(port, "ip"), port_number(num(port, "public")), "root"};
  }
  if (p.ssh.port > 0 && p.ssh.user.empty()) p.ssh.user = "root";
  return p;
}

Result<std::vector<Pod>> parse_pod_list(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("pods") || !j["pods"].is_array())
    return not_documented("list pods", body);
  std::vector<Pod> out;
  for (const auto& item : j["pods"]) {
    auto p = parse_pod(item);
    if (!p.ok()) return not_documented("list pods", body);
    out.push_back(*p);
  }
  return out;
}

Result<Volume> parse_volume(const json& j) {
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string())
    return not_documented("network volume", j.dump());
  Volume v{j["id"], str(j, "name"), str(j, "dataCenter"),
           whole_number<int>(num(j, "size")).value_or(0)};
  v.usd_per_gb_month = kRunpodVolumeUsdPerGbMonth;
  return v;
}

Result<std::vector<Volume>> parse_volume_list(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("networkVolumes") ||
      !j["networkVolumes"].is_array())
    return not_documented("list network volumes", body);
  std::vector<Volume> out;
  for (const auto& item : j["networkVolumes"]) {
    auto v = parse_volume(item);
    if (!v.ok()) return not_documented("list network volumes", body);
    out.push_back(*v);
  }
  return out;
}

std::string catalog_name(const std::string& id) {
  for (const auto& [rp, cat] : kGpuIds)
    if (id == rp) return cat;
  std::string s = id;
  for (const char* drop : {"NVIDIA ", "GeForce "})
    if (size_t at = s.find(drop); at != std::string::npos) s.erase(at, std::string(drop).size());
  for (auto& c : s)
    c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(c)) : '_';
  return s;
}

std::string runpod_id_for(const std::string& name) {
  for (const auto& [rp, cat] : kGpuIds)
    if (name == cat) return rp;
  return "";
}

}  // namespace runpod

std::string runpod_gpu_to_catalog(const std::string& runpod_id) {
  return runpod::catalog_name(runpod_id);
}

// Field names and types from CreatePodRequest (unevaluatedProperties: false, so nothing else).
std::string runpod_create_pod_body(const PodRequest& r, const std::string& type_id, int cpu_vcpus,
                                   const std::string& data_center, const std::string& cloud) {
  using runpod::json;
  json env = json::object();
  for (const auto& [k, v] : r.env) env[k] = v;
  env["PUBLIC_KEY"] = r.ssh_public_key;  // RunPod's images start sshd with it (REFERENCE §2.6)
  json ports = json::array({"22/tcp"});
  for (int p : r.ports)
    if (p != 22) ports.push_back(std::to_string(p) + "/tcp");
  // startSsh: "injects a PUBLIC_KEY environment variable carrying your account's registered SSH
  // public keys, unless the request already sets one" (v2 CreatePodRequest.startSsh): burst sets
  // its own, and asks for SSH set-up as the API documents it for the images that honour it.
  json body = {
      {"name", r.name}, {"image", r.image}, {"ports", ports}, {"env", env}, {"startSsh", true}};
  // Any other image gets sshd from the start command (`args`, the only one v2 has).
  if (!runpod_image_runs_sshd(r.image))
    if (auto args = runpod_ssh_bootstrap_args(r.ssh_public_key); args.ok()) body["args"] = *args;
  if (r.gpu) {
    body["gpu"] = {{"id", type_id}, {"count", std::max(1, r.gpu_count)}};
    body["cloud"] = cloud;
  } else {
    body["cpu"] = {{"id", type_id}, {"vcpuCount", cpu_vcpus}};
  }
  if (r.disk_gb > 0) body["disk"] = r.disk_gb;  // CreatePodRequest.disk, GB (minimum 1)
  if (!r.volume_id.empty())
    body["mounts"] = {
        {"network", json::array({{{"volumeId", r.volume_id}, {"path", r.mount_path}}})}};
  if (!data_center.empty()) body["dataCenterIds"] = json::array({data_center});
  return body.dump();
}

std::string runpod_create_volume_body(const std::string& name, int size_gb,
                                      const std::string& data_center) {
  using runpod::json;
  return json{{"name", name}, {"dataCenter", data_center}, {"size", std::clamp(size_gb, 10, 4096)}}
      .dump();
}

}  // namespace burst

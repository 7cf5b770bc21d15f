#include "lambda/lambda_json.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace burst::lambda {
namespace {

// Lambda instance-type suffixes (after "gpu_<n>x_") for the catalog's GPUs. Names from the
// spec's examples and SkyPilot's Lambda catalog (config/prices.yaml cites it).
const std::pair<const char*, const char*> kTypes[] = {
    {"a10", "A10"},
    {"a100", "A100_40GB"},
    {"a100_sxm4", "A100_40GB"},
    {"a100_80gb_sxm4", "A100_80GB"},
    {"a6000", "RTX_A6000"},
    {"rtx6000", "QUADRO_RTX_6000"},
    {"v100", "V100"},
    {"h100_pcie", "H100_PCIE"},
    {"h100_sxm5", "H100_SXM"},
    {"h100_sxm5gdr", "H100_SXM"},
    {"gh200", "GH200"},
    {"b200_sxm6", "B200"},
};

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

Error not_documented(const std::string& what, const std::string& body) {
  const std::string head = body.substr(0, 120);
  return make_error(ErrorCode::kUnavailable,
                    "lambda: " + what + ": the response is not the documented JSON (" + head +
                        (body.size() > 120 ? "..." : "") + "); not treating it as empty");
}

}  // namespace

std::string error_code(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("error") || !j["error"].is_object()) return "";
  return str(j["error"], "code");
}

std::string error_message(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("error") || !j["error"].is_object()) return body.substr(0, 200);
  const json& e = j["error"];
  std::string m = str(e, "code");
  const std::string msg = str(e, "message"), sug = str(e, "suggestion");
  if (!msg.empty()) m += (m.empty() ? "" : ": ") + msg;
  if (!sug.empty()) m += " (" + sug + ")";
  return m;
}

Result<json> data_of(const std::string& body, const std::string& what) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("data")) return not_documented(what, body);
  return std::move(j["data"]);  // not a copy: the instance types are a large tree
}

PodState instance_state(const std::string& s) {
  if (s == "booting" || s == "unhealthy") return PodState::kPending;
  if (s == "active") return PodState::kRunning;
  if (s == "terminating") return PodState::kStopping;
  // preempted: Lambda reclaimed the capacity; the instance no longer runs or bills.
  if (s == "terminated" || s == "preempted") return PodState::kGone;
  return PodState::kUnknown;
}

Result<Pod> parse_instance(const json& j, const std::string& ssh_user) {
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || !j.contains("status") ||
      !j["status"].is_string())
    return not_documented("instance", j.dump());
  Pod p;
  p.id = j["id"];
  p.name = str(j, "name");
  p.state = instance_state(j["status"]);
  if (j.contains("instance_type") && j["instance_type"].is_object()) {
    const json& t = j["instance_type"];
    p.gpu_type = catalog_name(str(t, "name"));
    if (t.contains("price_cents_per_hour") && t["price_cents_per_hour"].is_number())
      p.usd_per_hour = t["price_cents_per_hour"].get<double>() / 100.0;
  }
  const std::string ip = str(j, "ip");
  if (p.state == PodState::kRunning && !ip.empty()) {
    // Always 22 on Lambda; only burst-fakecloud, whose loopback sshd cannot bind 22, says
    // otherwise in its one extra field.
    int port = 22;
    if (j.contains("fakecloud_ssh_port") && j["fakecloud_ssh_port"].is_number_integer())
      port = j["fakecloud_ssh_port"];
    p.ssh = {ip, port, ssh_user};
  }
  if (j.contains("file_system_mounts") && j["file_system_mounts"].is_array() &&
      !j["file_system_mounts"].empty() && j["file_system_mounts"][0].is_object())
    p.volume_path = str(j["file_system_mounts"][0], "mount_point");
  if (p.volume_path.empty() && j.contains("file_system_names") &&
      j["file_system_names"].is_array() && !j["file_system_names"].empty() &&
      j["file_system_names"][0].is_string())
    p.volume_path = "/lambda/nfs/" + j["file_system_names"][0].get<std::string>();
  return p;
}

Result<std::vector<Pod>> parse_instance_list(const std::string& body, const std::string& ssh_user) {
  auto data = data_of(body, "list instances");
  if (!data.ok()) return data.error();
  if (!data->is_array()) return not_documented("list instances", body);
  std::vector<Pod> out;
  for (const auto& i : *data) {
    auto p = parse_instance(i, ssh_user);
    if (!p.ok()) return not_documented("list instances", body);  // one bad entry: not a list
    out.push_back(*p);
  }
  return out;
}

Result<Volume> parse_filesystem(const json& j) {
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || !j.contains("name") ||
      !j["name"].is_string())
    return not_documented("file system", j.dump());
  Volume v;
  v.id = j["id"];
  v.name = j["name"];
  if (j.contains("region") && j["region"].is_object()) v.region = str(j["region"], "name");
  // No size: Lambda file systems grow as needed. bytes_used (an estimate updated every few hours)
  // in whole GiB, rounded up, is what is billed.
  if (j.contains("bytes_used") && j["bytes_used"].is_number() && j["bytes_used"] > 0)
    v.size_gb = static_cast<int>((j["bytes_used"].get<double>() + (1 << 30) - 1) / (1 << 30));
  v.usd_per_gb_month = kLambdaFilesystemUsdPerGbMonth;
  return v;
}

Result<std::vector<Volume>> parse_filesystem_list(const std::string& body) {
  auto data = data_of(body, "list file systems");
  if (!data.ok()) return data.error();
  if (!data->is_array()) return not_documented("list file systems", body);
  std::vector<Volume> out;
  for (const auto& f : *data) {
    auto v = parse_filesystem(f);
    if (!v.ok()) return not_documented("list file systems", body);
    out.push_back(*v);
  }
  return out;
}

Result<std::vector<InstanceType>> parse_instance_types(const std::string& body) {
  auto data = data_of(body, "instance types");
  if (!data.ok()) return data.error();
  if (!data->is_object()) return not_documented("instance types", body);
  std::vector<InstanceType> out;
  for (const auto& [key, entry] : data->items()) {
    if (!entry.is_object() || !entry.contains("instance_type") ||
        !entry["instance_type"].is_object())
      return not_documented("instance types", body);
    const json& t = entry["instance_type"];
    InstanceType it;
    it.name = str(t, "name").empty() ? key : str(t, "name");
    if (it.name.rfind("gpu_", 0) != 0) continue;  // not a GPU type (none are documented)
    it.gpu_type = catalog_name(it.name);
    if (t.contains("specs") && t["specs"].is_object() && t["specs"].contains("gpus") &&
        t["specs"]["gpus"].is_number_integer())
      it.gpus = t["specs"]["gpus"];
    if (!t.contains("price_cents_per_hour") || !t["price_cents_per_hour"].is_number())
      return not_documented("instance types", body);
    it.usd_per_hour = t["price_cents_per_hour"].get<double>() / 100.0;
    // "A10 (24 GB PCIe)": the number before " GB" is one GPU's memory.
    const std::string gd = str(t, "gpu_description");
    const size_t open = gd.find('('), gb = gd.find(" GB");
    if (open != std::string::npos && gb != std::string::npos && gb > open)
      it.vram_gb = std::atof(gd.substr(open + 1, gb - open - 1).c_str());
    if (entry.contains("regions_with_capacity_available") &&
        entry["regions_with_capacity_available"].is_array())
      for (const auto& r : entry["regions_with_capacity_available"])
        if (r.is_object() && !str(r, "name").empty()) it.regions.push_back(str(r, "name"));
    out.push_back(std::move(it));
  }
  return out;
}

std::string catalog_name(const std::string& type) {
  // gpu_<n>x_<suffix>
  std::string suffix = type;
  if (suffix.rfind("gpu_", 0) == 0) {
    const size_t x = suffix.find("x_", 4);
    if (x != std::string::npos) suffix = suffix.substr(x + 2);
  }
  for (const auto& [s, name] : kTypes)
    if (suffix == s) return name;
  std::string up = suffix;
  for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return up;
}

}  // namespace burst::lambda

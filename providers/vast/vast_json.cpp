#include "vast/vast_json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "util/whole_number.h"
#include "vast/vast_offers_sax.h"
#include "vast/vast_provider.h"

namespace burst::vast {
namespace {

// Vast GPU names (offer `gpu_name`, REFERENCE §4.2) -> catalog names (config/gpus.yaml). A row
// with min_ram_mb applies only to GPUs with at least that much RAM (A100 40 GB vs 80 GB share
// their Vast names); rows are tried in order. Names beyond REFERENCE's examples follow the rules of
// dstack's gpuhunt (providers/vastai.py: "RTX 4070 Ti", "RTX 5000Ada", "Q RTX 8000", "H200 NVL");
// "RTX PRO 6000 WS" and "RTX PRO 6000 S" as public Vast clients query them.
struct GpuRow {
  const char* vast;
  const char* catalog;
  double min_ram_mb;
};
const GpuRow kGpus[] = {
    {"RTX 2080 Ti", "RTX_2080_TI", 0},
    {"RTX 3060", "RTX_3060", 0},
    {"RTX 3070", "RTX_3070", 0},
    {"RTX 3080", "RTX_3080", 0},
    {"RTX 3080 Ti", "RTX_3080_TI", 0},
    {"RTX 3090", "RTX_3090", 0},
    {"RTX 3090 Ti", "RTX_3090_TI", 0},
    {"RTX 4060 Ti", "RTX_4060_TI", 15000},  // the 16 GB card; the 8 GB one shares the name
    {"RTX 4060 Ti", "RTX_4060_TI_8GB", 0},
    {"RTX 4070", "RTX_4070", 0},
    {"RTX 4070S", "RTX_4070_SUPER", 0},
    {"RTX 4070 Ti", "RTX_4070_TI", 0},
    {"RTX 4080", "RTX_4080", 0},
    {"RTX 4080S", "RTX_4080_SUPER", 0},
    {"RTX 4090", "RTX_4090", 0},
    {"RTX 5060 Ti", "RTX_5060_TI", 15000},
    {"RTX 5060 Ti", "RTX_5060_TI_8GB", 0},
    {"RTX 5070", "RTX_5070", 0},
    {"RTX 5070 Ti", "RTX_5070_TI", 0},
    {"RTX 5080", "RTX_5080", 0},
    {"RTX 5090", "RTX_5090", 0},
    {"RX 7900 XTX", "RX_7900_XTX", 0},
    {"Q RTX 6000", "QUADRO_RTX_6000", 0},
    {"Q RTX 8000", "QUADRO_RTX_8000", 0},
    {"RTX A4000", "RTX_A4000", 0},
    {"RTX A4500", "RTX_A4500", 0},
    {"RTX A5000", "RTX_A5000", 0},
    {"RTX A6000", "RTX_A6000", 0},
    {"RTX 2000Ada", "RTX_2000_ADA", 0},
    {"RTX 4000Ada", "RTX_4000_ADA", 0},
    {"RTX 5000Ada", "RTX_5000_ADA", 0},
    {"RTX 6000Ada", "RTX_6000_ADA", 0},
    {"RTX PRO 6000 WS", "RTX_PRO_6000", 0},
    {"RTX PRO 6000 S", "RTX_PRO_6000_SERVER", 0},
    {"Tesla T4", "T4", 0},
    {"Tesla V100", "V100_32GB", 30000},  // one name for every V100; 32 GB as the SXM2 card
    {"Tesla V100", "V100", 0},
    {"A10", "A10", 0},
    {"A40", "A40", 0},
    {"L4", "L4", 0},
    {"L40", "L40", 0},
    {"L40S", "L40S", 0},
    {"A100 PCIE", "A100_80GB_PCIE", 60000},
    {"A100 PCIE", "A100_40GB_PCIE", 0},
    {"A100 SXM4", "A100_80GB", 60000},
    {"A100 SXM4", "A100_40GB", 0},
    {"H100 PCIE", "H100_PCIE", 0},
    {"H100 NVL", "H100_NVL", 0},
    {"H100 SXM", "H100_SXM", 0},
    {"GH200 SXM", "GH200", 0},
    {"H200", "H200", 0},
    {"H200 SXM", "H200", 0},
    {"H200 NVL", "H200_NVL", 0},
    {"B200", "B200", 0},
    {"MI300X", "MI300X", 0},
};

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  std::string s = it->get<std::string>();  // Vast strings may carry stray whitespace
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t lead = 0;
  while (lead < s.size() && std::isspace(static_cast<unsigned char>(s[lead]))) ++lead;
  return s.substr(lead);
}

double num(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) return std::atof(it->get<std::string>().c_str());
  return 0;
}

bool integer(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer();
}

Error not_documented(const std::string& what, const std::string& body) {
  std::string head = body.substr(0, 120);
  return make_error(ErrorCode::kUnavailable,
                    "vast: " + what + ": the response is not the documented JSON (" + head +
                        (body.size() > 120 ? "..." : "") + "); not treating it as empty");
}

// The object's array under `key`, or nullptr when the body is not {"<key>": [...]}.
const json* array_in(const json& j, const char* key) {
  if (j.is_discarded() || !j.is_object()) return nullptr;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? &*it : nullptr;
}

}  // namespace

std::string error_message(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return body.substr(0, 300);  // 429s are often text
  std::string msg = str(j, "msg");
  if (msg.empty()) msg = str(j, "message");
  if (msg.empty()) msg = str(j, "detail");
  const std::string code = str(j, "error");
  if (!code.empty() && msg.find(code) == std::string::npos)
    msg = msg.empty() ? code : code + ": " + msg;
  return msg.empty() ? body.substr(0, 300) : msg;
}

bool is_no_capacity(int status, const std::string& body) {
  if (status != 404 && status != 410) return false;
  return body.find("no_such_ask") != std::string::npos;
}

Result<std::vector<VastOffer>> parse_offers(const std::string& body) {
  std::vector<VastOffer> out;
  if (!read_offers(body, &out)) return not_documented("search offers", body);
  return out;
}

std::string region_for(const std::string& geolocation, long machine_id) {
  return (geolocation.empty() ? std::string("?") : geolocation) + " (machine " +
         std::to_string(machine_id) + ")";
}

std::string new_volume_note(long machine, const std::vector<long>& elsewhere) {
  std::string note = "created empty on machine " + std::to_string(machine) +
                     ": nothing from earlier runs (e.g. cached weights) is on it";
  if (elsewhere.empty()) return note;
  note += "; Vast volumes live on one machine, and the one of this name on machine";
  note += elsewhere.size() > 1 ? "s " : " ";
  for (size_t i = 0; i < elsewhere.size(); ++i)
    note += (i ? ", " : "") + std::to_string(elsewhere[i]);
  return note + " stays there, unused by this run";
}

long machine_of(const std::string& region) {
  const std::string tag = "(machine ";
  size_t at = region.rfind(tag);
  if (at == std::string::npos) return 0;
  return std::atol(region.c_str() + at + tag.size());
}

Offer to_offer(const VastOffer& o) {
  Offer out;
  out.provider = "vast";
  out.gpu_type = catalog_name(o.gpu_name, o.gpu_ram_mb);
  out.gpu_count = o.num_gpus;
  if (o.gpu_ram_mb > 0) out.vram_gb = std::round(o.gpu_ram_mb / 1024.0);  // API unit: MB
  out.usd_per_hour = o.dph_total;  // whole offer, GPU + disk (REFERENCE §4.2 "Pricing")
  out.region = region_for(o.geolocation, o.machine_id);
  out.available = o.rentable && !o.rented;
  out.price_source = "live offer";
  out.volume_usd_per_gb_month = o.storage_cost;  // a volume on this machine (REFERENCE §4.7)
  out.disk_read_bps = o.disk_bw * 1e6;           // MB/s: the weights' read from this host's disk
  // The spec says MB/s, the CLI's help and filters Mb/s (REFERENCE §4.2, "Unit conflicts"); read
  // as Mb/s, the smaller rate, so a download is never planned faster than the host's link allows.
  out.download_bps = o.inet_down * 1e6 / 8;
  // Bandwidth is billed per GB beside dph_total (REFERENCE §4.2 "Pricing": "bandwidth billed
  // separately per GB"); the planner adds what the hosts download (plan/candidates.h).
  out.download_usd_per_gb = o.inet_down_cost;
  out.upload_usd_per_gb = o.inet_up_cost;
  if (const double spot = spot_usd_per_hour(o); spot > 0 && spot < out.usd_per_hour)
    out.spot_usd_per_hour = spot;
  return out;
}

Result<std::vector<VastVolume>> parse_volumes(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  const json* arr = array_in(j, "volumes");
  if (!arr) return not_documented("list volumes", body);
  std::vector<VastVolume> out;
  for (const auto& v : *arr) {
    if (!v.is_object() || !integer(v, "id")) return not_documented("list volumes", body);
    VastVolume x;
    x.id = v["id"].get<long>();
    x.machine_id = whole_number<long>(num(v, "machine_id")).value_or(0);
    // The spec's Volume has no name; the list carries the name given at create (UNCONFIRMED),
    // read as `name` or `label`.
    x.name = str(v, "name");
    if (x.name.empty()) x.name = str(v, "label");
    x.name = decode_volume_name(x.name);
    x.size_gb = num(v, "disk_space");
    x.geolocation = str(v, "geolocation");
    out.push_back(std::move(x));
  }
  return out;
}

long volume_id_from_name(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (!j.is_object() || !j.value("volume_name", json()).is_string()) return 0;
  const std::string n = j["volume_name"];
  if (n.size() < 3 || n.compare(0, 2, "V.") != 0) return 0;
  for (size_t i = 2; i < n.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(n[i]))) return 0;
  return n.size() > 20 ? 0 : std::atol(n.c_str() + 2);
}

std::string encode_volume_name(const std::string& name) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      s += c;
    } else if (c == '_') {
      s += "__";
    } else if (c == '-') {
      s += "_d";
    } else {
      s += "_x";
      s += hex[u >> 4];
      s += hex[u & 15];
    }
  }
  return s;
}

std::string decode_volume_name(const std::string& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '_' || i + 1 >= v.size()) {
      s += v[i];
    } else if (v[i + 1] == '_') {
      s += '_';
      ++i;
    } else if (v[i + 1] == 'd') {
      s += '-';
      ++i;
    } else if (v[i + 1] == 'x' && i + 3 < v.size()) {
      s += static_cast<char>(std::strtol(v.substr(i + 2, 2).c_str(), nullptr, 16));
      i += 3;
    } else {
      s += v[i];
    }
  }
  return s;
}

bool start_error(const json& j) {
  const std::string s = str(j, "actual_status");
  if (!s.empty() && s != "created" && s != "loading") return false;
  return str(j, "status_msg").find("OCI runtime create failed") != std::string::npos;
}

PodState instance_state(const json& j) {
  if (str(j, "cur_state") == "unloaded") return PodState::kGone;  // released on destroy
  if (start_error(j)) return PodState::kStopping;                 // it will not start
  const std::string s = str(j, "actual_status");                  // null while provisioning
  if (s.empty() || s == "created" || s == "loading" || s == "rebooting" || s == "scheduling")
    return PodState::kPending;
  if (s == "running") return PodState::kRunning;
  // stopped/exited/frozen/offline/unknown: the instance exists (and bills disk) until destroyed.
  return PodState::kStopping;
}

Result<Pod> parse_instance(const json& j) {
  if (!j.is_object() || !integer(j, "id")) return not_documented("instance", j.dump());
  Pod p;
  p.id = std::to_string(j["id"].get<long>());
  p.name = str(j, "label");
  p.state = instance_state(j);
  p.start_failed = start_error(j);
  p.preempted = instance_preempted(j);
  p.gpu_type = catalog_name(str(j, "gpu_name"), num(j, "gpu_ram"));
  p.usd_per_hour = num(j, "dph_total");
  for (char c : str(j, "status_msg"))  // untrusted text: printable, short, one line
    if (p.status_note.size() < 200) p.status_note += c >= 0x20 && c < 0x7f ? c : ' ';
  while (!p.status_note.empty() && p.status_note.back() == ' ') p.status_note.pop_back();
  if (p.state != PodState::kRunning) return p;
  // Direct first (public_ipaddr + the host port mapped to 22/tcp), else the proxy ssh_host and
  // ssh_port, as vast-cli's ssh-url does (REFERENCE §4.4.2). User root, key-only.
  const json ports = j.value("ports", json());
  if (ports.is_object() && ports.contains("22/tcp") && ports["22/tcp"].is_array() &&
      !ports["22/tcp"].empty() && ports["22/tcp"][0].is_object()) {
    const int port = port_number(num(ports["22/tcp"][0], "HostPort"));
    const std::string ip = str(j, "public_ipaddr");
    if (port > 0 && !ip.empty()) p.ssh = {ip, port, "root"};
  }
  if (p.ssh.port == 0 && !str(j, "ssh_host").empty() && port_number(num(j, "ssh_port")) > 0)
    p.ssh = {str(j, "ssh_host"), port_number(num(j, "ssh_port")), "root"};
  return p;
}

Result<InstancePage> parse_instance_page(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  const json* arr = array_in(j, "instances");
  if (!arr) return not_documented("list instances", body);
  InstancePage page;
  for (const auto& item : *arr) {
    auto p = parse_instance(item);
    if (!p.ok()) return not_documented("list instances", body);
    page.pods.push_back(std::move(*p));
  }
  auto tok = j.find("next_token");
  if (tok != j.end() && !tok->is_null()) {
    if (!tok->is_string()) return not_documented("list instances", body);
    page.next_token = tok->get<std::string>();
  }
  return page;
}

Result<std::vector<std::string>> parse_ssh_keys(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  // The spec says a bare array; accept {"ssh_keys":[...]} / {"keys":[...]} as well.
  const json* arr = j.is_array() ? &j : array_in(j, "ssh_keys");
  if (!arr) arr = array_in(j, "keys");
  if (!arr) return not_documented("list ssh keys", body);
  std::vector<std::string> out;
  for (const auto& k : *arr) {
    if (!k.is_object()) return not_documented("list ssh keys", body);
    std::string key = str(k, "public_key");
    if (key.empty()) key = str(k, "key");
    if (key.empty()) key = str(k, "ssh_key");
    out.push_back(key);
  }
  return out;
}

std::string catalog_name(const std::string& name, double gpu_ram_mb) {
  for (const auto& row : kGpus)
    if (name == row.vast && gpu_ram_mb >= row.min_ram_mb) return row.catalog;
  std::string s = name;
  for (auto& c : s)
    c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(c)) : '_';
  return s;
}

std::vector<std::string> vast_names_for(const std::string& catalog) {
  std::vector<std::string> out;
  for (const auto& row : kGpus)
    if (catalog == row.catalog && std::find(out.begin(), out.end(), row.vast) == out.end())
      out.push_back(row.vast);
  return out;
}

}  // namespace burst::vast

namespace burst {

double vast_image_cuda(const std::string& image) {
  const size_t colon = image.rfind(':');
  if (colon == std::string::npos || image.find('/', colon) != std::string::npos) return 0;
  const std::string tag = image.substr(colon + 1);
  // "cuda12.1", "cuda-12.1", "cu121"; an nvidia/cuda tag starts with the version itself.
  const bool cuda_repo =
      image.rfind("nvidia/cuda:", 0) == 0 || image.find("/nvidia/cuda:") != std::string::npos;
  for (size_t i = 0; i < tag.size(); ++i) {
    size_t at = std::string::npos;
    if (cuda_repo && i == 0)
      at = 0;
    else if (tag.compare(i, 4, "cuda") == 0)
      at = i + 4 + (i + 4 < tag.size() && tag[i + 4] == '-');
    else if (tag.compare(i, 2, "cu") == 0)
      at = i + 2;
    if (at == std::string::npos || at + 2 > tag.size()) continue;
    if (!std::isdigit(static_cast<unsigned char>(tag[at])) ||
        !std::isdigit(static_cast<unsigned char>(tag[at + 1])))
      continue;
    const int major = (tag[at] - '0') * 10 + (tag[at + 1] - '0');
    size_t m = at + 2;
    if (m < tag.size() && tag[m] == '.') ++m;
    if (m >= tag.size() || !std::isdigit(static_cast<unsigned char>(tag[m]))) continue;
    if (major < 10 || major > 19) continue;
    return major + (tag[m] - '0') / 10.0;
  }
  return 0;
}

}  // namespace burst

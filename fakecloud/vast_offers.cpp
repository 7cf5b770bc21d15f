// Vast.ai's offer search as the emulator serves it (POST /api/v0/bundles/; vast_api.cpp serves
// the rest): the emulator's machines, the offers they make (one per power of two of their GPUs,
// rentable while the machine has that many free), the {field: {op: value}} query language,
// order and limit, and Vast's error bodies. Machines and prices are the emulator's own
// illustrative numbers, not Vast's.
#include "vast_offers.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>

namespace burst::fakecloud::vast {

using nlohmann::json;

namespace {

const Machine kMachines[] = {
    {41201, "RTX 4090", 8, 24564, 0.35, "Washington, US"},
    {41202, "RTX 4090", 2, 24564, 0.31, "Quebec, CA"},
    {41203, "RTX 4090", 1, 24564, 0.22, "Nowhere, XX", 0.81, 0, 12.0, 11.8},
    {52310, "RTX 3090", 4, 24576, 0.19, "Germany, DE"},
    {60011, "A100 SXM4", 8, 81920, 1.10, "Utah, US"},
    {60012, "H100 SXM", 8, 81559, 2.05, "Texas, US"},
    {70001, "RTX A6000", 4, 49140, 0.45, "Romania, RO"},
    {70002, "L40S", 4, 46068, 0.72, "Norway, NO"},
};

}  // namespace

const Machine* machine_by_id(long id) {
  for (const auto& m : kMachines)
    if (m.id == id) return &m;
  return nullptr;
}

// The CUDA version an image's tag names ("...-cuda12.1-...", "cu121", "cuda-12.4"); 0 when none.
double image_cuda(const std::string& image) {
  static const std::regex kCuda(R"((?:cuda-?|cu)(\d{2})\.?(\d))");
  std::smatch m;
  const std::string tag =
      image.substr(image.find(':') == std::string::npos ? image.size() : image.find(':'));
  if (!std::regex_search(tag, m, kCuda)) return 0;
  return std::stoi(m[1]) + std::stoi(m[2]) / 10.0;
}
namespace {

const char* const kExtraNames[] = {"RTX 4090",  "RTX 3090", "RTX A6000", "L40S",
                                   "A100 SXM4", "H100 SXM", "RTX 5090",  "A40"};
const char* const kExtraPlaces[] = {"Oregon, US", "Ontario, CA", "France, FR", "Japan, JP"};
constexpr long kExtraMachineBase = 100000;

}  // namespace

// Vast's error shape: {"success":false,"error":<code>,"msg":<text>}; 429 is {"detail":...}.
std::string error_body(int status, const std::string& detail) {
  if (status == 429)
    return json{{"detail", "API requests too frequent endpoint threshold=2.0"}}.dump();
  if (status == 401)
    return json{{"success", false}, {"error", "auth_error"}, {"msg", "Invalid user key"}}.dump();
  if (status == 404 && detail.find("bearer token") != std::string::npos)  // searchOffers' 401
    return json{{"error", "auth_error"}, {"msg", "Invalid user key"}}.dump();
  const char* code = status >= 500 ? "server_error" : status == 404 ? "not_found" : "invalid_args";
  return json{{"success", false}, {"error", code}, {"msg", detail}}.dump();
}

// searchOffers documents a missing or invalid key as 404 {"error", "msg": "Invalid user key"}
// (spec, POST /api/v0/bundles responses); every other path answers 401 auth_error.
int refused_key_status(const std::string& method, const std::string& path) {
  if (method != "POST") return 0;
  const std::string tail = "/api/v0/bundles";
  const size_t at = path.find(tail);
  if (at == std::string::npos) return 0;
  const std::string rest = path.substr(at + tail.size());
  return rest.empty() || rest == "/" ? 404 : 0;
}

namespace {

// searchOffers' documented body fields (spec), plus vast-cli's `disable_bundling`.
const char* const kSearchFields[] = {"allocated_storage",
                                     "bw_nvlink",
                                     "compute_cap",
                                     "cpu_arch",
                                     "cpu_cores",
                                     "cpu_cores_effective",
                                     "cpu_ghz",
                                     "cpu_ram",
                                     "cuda_max_good",
                                     "datacenter",
                                     "direct_port_count",
                                     "disk_bw",
                                     "disk_space",
                                     "dlperf",
                                     "dlperf_per_dphtotal",
                                     "dph_total",
                                     "driver_version",
                                     "duration",
                                     "external",
                                     "flops_per_dphtotal",
                                     "geolocation",
                                     "gpu_arch",
                                     "gpu_display_active",
                                     "gpu_frac",
                                     "gpu_max_power",
                                     "gpu_max_temp",
                                     "gpu_mem_bw",
                                     "gpu_name",
                                     "gpu_ram",
                                     "gpu_total_ram",
                                     "has_avx",
                                     "host_id",
                                     "id",
                                     "inet_down",
                                     "inet_down_cost",
                                     "inet_up",
                                     "inet_up_cost",
                                     "limit",
                                     "machine_id",
                                     "min_bid",
                                     "mobo_name",
                                     "num_gpus",
                                     "order",
                                     "os_version",
                                     "pci_gen",
                                     "pcie_bw",
                                     "reliability",
                                     "rentable",
                                     "rented",
                                     "static_ip",
                                     "storage_cost",
                                     "total_flops",
                                     "type",
                                     "ubuntu_version",
                                     "verification",
                                     "verified",
                                     "vms_enabled",
                                     "disable_bundling"};

}  // namespace

void fail(httplib::Response& res, int status, const std::string& code, const std::string& msg,
          json extra) {
  json j = {{"success", false}, {"error", code}, {"msg", msg}};
  for (const auto& [k, v] : extra.items()) j[k] = v;
  send_json(res, status, j);
}

namespace {

// Every offer, with the account's live instances using up their machine's GPUs: an offer of n
// GPUs is rentable while its machine has n free (on Vast one machine rents to several instances,
// each an ask for part of its GPUs, so an 8-GPU host serves eight 1-GPU instances).
OfferTable build_offer_table(const Faults& f, const GpusInUse& in_use, double allocated_storage,
                             bool bid) {
  OfferTable out;
  auto add = [&](long machine, const std::string& gpu, int count, int ram, double per_gpu,
                 const std::string& geo, long id, int machine_gpus, const Machine& q) {
    const auto repriced = f.usd_per_gpu.find(machine);
    const double base = (repriced != f.usd_per_gpu.end() ? repriced->second : per_gpu) * count;
    const double min_bid = base * 0.6;
    const double storage = allocated_storage * kStorageCost / 720;  // $/GB/month -> $/h
    const auto used = in_use.find(machine);
    const bool taken =
        (used != in_use.end() && used->second + count > machine_gpus) || f.no_capacity.count(gpu);
    json o = {{"id", id},
              {"ask_contract_id", id},
              {"bundle_id", id + 7},
              {"machine_id", machine},
              {"host_id", machine % 997},
              {"num_gpus", count},
              {"gpu_name", gpu},
              {"gpu_ram", ram},
              {"gpu_total_ram", ram * count},
              {"gpu_arch", "nvidia"},
              {"cpu_cores_effective", 8.0 * count},
              {"cpu_ram", 64000 * count},
              {"disk_space", 500.0},
              {"dph_base", base},
              {"dph_total", (bid ? min_bid : base) + storage},
              {"min_bid", min_bid},
              {"storage_cost", kStorageCost},
              {"reliability", q.reliability},
              {"reliability2", q.reliability},
              {"geolocation", geo},
              {"public_ipaddr", "127.0.0.1"},
              {"direct_port_count", q.direct_ports},
              {"inet_down", q.inet_down},
              {"inet_up", q.inet_down / 2},
              {"inet_down_cost", f.inet_down_cost},
              {"inet_up_cost", f.inet_up_cost},
              {"cuda_max_good", q.cuda},
              {"verified", true},
              {"verification", "verified"},
              {"external", false},
              {"rentable", !taken},
              {"rented", taken},
              {"resource_type", "gpu"},
              {"is_bid", bid}};
    std::string text = o.dump();
    out.push_back({std::move(o), std::move(text)});
  };
  for (const auto& m : kMachines) {
    int k = 0;
    for (int count = 1; count <= m.gpus; count *= 2, ++k)
      add(m.id, m.gpu_name, count, m.gpu_ram_mb, m.usd_per_gpu, m.geolocation, m.id * 10 + k,
          m.gpus, m);
  }
  for (int i = 0; i < f.extra_offers; ++i) {  // synthetic machines, for benchmarks
    const long machine = kExtraMachineBase + i;
    add(machine, kExtraNames[i % 8], 1 << (i % 4), 24576 + (i % 3) * 24576, 0.1 + (i % 97) * 0.03,
        kExtraPlaces[i % 4], machine * 10, 1 << (i % 4), Machine{});
  }
  return out;
}

GpusInUse gpus_in_use(CloudState& state) {
  GpusInUse used;
  for (const auto& p : state.all_pods())
    if (p.provider == kProvider && p.phase != Phase::kTerminated && p.extra.is_object())
      used[p.extra.value("machine_id", 0L)] += std::max(1, p.gpu_count);
  return used;
}

}  // namespace

OfferTable offer_table(CloudState& state, double allocated_storage, bool bid) {
  return build_offer_table(state.faults(kProvider), gpus_in_use(state), allocated_storage, bid);
}

namespace {

// The table for a search, built once per change of what it depends on: the knobs, the
// account's rented offers, the storage asked for and the price type.
std::shared_ptr<const OfferTable> offer_table(CloudState& state, BuiltOnce<OfferTable>& cache,
                                              double allocated_storage, bool bid) {
  const Faults f = state.faults(kProvider);
  const GpusInUse used = gpus_in_use(state);
  std::string key = std::to_string(f.extra_offers) + " " + std::to_string(allocated_storage) +
                    (bid ? " bid" : " ondemand");
  for (const auto& n : f.no_capacity) key += "\n" + n;
  for (const auto& [machine, usd] : f.usd_per_gpu)
    key += " $" + std::to_string(machine) + ":" + std::to_string(usd);
  key += " inet $" + std::to_string(f.inet_down_cost) + "/" + std::to_string(f.inet_up_cost);
  for (const auto& [machine, n] : used)
    key += " " + std::to_string(machine) + ":" + std::to_string(n);
  return cache.get(key, [&] { return build_offer_table(f, used, allocated_storage, bid); });
}

}  // namespace

// One {op: value} condition against an offer's field; a field the offer lacks is not filtered.
bool matches(const json& have, const json& cond) {
  if (!cond.is_object()) return have == cond;
  for (const auto& [op, want] : cond.items()) {
    bool ok = true;
    if (op == "eq")
      ok = have == want;
    else if (op == "neq")
      ok = have != want;
    else if (op == "gt")
      ok = have > want;
    else if (op == "gte")
      ok = have >= want;
    else if (op == "lt")
      ok = have < want;
    else if (op == "lte")
      ok = have <= want;
    else if (op == "in" || op == "notin") {
      bool found = want.is_array() && std::find(want.begin(), want.end(), have) != want.end();
      ok = op == "in" ? found : !found;
    }
    if (!ok) return false;
  }
  return true;
}

void search_offers(CloudState& state, BuiltOnce<OfferTable>& cache, const httplib::Request& req,
                   httplib::Response& res) {
  json q = req.body.empty() ? json::object() : json::parse(req.body, nullptr, false);
  if (q.is_discarded() || !q.is_object())
    return fail(res, 400, "invalid_request", "Invalid query: must be dict of conditions");
  // The docs say nothing of unknown fields here; the emulator answers 400 rather than filter
  // silently on a field Vast may not know (docs/providers.md, "Emulator strictness").
  for (const auto& [field, cond] : q.items())
    if (std::none_of(std::begin(kSearchFields), std::end(kSearchFields),
                     [&f = field](const char* k) { return f == k; }))
      return fail(res, 400, "invalid_request", "Invalid query: unknown field '" + field + "'");
  const std::string type = q.value("type", "ondemand");
  if (type != "ondemand" && type != "on-demand" && type != "bid" && type != "reserved")
    return fail(res, 400, "invalid_args", "type must be one of ondemand, bid, reserved");
  const json alloc = q.value("allocated_storage", json(8.0));
  if (!alloc.is_number())
    return fail(res, 400, "invalid_args", "allocated_storage: expected a number");
  auto table = offer_table(state, cache, alloc.get<double>(), type == "bid");
  std::vector<const OfferRow*> out;
  for (const auto& row : *table) {
    bool ok = true;
    for (const auto& [field, cond] : q.items()) {
      if (field == "order" || field == "limit" || field == "type" || field == "allocated_storage" ||
          field == "disable_bundling")
        continue;
      auto have = row.obj.find(field);
      if (have != row.obj.end() && !matches(*have, cond)) ok = false;
      if (!ok) break;
    }
    if (ok) out.push_back(&row);
  }
  json order = q.value("order", json::array({json::array({"score", "desc"})}));
  if (order.is_array() && !order.empty() && order[0].is_array() && order[0].size() == 2) {
    const std::string col = order[0][0].get<std::string>();
    const bool desc = order[0][1] == "desc";
    static const json kZero = 0;  // an offer without the column sorts as 0
    auto at = [&](const OfferRow* r) -> const json& {
      auto it = r->obj.find(col);
      return it == r->obj.end() ? kZero : *it;
    };
    std::stable_sort(out.begin(), out.end(), [&](const OfferRow* a, const OfferRow* b) {
      return desc ? at(b) < at(a) : at(a) < at(b);
    });
  }
  const json limit = q.value("limit", json(64));
  if (limit.is_number_integer() && limit.get<long>() >= 0 &&
      out.size() > static_cast<size_t>(limit.get<long>()))
    out.resize(static_cast<size_t>(limit.get<long>()));
  // The answer is {"offers":[...]} made of each offer's text serialized once.
  std::string body = "{\"offers\":[";
  size_t size = body.size() + 2;
  for (const OfferRow* r : out) size += r->text.size() + 1;
  body.reserve(size);
  for (size_t i = 0; i < out.size(); ++i) {
    if (i) body += ',';
    body += out[i]->text;
  }
  body += "]}";
  res.status = 200;
  res.set_content(body, "application/json");
}

}  // namespace burst::fakecloud::vast

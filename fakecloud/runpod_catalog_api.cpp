// RunPod REST v2's catalog as the emulator serves it (runpod_api.cpp serves the rest): GET
// /v2/catalog/gpus and /v2/catalog/cpus, with the include=AVAILABILITY and product query rules,
// and /v2/catalog/datacenters, each in the published spec's shape ("Frontdoor v2.9.0",
// REFERENCE.md §2.4). The types and prices are the emulator's own (runpod_catalog.h).
#include "api_module.h"
#include "body_cache.h"
#include "runpod_catalog.h"

namespace burst::fakecloud {
namespace {

using nlohmann::json;
const char* const kProvider = "runpod";

json gpu_type_json(const GpuKind& g, double secure, double community, const Faults& f,
                   bool with_availability) {
  json j = {{"id", g.id},
            {"name", g.name},
            {"pool", g.pool ? json(g.pool) : json(nullptr)},
            {"manufacturer", "NVIDIA"},
            {"memory", g.memory},
            {"secure", true},
            {"community", true},
            {"price", {{"secure", secure}, {"community", community}}},
            {"maxCount", {{"secure", g.max_secure}, {"community", g.max_community}}}};
  if (with_availability) {
    const char* level = f.no_capacity.count(g.id) ? "NONE" : "HIGH";
    j["availability"] = level;
    json dcs = json::array();
    for (const auto& dc : kDataCenters)
      dcs.push_back({{"id", dc.id}, {"name", dc.name}, {"availability", level}});
    j["dataCenters"] = dcs;
    j["cudaVersions"] = json::array({{{"version", "12.8"}, {"available", level[0] != 'N'}}});
  }
  return j;
}

// include/product rules shared by the GPU and CPU catalogs; false when it answered 400.
bool catalog_params(const httplib::Request& req, httplib::Response& res, bool* availability) {
  const bool has_include = req.has_param("include"), has_product = req.has_param("product");
  if (has_include && req.get_param_value("include") != "AVAILABILITY") {
    runpod_fail(res, 400, "include: unsupported value \"" + req.get_param_value("include") + "\"");
    return false;
  }
  if (has_include != has_product) {
    runpod_fail(res, 400, "product is required with, and only valid with, include=AVAILABILITY");
    return false;
  }
  *availability = has_include;
  return true;
}

void list_gpus(CloudState& state, BuiltOnce<std::string>& cache, const httplib::Request& req,
               httplib::Response& res) {
  bool availability = false;
  if (!catalog_params(req, res, &availability)) return;
  const Faults f = state.faults(kProvider);
  // The answer depends only on these: serialized once per change.
  std::string key = std::to_string(availability) + " " + std::to_string(f.extra_offers);
  for (const auto& n : f.no_capacity) key += "\n" + n;
  auto body = cache.get(key, [&] {
    json gpus = json::array();
    for (const auto& g : kGpus)
      gpus.push_back(gpu_type_json(g, g.secure, g.community, f, availability));
    for (int i = 0; i < f.extra_offers; ++i) {  // synthetic types, for benchmarks
      std::string id = "FAKE GPU " + std::to_string(i), name = "FAKE " + std::to_string(i);
      GpuKind g{id.c_str(), name.c_str(), nullptr, 16 + (i % 8) * 8, 0, 0, 8, 8};
      gpus.push_back(
          gpu_type_json(g, 0.2 + (i % 97) * 0.03, 0.1 + (i % 89) * 0.02, f, availability));
    }
    return json{{"gpus", gpus}}.dump();
  });
  res.status = 200;
  res.set_content(*body, "application/json");
}

void list_cpus(CloudState& state, const httplib::Request& req, httplib::Response& res) {
  bool availability = false;
  if (!catalog_params(req, res, &availability)) return;
  const Faults f = state.faults(kProvider);
  json cpus = json::array();
  for (const auto& c : kCpus) {
    json j = {{"id", c.id},
              {"name", c.name},
              {"group", c.group},
              {"vcpu", {{"min", 2}, {"max", 32}}},
              {"ramGbPerVcpu", c.ram_per_vcpu},
              {"price", {{"securePerVcpu", c.secure_per_vcpu}, {"serverlessPerVcpu", 0.05}}}};
    if (availability) {
      const char* level = f.no_capacity.count(c.id) ? "NONE" : "HIGH";
      j["availability"] = level;
      json dcs = json::array();
      for (const auto& dc : kDataCenters)
        if (std::string(c.not_in) != dc.id)
          dcs.push_back({{"id", dc.id}, {"name", dc.name}, {"availability", level}});
      j["dataCenters"] = dcs;
    }
    cpus.push_back(j);
  }
  send_json(res, 200, {{"cpus", cpus}});
}

}  // namespace

void install_runpod_catalog(httplib::Server& s, CloudState& state, const std::string& v2) {
  auto gpus = std::make_shared<BuiltOnce<std::string>>();
  s.Get(v2 + "/catalog/gpus", [&state, gpus](const httplib::Request& q, httplib::Response& r) {
    list_gpus(state, *gpus, q, r);
  });
  s.Get(v2 + "/catalog/cpus",
        [&state](const httplib::Request& q, httplib::Response& r) { list_cpus(state, q, r); });
  s.Get(v2 + "/catalog/datacenters", [](const httplib::Request&, httplib::Response& r) {
    json dcs = json::array();
    for (const auto& d : kDataCenters)
      dcs.push_back({{"id", d.id},
                     {"name", d.name},
                     {"region", d.id[0] == 'E' ? "EUROPE" : "NORTH_AMERICA"},
                     {"globalNetwork", false},
                     {"networkVolumeTypes", d.volumes ? json::array({"STANDARD"}) : json::array()},
                     {"compliance", json::array()}});
    send_json(r, 200, {{"dataCenters", dcs}});
  });
}

}  // namespace burst::fakecloud

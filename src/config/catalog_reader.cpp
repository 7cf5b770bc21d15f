// Reads the GPU catalog and the offline price table (config/gpus.yaml, config/prices.yaml) with
// the YAML field reader (src/yaml/yaml_fields.h), so their errors read like the spec's:
// "file:line:col: field: message". Which file is read (the config dir's or the built-in one) is
// src/cost's business (catalog_load.cpp); this is only the reader.
#include <algorithm>
#include <climits>
#include <map>
#include <string_view>
#include <tuple>

#include "burst/gpu_catalog.h"
#include "yaml/yaml_fields.h"

namespace burst {

namespace {

using yaml::Fields;
using yaml::Need;
using yaml::Problems;
using sv = std::string_view;

constexpr sv kCatalogFields[] = {"version", "as_of", "gpus"};
constexpr sv kGpuFields[] = {"name",         "vendor",           "segment",      "vram_gb",
                             "mem_bw_gbs",   "fp16_tflops",      "fp8_tflops",   "tdp_w",
                             "interconnect", "interconnect_gbs", "purchase_usd", "source",
                             "memory",       "precisions",       "vram_mib"};
constexpr sv kVendors[] = {"nvidia", "amd"};
constexpr sv kSegments[] = {"consumer", "workstation", "datacenter"};
constexpr sv kInterconnects[] = {"nvlink", "pcie", "infinity-fabric"};
constexpr sv kMemories[] = {"hbm", "gddr"};
constexpr sv kPrecisions[] = {"fp32", "fp16", "bf16", "fp8", "int8", "int4"};

constexpr sv kPriceFields[] = {"version", "as_of", "source", "entries"};
constexpr sv kEntryFields[] = {"provider",          "gpu",   "gpu_count", "usd_per_hour",
                               "spot_usd_per_hour", "region"};

// `version`, when given, must be 1: a newer file needs a newer burst.
void check_version(Fields& top) {
  std::optional<yaml::Node> node = top.get("version");
  if (!node) return;
  std::optional<long> version =
      yaml::read_integer(*node, "version", LONG_MIN, LONG_MAX, top.problems());
  if (version && *version != 1) {
    top.problems().add(yaml::pos_of(*node), "version",
                       "unsupported version " + node->scalar() + " (this burst reads version 1)");
  }
}

std::optional<double> required_number(Fields& fields, sv key) {
  std::optional<yaml::Node> node = fields.get(key, Need::kRequired);
  return node ? yaml::read_positive_number(*node, fields.path_of(key), fields.problems())
              : std::nullopt;
}

// The list `key` of `top`, or nullopt after reporting it missing, empty or not a list.
std::optional<yaml::Node> required_list(Fields& top, sv key) {
  std::optional<yaml::Node> list = top.get(key, Need::kRequired);
  if (!list) return std::nullopt;
  if (!list->is_sequence()) {
    top.problems().add(yaml::pos_of(*list), top.path_of(key),
                       "expected a list, got " + yaml::kind_of(*list));
    return std::nullopt;
  }
  if (list->size() == 0) {
    top.problems().add(yaml::pos_of(*list), top.path_of(key), "must not be empty");
    return std::nullopt;
  }
  return list;
}

std::optional<GpuSpec> read_gpu(const yaml::Node& item, const std::string& path,
                                Problems& problems) {
  Fields f(item, path, kGpuFields, problems);
  if (!f.ok()) return std::nullopt;
  GpuSpec gpu;
  gpu.name = f.string("name", Need::kRequired).value_or("");
  gpu.vendor = f.one_of("vendor", kVendors, Need::kRequired).value_or("");
  gpu.segment = f.one_of("segment", kSegments, Need::kRequired).value_or("");
  gpu.vram_gb = required_number(f, "vram_gb").value_or(0);
  gpu.mem_bw_gbs = required_number(f, "mem_bw_gbs").value_or(0);
  gpu.fp16_tflops = required_number(f, "fp16_tflops").value_or(0);
  gpu.fp8_tflops = f.positive_number("fp8_tflops");
  gpu.tdp_w = required_number(f, "tdp_w").value_or(0);
  gpu.interconnect = f.one_of("interconnect", kInterconnects, Need::kRequired).value_or("");
  gpu.interconnect_gbs = required_number(f, "interconnect_gbs").value_or(0);
  gpu.purchase_usd = f.positive_number("purchase_usd");
  gpu.source = f.string("source", Need::kRequired).value_or("");
  gpu.memory = f.one_of("memory", kMemories).value_or("");
  gpu.vram_mib = f.positive_number("vram_mib");
  if (auto list = f.string_list("precisions")) {
    for (const std::string& p : *list) {
      if (std::find(std::begin(kPrecisions), std::end(kPrecisions), p) == std::end(kPrecisions))
        problems.add(
            yaml::pos_of(item["precisions"]), f.path_of("precisions"),
            "unknown precision \"" + p + "\" (expected fp32, fp16, bf16, fp8, int8 or int4)");
      else
        gpu.precisions.push_back(p);
    }
  }
  return gpu;
}

std::optional<std::vector<GpuSpec>> parse_catalog_into(const std::string& yaml_text,
                                                       Problems& problems) {
  std::optional<yaml::Node> doc = yaml::load_single_document(yaml_text, problems);
  if (!doc) return std::nullopt;
  Fields top(*doc, "", kCatalogFields, problems);
  if (!top.ok()) return std::nullopt;
  check_version(top);
  top.string("as_of", Need::kRequired);
  std::optional<yaml::Node> list = required_list(top, "gpus");
  if (!list) return std::nullopt;
  std::vector<GpuSpec> gpus;
  std::map<std::string, int> first_line;  // name -> line it was first defined on
  for (size_t i = 0; i < list->size(); ++i) {
    std::string path = "gpus[" + std::to_string(i) + "]";
    std::optional<GpuSpec> gpu = read_gpu((*list)[i], path, problems);
    if (!gpu || gpu->name.empty()) continue;
    SourcePos pos = yaml::pos_of((*list)[i]["name"]);
    auto [it, added] = first_line.emplace(gpu->name, pos.line);
    if (!added) {
      problems.add(pos, path + ".name",
                   "duplicate GPU name \"" + gpu->name + "\" (first defined on line " +
                       std::to_string(it->second) + ")");
      continue;
    }
    gpus.push_back(std::move(*gpu));
  }
  return gpus;
}

std::optional<PriceEntry> read_entry(const yaml::Node& item, const std::string& path,
                                     const std::vector<GpuSpec>* catalog,
                                     const std::vector<sv>& providers, Problems& problems) {
  Fields f(item, path, kEntryFields, problems);
  if (!f.ok()) return std::nullopt;
  PriceEntry entry;
  entry.provider = f.one_of("provider", providers, Need::kRequired).value_or("");
  if (std::optional<yaml::Node> gpu = f.get("gpu", Need::kRequired)) {
    entry.gpu = yaml::read_string(*gpu, path + ".gpu", problems).value_or("");
    if (catalog && !entry.gpu.empty() && !find_gpu(*catalog, entry.gpu)) {
      problems.add(yaml::pos_of(*gpu), path + ".gpu",
                   "unknown GPU \"" + entry.gpu + "\" (not in the GPU catalog)");
    }
  }
  if (std::optional<yaml::Node> count = f.get("gpu_count", Need::kRequired)) {
    entry.gpu_count = static_cast<int>(
        yaml::read_integer(*count, path + ".gpu_count", 1, 1024, problems).value_or(0));
  }
  entry.usd_per_hour = required_number(f, "usd_per_hour").value_or(0);
  entry.spot_usd_per_hour = f.positive_number("spot_usd_per_hour");
  if (entry.spot_usd_per_hour && entry.usd_per_hour > 0 &&
      *entry.spot_usd_per_hour >= entry.usd_per_hour) {
    problems.add(yaml::pos_of(item["spot_usd_per_hour"]), path + ".spot_usd_per_hour",
                 "must be less than usd_per_hour");
  }
  entry.region = f.string("region", Need::kRequired).value_or("");
  return entry;
}

// `catalog`, when given, is what entries' GPU names are checked against.
std::optional<PriceTable> parse_prices_into(const std::string& yaml_text,
                                            const std::vector<GpuSpec>* catalog,
                                            const std::vector<sv>& providers, Problems& problems) {
  std::optional<yaml::Node> doc = yaml::load_single_document(yaml_text, problems);
  if (!doc) return std::nullopt;
  Fields top(*doc, "", kPriceFields, problems);
  if (!top.ok()) return std::nullopt;
  check_version(top);
  PriceTable table;
  table.as_of = top.string("as_of", Need::kRequired).value_or("");
  table.source = top.string("source", Need::kRequired).value_or("");
  std::optional<yaml::Node> list = required_list(top, "entries");
  if (!list) return std::nullopt;
  std::map<std::tuple<std::string, std::string, int>, int> first_line;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string path = "entries[" + std::to_string(i) + "]";
    std::optional<PriceEntry> entry = read_entry((*list)[i], path, catalog, providers, problems);
    if (!entry) continue;
    SourcePos pos = yaml::pos_of((*list)[i]);
    auto [it, added] =
        first_line.emplace(std::tuple(entry->provider, entry->gpu, entry->gpu_count), pos.line);
    if (!added) {
      problems.add(pos, path,
                   "duplicate entry for " + entry->provider + " " + entry->gpu + " x" +
                       std::to_string(entry->gpu_count) + " (first on line " +
                       std::to_string(it->second) + ")");
    }
    table.entries.push_back(std::move(*entry));
  }
  return table;
}

}  // namespace

Result<std::vector<GpuSpec>> parse_gpu_catalog(const std::string& yaml_text,
                                               const std::string& name) {
  Problems problems(name);
  std::optional<std::vector<GpuSpec>> gpus = parse_catalog_into(yaml_text, problems);
  if (!problems.empty() || !gpus) return problems.to_error();
  return std::move(*gpus);
}

Result<PriceTable> parse_price_table(const std::string& yaml_text, const std::string& name,
                                     const std::vector<std::string>& providers,
                                     const std::vector<GpuSpec>* catalog) {
  Problems problems(name);
  const std::vector<sv> known(providers.begin(), providers.end());
  std::optional<PriceTable> table = parse_prices_into(yaml_text, catalog, known, problems);
  if (!problems.empty() || !table) return problems.to_error();
  return std::move(*table);
}

}  // namespace burst

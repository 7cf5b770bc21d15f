// The GPU catalog and the offline price table: the compiled-in data is complete and consistent,
// pinned datasheet values have not drifted, malformed files give exact errors, and files in the
// config dir replace the built-in ones.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "burst/gpu_catalog.h"
#include "fakes/temp_dir.h"
#include "registry.h"

namespace burst {

extern const char* const kEmbedded_prices_yaml;

namespace {

namespace fs = std::filesystem;

// One valid GPU; tests edit it to break one thing at a time. "  - name:" is on line 4.
constexpr char kOneGpu[] = R"(version: 1
as_of: "2026-01-01"
gpus:
  - name: TEST_GPU
    vendor: nvidia
    segment: consumer
    vram_gb: 24
    mem_bw_gbs: 1000
    fp16_tflops: 100
    tdp_w: 300
    interconnect: pcie
    interconnect_gbs: 64
    source: test
)";

constexpr char kOnePrice[] = R"(as_of: "2026-01-01"
source: test
entries:
  - {provider: runpod, gpu: TEST_GPU, gpu_count: 1, usd_per_hour: 1.5, region: any}
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string catalog_error(const std::string& yaml) {
  Result<std::vector<GpuSpec>> gpus = parse_gpu_catalog(yaml, "g.yaml");
  if (gpus.ok()) return "(parsed)";
  EXPECT_EQ(gpus.error().code, ErrorCode::kInvalid);
  return gpus.error().message;
}

std::string price_error(const std::string& yaml) {
  Result<PriceTable> table = parse_price_table(yaml, "p.yaml", offline_price_provider_names());
  return table.ok() ? "(parsed)" : table.error().message;
}

std::vector<GpuSpec> embedded_catalog() {
  Result<std::vector<GpuSpec>> gpus = load_gpu_catalog("");
  EXPECT_TRUE(gpus.ok()) << (gpus.ok() ? "" : gpus.error().message);
  return gpus.ok() ? *gpus : std::vector<GpuSpec>{};
}

// The catalog compiled in at build time is config/gpus.yaml, field for field.
TEST(CatalogData, BuiltInCatalogIsConfigGpusYamlExactly) {
  std::ifstream in(std::string(BURST_SOURCE_DIR) + "/config/gpus.yaml");
  std::stringstream text;
  text << in.rdbuf();
  Result<std::vector<GpuSpec>> file = parse_gpu_catalog(text.str(), "config/gpus.yaml");
  ASSERT_TRUE(file.ok()) << file.error().message;
  std::vector<GpuSpec> built_in = embedded_catalog();
  ASSERT_EQ(built_in.size(), file->size());
  for (size_t i = 0; i < built_in.size(); ++i) {
    const GpuSpec& a = built_in[i];
    const GpuSpec& b = (*file)[i];
    SCOPED_TRACE(b.name);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.vendor, b.vendor);
    EXPECT_EQ(a.segment, b.segment);
    EXPECT_EQ(a.vram_gb, b.vram_gb);
    EXPECT_EQ(a.mem_bw_gbs, b.mem_bw_gbs);
    EXPECT_EQ(a.fp16_tflops, b.fp16_tflops);
    EXPECT_EQ(a.fp8_tflops, b.fp8_tflops);
    EXPECT_EQ(a.tdp_w, b.tdp_w);
    EXPECT_EQ(a.interconnect, b.interconnect);
    EXPECT_EQ(a.interconnect_gbs, b.interconnect_gbs);
    EXPECT_EQ(a.purchase_usd, b.purchase_usd);
    EXPECT_EQ(a.source, b.source);
  }
}

TEST(CatalogData, EmbeddedCatalogIsCompleteAndSourced) {
  std::vector<GpuSpec> gpus = embedded_catalog();
  EXPECT_GE(gpus.size(), 25u);
  std::set<std::string> vendors;
  std::set<std::string> segments;
  for (const GpuSpec& gpu : gpus) {
    SCOPED_TRACE(gpu.name);
    vendors.insert(gpu.vendor);
    segments.insert(gpu.segment);
    EXPECT_FALSE(gpu.source.empty());
    EXPECT_GT(gpu.vram_gb, 0);
    EXPECT_GT(gpu.mem_bw_gbs, 0);
    EXPECT_GT(gpu.fp16_tflops, 0);
    EXPECT_GT(gpu.tdp_w, 0);
    EXPECT_GT(gpu.interconnect_gbs, 0);
    // Dense FP8 is about twice dense FP16 (L40S: 733 vs 362.05, as its datasheet says).
    if (gpu.fp8_tflops) {
      EXPECT_LE(*gpu.fp8_tflops, 2.05 * gpu.fp16_tflops);
    }
  }
  EXPECT_EQ(vendors, (std::set<std::string>{"amd", "nvidia"}));
  EXPECT_EQ(segments, (std::set<std::string>{"consumer", "datacenter", "workstation"}));
}

TEST(CatalogData, PinnedDatasheetValues) {
  std::vector<GpuSpec> gpus = embedded_catalog();
  struct Pin {
    const char* name;
    double vram_gb, mem_bw_gbs, fp16_tflops;
  };
  const Pin pins[] = {
      {"H100_SXM", 80, 3350, 989},
      {"H100_PCIE", 80, 2000, 756},
      {"H200", 141, 4800, 989},
      {"A100_80GB", 80, 2039, 312},
      {"A100_40GB", 40, 1555, 312},
      {"L40S", 48, 864, 362},
      {"RTX_4090", 24, 1008, 165.2},
      {"RTX_3090", 24, 936, 71},
      {"RTX_5090", 32, 1792, 209.5},
      {"RTX_A6000", 48, 768, 154.8},
      {"L4", 24, 300, 121},
      {"MI300X", 192, 5300, 1307.4},
      {"B200", 180, 8000, 2250},
      {"A10", 24, 600, 125},
      {"T4", 16, 320, 65},
      // One chip, two boards: the Server Edition's memory is 11% slower (its datasheet).
      {"RTX_PRO_6000", 96, 1792, 503.8},
      {"RTX_PRO_6000_SERVER", 96, 1597, 480},
  };
  for (const Pin& pin : pins) {
    SCOPED_TRACE(pin.name);
    const GpuSpec* gpu = find_gpu(gpus, pin.name);
    ASSERT_NE(gpu, nullptr);
    EXPECT_DOUBLE_EQ(gpu->vram_gb, pin.vram_gb);
    EXPECT_DOUBLE_EQ(gpu->mem_bw_gbs, pin.mem_bw_gbs);
    EXPECT_DOUBLE_EQ(gpu->fp16_tflops, pin.fp16_tflops);
  }
  const GpuSpec* h100 = find_gpu(gpus, "H100_SXM");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->interconnect, "nvlink");
  EXPECT_DOUBLE_EQ(h100->interconnect_gbs, 900);
  EXPECT_EQ(h100->fp8_tflops, 1979);
  const GpuSpec* mi300x = find_gpu(gpus, "MI300X");
  ASSERT_NE(mi300x, nullptr);
  EXPECT_EQ(mi300x->vendor, "amd");
  EXPECT_EQ(mi300x->interconnect, "infinity-fabric");
  EXPECT_EQ(find_gpu(gpus, "NOT_A_GPU"), nullptr);
}

TEST(CatalogData, EveryPriceNamesACatalogGpuAndSpotIsCheaper) {
  std::vector<GpuSpec> gpus = embedded_catalog();
  Result<PriceTable> table = load_price_table("", offline_price_provider_names());
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_FALSE(table->as_of.empty());
  EXPECT_FALSE(table->source.empty());
  std::set<std::string> providers;
  for (const PriceEntry& e : table->entries) {
    SCOPED_TRACE(e.provider + " " + e.gpu + " x" + std::to_string(e.gpu_count));
    providers.insert(e.provider);
    EXPECT_NE(find_gpu(gpus, e.gpu), nullptr);
    EXPECT_GT(e.usd_per_hour, 0);
    EXPECT_TRUE(e.gpu_count == 1 || e.gpu_count == 2 || e.gpu_count == 4 || e.gpu_count == 8);
    EXPECT_FALSE(e.region.empty());
    if (e.spot_usd_per_hour) {
      EXPECT_GT(*e.spot_usd_per_hour, 0);
      EXPECT_LT(*e.spot_usd_per_hour, e.usd_per_hour);
    }
  }
  EXPECT_EQ(providers, (std::set<std::string>{"lambda", "runpod", "vast"}));
}

TEST(CatalogLoad, BuiltInWhenConfigDirHasNoFiles) {
  TempDir dir;
  Result<std::vector<GpuSpec>> gpus = load_gpu_catalog(dir.path());
  ASSERT_TRUE(gpus.ok()) << gpus.error().message;
  EXPECT_EQ(gpus->size(), embedded_catalog().size());
}

TEST(CatalogLoad, ConfigDirFilesWin) {
  TempDir dir;
  dir.write("gpus.yaml", kOneGpu);
  dir.write("prices.yaml", kOnePrice);
  Result<std::vector<GpuSpec>> gpus = load_gpu_catalog(dir.path());
  ASSERT_TRUE(gpus.ok()) << gpus.error().message;
  ASSERT_EQ(gpus->size(), 1u);
  EXPECT_EQ(gpus->front().name, "TEST_GPU");
  Result<PriceTable> table = load_price_table(dir.path(), offline_price_provider_names());
  ASSERT_TRUE(table.ok()) << table.error().message;
  ASSERT_EQ(table->entries.size(), 1u);
  EXPECT_EQ(table->entries[0].gpu, "TEST_GPU");
  EXPECT_DOUBLE_EQ(table->entries[0].usd_per_hour, 1.5);
  EXPECT_FALSE(table->entries[0].spot_usd_per_hour.has_value());
}

TEST(CatalogLoad, PriceForAGpuNotInTheCatalog) {
  TempDir dir;
  dir.write("prices.yaml", replaced(kOnePrice, "gpu: TEST_GPU", "gpu: H100_SXM"));
  EXPECT_TRUE(load_price_table(dir.path(), offline_price_provider_names()).ok());
  dir.write("gpus.yaml", kOneGpu);  // the override catalog has no H100_SXM
  Result<PriceTable> table = load_price_table(dir.path(), offline_price_provider_names());
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.error().message,
            dir.path() +
                "/prices.yaml:4:29: entries[0].gpu: unknown GPU \"H100_SXM\" (not in "
                "the GPU catalog)");
}

TEST(CatalogLoad, BrokenOverrideCatalogFailsPrices) {
  TempDir dir;
  dir.write("gpus.yaml", "gpus: 3\n");
  Result<PriceTable> table = load_price_table(dir.path(), offline_price_provider_names());
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.error().message,
            dir.path() + "/gpus.yaml:1:1: as_of: required field is missing\n" + dir.path() +
                "/gpus.yaml:1:7: gpus: expected a list, got a string");
}

TEST(CatalogLoad, UnreadableOverride) {
  TempDir dir;
  fs::create_directory(dir.path() + "/gpus.yaml");
  Result<std::vector<GpuSpec>> gpus = load_gpu_catalog(dir.path());
  ASSERT_FALSE(gpus.ok());
  EXPECT_EQ(gpus.error().message, dir.path() + "/gpus.yaml: cannot read file: Is a directory");
}

TEST(CatalogErrors, ValidSampleParses) {
  Result<std::vector<GpuSpec>> gpus = parse_gpu_catalog(kOneGpu, "g.yaml");
  ASSERT_TRUE(gpus.ok()) << gpus.error().message;
  EXPECT_EQ(gpus->at(0).interconnect, "pcie");
  EXPECT_FALSE(gpus->at(0).fp8_tflops.has_value());
  EXPECT_FALSE(gpus->at(0).purchase_usd.has_value());
  EXPECT_EQ(price_error(kOnePrice), "(parsed)");
}

TEST(CatalogErrors, UnknownField) {
  EXPECT_EQ(catalog_error(replaced(kOneGpu, "    source:", "    colour: red\n    source:")),
            "g.yaml:13:5: gpus[0].colour: unknown field");
}

TEST(CatalogErrors, WrongTypes) {
  EXPECT_EQ(catalog_error(replaced(kOneGpu, "vram_gb: 24", "vram_gb: lots")),
            "g.yaml:7:14: gpus[0].vram_gb: expected a number, got \"lots\"");
  EXPECT_EQ(catalog_error(replaced(kOneGpu, "source: test", "source: [a, b]")),
            "g.yaml:13:13: gpus[0].source: expected a string, got a list");
  EXPECT_EQ(catalog_error(replaced(kOneGpu, "tdp_w: 300", "tdp_w: -5")),
            "g.yaml:10:12: gpus[0].tdp_w: must be greater than 0, got -5");
}

TEST(CatalogErrors, MissingRequiredField) {
  EXPECT_EQ(catalog_error(replaced(kOneGpu, "    mem_bw_gbs: 1000\n", "")),
            "g.yaml:4:5: gpus[0].mem_bw_gbs: required field is missing");
  EXPECT_EQ(catalog_error(replaced(kOneGpu, "gpus:\n", "gpu:\n")),
            "g.yaml:1:1: gpus: required field is missing\n"
            "g.yaml:3:1: gpu: unknown field (did you mean \"gpus\"?)");
}

TEST(CatalogErrors, EnumValues) {
  EXPECT_EQ(catalog_error(replaced(kOneGpu, "vendor: nvidia", "vendor: intel")),
            "g.yaml:5:13: gpus[0].vendor: must be one of nvidia, amd; got \"intel\"");
  EXPECT_EQ(catalog_error(replaced(kOneGpu, "interconnect: pcie", "interconnect: sli")),
            "g.yaml:11:19: gpus[0].interconnect: must be one of nvlink, pcie, infinity-fabric; got "
            "\"sli\"");
}

TEST(CatalogErrors, DuplicateGpuName) {
  std::string two = kOneGpu;
  two += std::string(kOneGpu).substr(std::string(kOneGpu).find("  - name:"));
  EXPECT_EQ(catalog_error(two),
            "g.yaml:14:11: gpus[1].name: duplicate GPU name \"TEST_GPU\" (first defined on line "
            "4)");
}

TEST(CatalogErrors, TopLevelProblems) {
  EXPECT_EQ(catalog_error(""), "g.yaml:1:1: (top level): the file is empty");
  EXPECT_EQ(catalog_error("- a\n"), "g.yaml:1:1: (top level): expected a mapping, got a list");
  EXPECT_EQ(catalog_error(replaced(kOneGpu, "version: 1", "version: 2")),
            "g.yaml:1:10: version: unsupported version 2 (this burst reads version 1)");
  EXPECT_EQ(catalog_error("as_of: x\ngpus: []\n"), "g.yaml:2:7: gpus: must not be empty");
}

TEST(CatalogErrors, PriceEntries) {
  EXPECT_EQ(price_error(replaced(kOnePrice, "provider: runpod", "provider: aws")),
            "p.yaml:4:16: entries[0].provider: must be one of runpod, lambda, vast; got \"aws\"");
  EXPECT_EQ(price_error(replaced(kOnePrice, "usd_per_hour: 1.5",
                                 "usd_per_hour: 1.5, "
                                 "spot_usd_per_hour: 2")),
            "p.yaml:4:91: entries[0].spot_usd_per_hour: must be less than usd_per_hour");
  EXPECT_EQ(price_error(replaced(kOnePrice, "gpu_count: 1", "gpu_count: 0")),
            "p.yaml:4:50: entries[0].gpu_count: must be at least 1, got 0");
  EXPECT_EQ(price_error(replaced(kOnePrice, ", region: any", "")),
            "p.yaml:4:5: entries[0].region: required field is missing");
  std::string twice = kOnePrice;
  twice += twice.substr(twice.find("  - {"));
  EXPECT_EQ(price_error(twice),
            "p.yaml:5:5: entries[1]: duplicate entry for runpod TEST_GPU x1 (first on line 4)");
}

}  // namespace
}  // namespace burst

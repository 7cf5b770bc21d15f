// Every GPU type a provider rents under a name burst can read lands on a catalog entry, so its
// offers are priced and planned rather than dropped as unknown hardware.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "burst/gpu_catalog.h"
#include "plan/planner.h"
#include "registry.h"
#include "runpod/runpod_json.h"
#include "runpod/runpod_provider.h"
#include "spec/skypilot_accelerators.h"
#include "vast/vast_json.h"
#include "vast/vast_provider.h"

namespace burst {
namespace {

const std::vector<GpuSpec>& built_in_gpus() {
  static const std::vector<GpuSpec> gpus = [] {
    auto c = load_gpu_catalog("/nonexistent-burst-config");
    return c.ok() ? *c : std::vector<GpuSpec>{};
  }();
  return gpus;
}

// RunPod's GPU type ids: PodCreateInput's gpuTypeIds enum (49 values) and the one more of its
// GPUTypeId schema, "NVIDIA A100-SXM4-40GB" (runpod/docs api-reference/openapi.json at a900806e,
// the REST API's published spec). Facts copied, not the file.
const char* const kRunpodIds[] = {
    "AMD Instinct MI300X OAM",
    "NVIDIA  A30",
    "NVIDIA  RTX A4500",
    "NVIDIA A100 80GB PCIe",
    "NVIDIA A100-SXM4-40GB",
    "NVIDIA A100-SXM4-80GB",
    "NVIDIA A30",
    "NVIDIA A40",
    "NVIDIA A5000 Ada",
    "NVIDIA B200",
    "NVIDIA GeForce RTX 3070",
    "NVIDIA GeForce RTX 3080",
    "NVIDIA GeForce RTX 3080 Ti",
    "NVIDIA GeForce RTX 3080TI",
    "NVIDIA GeForce RTX 3090",
    "NVIDIA GeForce RTX 3090 Ti",
    "NVIDIA GeForce RTX 4070 Ti",
    "NVIDIA GeForce RTX 4080",
    "NVIDIA GeForce RTX 4080 SUPER",
    "NVIDIA GeForce RTX 4090",
    "NVIDIA GeForce RTX 5080",
    "NVIDIA GeForce RTX 5090",
    "NVIDIA H100 80GB HBM3",
    "NVIDIA H100 NVL",
    "NVIDIA H100 PCIe",
    "NVIDIA H200",
    "NVIDIA H200 NVL",
    "NVIDIA L4",
    "NVIDIA L40",
    "NVIDIA L40S",
    "NVIDIA RTX 2000 Ada Generation",
    "NVIDIA RTX 4000 Ada Generation",
    "NVIDIA RTX 4000 SFF Ada Generation",
    "NVIDIA RTX 5000 Ada Generation",
    "NVIDIA RTX 6000 Ada Generation",
    "NVIDIA RTX A2000",
    "NVIDIA RTX A30",
    "NVIDIA RTX A4000",
    "NVIDIA RTX A4500",
    "NVIDIA RTX A5000",
    "NVIDIA RTX A6000",
    "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
    "NVIDIA RTX PRO 6000 Blackwell Server Edition",
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
    "Tesla T4",
    "Tesla V100-FHHL-16GB",
    "Tesla V100-PCIE-16GB",
    "Tesla V100-PCIE-32GB",
    "Tesla V100-SXM2-16GB",
    "Tesla V100-SXM2-32GB",
};

// The ids burst leaves unpriced, each for a reason in providers/runpod/runpod_json.cpp.
const char* const kRunpodLeftOut[] = {
    "NVIDIA  A30",
    "NVIDIA RTX A30",
    "NVIDIA A5000 Ada",
    "NVIDIA RTX A2000",
    "Tesla V100-FHHL-16GB",
    "Tesla V100-PCIE-32GB",
    "NVIDIA RTX 4000 SFF Ada Generation",
};

bool in_catalog(const std::string& name) { return find_gpu(built_in_gpus(), name) != nullptr; }

TEST(ProviderGpuNames, EveryRunpodTypeButTheNamedFewIsACatalogGpu) {
  ASSERT_FALSE(built_in_gpus().empty());
  EXPECT_EQ(std::size(kRunpodIds), 50u);
  for (const char* id : kRunpodIds) {
    SCOPED_TRACE(id);
    const bool left_out = std::find_if(std::begin(kRunpodLeftOut), std::end(kRunpodLeftOut),
                                       [&](const char* x) { return std::string(x) == id; }) !=
                          std::end(kRunpodLeftOut);
    const std::string name = runpod_gpu_to_catalog(id);
    EXPECT_EQ(in_catalog(name), !left_out) << name;
    // A pod of the type is created under a RunPod id that names the same card.
    if (!left_out) {
      EXPECT_EQ(runpod_gpu_to_catalog(runpod::runpod_id_for(name)), name);
    }
  }
  EXPECT_EQ(runpod_gpu_to_catalog("NVIDIA RTX PRO 6000 Blackwell Server Edition"),
            "RTX_PRO_6000_SERVER");
  EXPECT_EQ(runpod_gpu_to_catalog("Tesla V100-SXM2-32GB"), "V100_32GB");
}

TEST(ProviderGpuNames, VastNamesLandOnTheCardTheirMemorySays) {
  const std::vector<std::tuple<std::string, double, std::string>> cases = {
      {"RTX PRO 6000 WS", 97887, "RTX_PRO_6000"},
      {"RTX PRO 6000 S", 97887, "RTX_PRO_6000_SERVER"},
      {"RTX 5080", 16303, "RTX_5080"},
      {"RTX 5070 Ti", 16303, "RTX_5070_TI"},
      {"RTX 5070", 12227, "RTX_5070"},
      {"RTX 5060 Ti", 16311, "RTX_5060_TI"},
      {"RTX 4070 Ti", 12282, "RTX_4070_TI"},
      {"RTX 4070S", 12282, "RTX_4070_SUPER"},
      {"RTX 4070", 12282, "RTX_4070"},
      {"RTX 4060 Ti", 16380, "RTX_4060_TI"},
      {"RTX 3090 Ti", 24564, "RTX_3090_TI"},
      {"RTX 3080 Ti", 12288, "RTX_3080_TI"},
      {"RTX 3070", 8192, "RTX_3070"},
      {"RTX 2080 Ti", 11264, "RTX_2080_TI"},
      {"RTX 5000Ada", 32760, "RTX_5000_ADA"},
      {"RTX 2000Ada", 16380, "RTX_2000_ADA"},
      {"Q RTX 8000", 49152, "QUADRO_RTX_8000"},
      {"A100 PCIE", 40960, "A100_40GB_PCIE"},
      {"A100 PCIE", 81920, "A100_80GB_PCIE"},
      {"H200 NVL", 143771, "H200_NVL"},
      {"Tesla V100", 32768, "V100_32GB"},
      {"Tesla V100", 16384, "V100"},
  };
  for (const auto& [name, mb, want] : cases) {
    EXPECT_EQ(vast_gpu_to_catalog(name, mb), want) << name;
    EXPECT_TRUE(in_catalog(want)) << want;
  }
  // The 8 GB boards share their names with the 16 GB ones: never priced as those. The 4060 Ti's
  // has a card of its own (8 GB, the same chip); the 5060 Ti's has none.
  EXPECT_EQ(vast_gpu_to_catalog("RTX 4060 Ti", 8188), "RTX_4060_TI_8GB");
  EXPECT_EQ(find_gpu(built_in_gpus(), "RTX_4060_TI_8GB")->vram_gb, 8);
  EXPECT_FALSE(in_catalog(vast_gpu_to_catalog("RTX 5060 Ti", 8151)));
  EXPECT_EQ(vast_gpu_to_catalog("RTX 4060", 8188), "RTX_4060");
  EXPECT_EQ(vast_gpu_to_catalog("RTX 3060 Ti", 8192), "RTX_3060_TI");
  EXPECT_TRUE(in_catalog("RTX_4060") && in_catalog("RTX_3060_TI"));
  // Asking Vast for a card names every spelling of it, and only cards of its memory are kept.
  EXPECT_EQ(vast::vast_names_for("RTX_PRO_6000"), (std::vector<std::string>{"RTX PRO 6000 WS"}));
  EXPECT_EQ(vast::vast_names_for("A100_40GB_PCIE"), (std::vector<std::string>{"A100 PCIE"}));
}

TEST(ProviderGpuNames, EveryCatalogGpuIsASkyPilotAcceleratorName) {
  // `accelerators: RTXPRO6000` or `H200-NVL` in a SkyPilot task reads as the catalog entry.
  for (const GpuSpec& g : built_in_gpus()) EXPECT_EQ(spec::catalog_gpu_name(g.name), g.name);
  EXPECT_EQ(spec::catalog_gpu_name("RTXPRO6000"), "RTX_PRO_6000");
  EXPECT_EQ(spec::catalog_gpu_name("H200-NVL"), "H200_NVL");
}

// What the new cards are for: a model too big for one 80 GB card fits one RTX PRO 6000 (96 GB) at
// two thirds of an H100's hourly price; before, the plan could only pay for two H100s. (For a long
// decode the pair's four times the bandwidth wins back its price: this job is short.)
TEST(ProviderGpuNames, AModelTooBigForAnH100RunsOnOneRtxPro6000) {
  PipelineSpec spec;
  spec.name = "serve42b";
  spec.run = "python serve.py";
  spec.workload.kind = "llm-inference";
  spec.workload.params_b = 42;  // 84 GB of fp16 weights
  spec.workload.precision = "fp16";
  spec.workload.tokens = 2'000;
  spec.workload.context_tokens = 2048;
  PlanInput in;
  in.catalog = &built_in_gpus();
  in.providers = {"runpod"};
  auto offer = [&](const std::string& gpu, int n, double vram, double usd) {
    Offer o;
    o.provider = "runpod";
    o.traits = find_provider_traits("runpod");
    o.gpu_type = gpu;
    o.gpu_count = n;
    o.vram_gb = vram;
    o.usd_per_hour = usd * n;
    o.price_source = "live offer";
    in.gpu_offers.push_back(o);
  };
  offer("H100_SXM", 1, 80, 2.69);
  offer("H100_SXM", 2, 80, 2.69);
  offer(runpod_gpu_to_catalog("NVIDIA RTX PRO 6000 Blackwell Server Edition"), 1, 96, 1.79);
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.gpu_type, "RTX_PRO_6000_SERVER");
  EXPECT_EQ(plan->gpu.gpu_count, 1);
}

}  // namespace
}  // namespace burst

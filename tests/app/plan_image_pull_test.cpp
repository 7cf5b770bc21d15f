// Image pull from the image's size (issue 18, cold start from evidence): the size from the spec,
// else the store's cache, else the registry (the emulated one, tests/fakes/fake_registry.h); a
// cold start of provisioning + image bytes / rate + weight load; the plan's line; boot samples
// whose image size is known are not counted twice; the spec's image_size_gb and its errors.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "app/image_size_lookup.h"
#include "burst/spec.h"
#include "burst/store.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_registry.h"
#include "fakes/runpod_plan_input.h"
#include "fakes/temp_dir.h"
#include "image/registry_parse.h"
#include "plan/boot_history.h"
#include "plan/image_pull.h"
#include "plan/plan_summary.h"
#include "plan/planner.h"
#include "registry.h"
#include "report/job_facts.h"

namespace burst {
namespace {

using testing::FakeRegistry;

PipelineSpec imgpull_spec(std::optional<double> size_gb) {
  PipelineSpec s;
  s.name = "render";
  s.run = "python render.py";
  s.image = "runpod/pytorch:2.1";
  s.image_size_gb = size_gb;
  s.workload.kind = "custom";
  s.workload.reference = WorkloadReference{"RTX_4090", 600, ""};
  return s;
}

Result<Plan> imgpull_plan(const PipelineSpec& spec, const ImageLookup& lookup,
                          std::vector<BootSample> boots = {}) {
  PlanInput in = runpod_4090_plan_input();
  in.image = image_pull_for(spec, lookup);
  in.boot_history = std::move(boots);
  return make_plan(spec, in);
}

// A lookup that asks `registry` (and caches in `store`, when given) on `clock`.
ImageLookup imgpull_lookup(Store* store, FakeRegistry& registry, FakeClock& clock) {
  ImageLookup lookup;
  lookup.store = store;
  lookup.http = &registry;
  lookup.clock = &clock;
  lookup.registry.base_url = FakeRegistry::kBase;
  return lookup;
}

bool imgpull_has_note(const Plan& p, const std::string& text) {
  for (const std::string& n : p.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

TEST(PlanImagePull, TwoImagesDifferOnlyBySizeOverRate) {
  ImageLookup off;
  auto small = imgpull_plan(imgpull_spec(0.2), off);
  auto big = imgpull_plan(imgpull_spec(20), off);
  ASSERT_TRUE(small.ok() && big.ok());
  EXPECT_NEAR(big->estimate.cold_start_s - small->estimate.cold_start_s,
              (20e9 - 0.2e9) / kImagePullBytesPerSecond, 1e-6);
  const double prior = find_provider_traits("runpod")->boot_s;
  EXPECT_NEAR(big->estimate.cold_start_s, prior + 200, 1e-6);
  EXPECT_TRUE(imgpull_has_note(*big,
                               "image runpod/pytorch:2.1 20.0 GB (spec), pull ~200 s at "
                               "100 MB/s prior"));
  EXPECT_DOUBLE_EQ(big->image_bytes, 20e9);
  // Kept in the job's facts, where its boot sample finds it (app/plan_with_history.cpp).
  EXPECT_DOUBLE_EQ(
      report_facts_from_json(report_facts_to_json(report_facts_from_plan(imgpull_spec(20), *big)))
          .image_bytes,
      20e9);
  // `burst plan` and `burst run` print it in the plan's block (plan/plan_summary.h).
  bool printed = false;
  for (const std::string& line : plan_summary_lines(imgpull_spec(20), *big))
    printed |= line == "  image runpod/pytorch:2.1 20.0 GB (spec), pull ~200 s at 100 MB/s prior";
  EXPECT_TRUE(printed);
}

TEST(PlanImagePull, AnOfferWithASlowDownloadLinkPullsNoFasterThanIt) {
  // Vast states each host's download rate (Offer::download_bps, from inet_down): an image pull
  // there goes no faster, and the plan says so; a link faster than the prior changes nothing.
  ImageLookup off;
  PipelineSpec spec = imgpull_spec(8);
  PlanInput in = runpod_4090_plan_input();
  in.image = image_pull_for(spec, off);
  in.gpu_offers[0].download_bps = 100e6 / 8;  // 100 Mb/s
  auto slow = make_plan(spec, in);
  ASSERT_TRUE(slow.ok()) << slow.error().message;
  const double prior = find_provider_traits("runpod")->boot_s;
  EXPECT_NEAR(slow->estimate.cold_start_s, prior + 640, 1e-6);
  EXPECT_TRUE(imgpull_has_note(*slow,
                               "image runpod/pytorch:2.1 8.0 GB (spec), pull ~640 s at 12.5 MB/s "
                               "(the offer's download link, 100 Mb/s)"));
  in.gpu_offers[0].download_bps = 10e9;
  auto fast = make_plan(spec, in);
  ASSERT_TRUE(fast.ok());
  EXPECT_NEAR(fast->estimate.cold_start_s, prior + 80, 1e-6);
}

TEST(PlanImagePull, UnknownSizeFallsBackToThePriorAndSaysWhy) {
  FakeRegistry registry;  // knows no image: 404
  FakeClock clock;
  ImageLookup lookup = imgpull_lookup(nullptr, registry, clock);
  auto plan = imgpull_plan(imgpull_spec(std::nullopt), lookup);
  ASSERT_TRUE(plan.ok());
  EXPECT_DOUBLE_EQ(plan->estimate.cold_start_s, find_provider_traits("runpod")->boot_s);
  EXPECT_TRUE(imgpull_has_note(*plan,
                               "image size unknown (not found: image "
                               "registry-1.docker.io/runpod/pytorch:2.1: no such image"));
  EXPECT_DOUBLE_EQ(plan->image_bytes, 0);
  // Lookups off: the prior, and no line about the image.
  auto off = imgpull_plan(imgpull_spec(std::nullopt), ImageLookup{});
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(imgpull_has_note(*off, "image"));
}

TEST(PlanImagePull, RegistryAnswerIsCachedInTheStoreForADay) {
  TempDir dir;
  auto store = open_store("", dir.path() + "/burst.db");
  ASSERT_TRUE(store.ok()) << store.error().message;
  FakeRegistry registry;
  registry.put("runpod/pytorch", "2.1", std::string(kMediaDockerManifest),
               FakeRegistry::manifest_json(0, {7'900'000'000}));
  FakeClock clock;
  ImageLookup lookup = imgpull_lookup(store->get(), registry, clock);
  ImagePull first = image_pull_for(imgpull_spec(std::nullopt), lookup);
  ASSERT_TRUE(first.bytes);
  EXPECT_DOUBLE_EQ(*first.bytes, 7.9e9);
  EXPECT_EQ(first.source, "registry");
  EXPECT_EQ(image_pull_note(first),
            "image runpod/pytorch:2.1 7.9 GB (registry), pull ~79 s at 100 MB/s prior");
  const size_t asked = registry.requests.size();
  ImagePull again = image_pull_for(imgpull_spec(std::nullopt), lookup);
  EXPECT_EQ(registry.requests.size(), asked);  // from the store
  EXPECT_EQ(again.source, "registry");         // the same words as the first plan's
  EXPECT_DOUBLE_EQ(*again.bytes, 7.9e9);
  clock.advance(Duration(kImageSizeTtlMs + 1));
  ImagePull stale = image_pull_for(imgpull_spec(std::nullopt), lookup);
  EXPECT_GT(registry.requests.size(), asked);
  EXPECT_EQ(stale.source, "registry");
  // The spec's own value wins, without asking.
  const size_t before = registry.requests.size();
  ImagePull stated = image_pull_for(imgpull_spec(3), lookup);
  EXPECT_EQ(registry.requests.size(), before);
  EXPECT_EQ(stated.source, "spec");
}

TEST(PlanImagePull, AFailedLookupIsRememberedForTenMinutes) {
  TempDir dir;
  auto store = open_store("", dir.path() + "/burst.db");
  ASSERT_TRUE(store.ok()) << store.error().message;
  FakeRegistry registry;  // knows no image: 404
  FakeClock clock;
  ImageLookup lookup = imgpull_lookup(store->get(), registry, clock);
  ImagePull first = image_pull_for(imgpull_spec(std::nullopt), lookup);
  EXPECT_FALSE(first.bytes);
  const size_t asked = registry.requests.size();
  ASSERT_GT(asked, 0u);
  ImagePull again = image_pull_for(imgpull_spec(std::nullopt), lookup);
  EXPECT_EQ(registry.requests.size(), asked);  // not asked again
  EXPECT_FALSE(again.bytes);
  EXPECT_EQ(again.unknown_why.rfind("not found: ", 0), 0u) << again.unknown_why;
  EXPECT_EQ(again.unknown_why, first.unknown_why);  // the plan says it as the first one did
  clock.advance(Duration(kImageFailureTtlMs));
  (void)image_pull_for(imgpull_spec(std::nullopt), lookup);
  EXPECT_GT(registry.requests.size(), asked);
}

TEST(PlanImagePull, ABootSampleWithAKnownImageSizeIsNotCountedTwice) {
  // Three runpod RTX_4090 boots of 100 s, each pulling a 4 GB image (40 s at the prior rate):
  // provisioning alone is 60 s per run.
  std::vector<BootSample> boots;
  for (int i = 0; i < 3; ++i) boots.push_back({"runpod", "RTX_4090", 100, 4e9});
  const double prior = find_provider_traits("runpod")->boot_s;
  const double provider = (2 * prior + 180) / 5;
  const double gpu = (2 * provider + 180) / 5;
  BootEstimate e = estimate_boot(boots, "runpod", "RTX_4090", prior);
  EXPECT_NEAR(e.seconds, gpu, 1e-9);
  EXPECT_EQ(e.note(prior).rfind("provisioning ", 0), 0u) << e.note(prior);
  EXPECT_EQ(e.note(prior).find("image pull"), std::string::npos);
  // This spec's 8 GB image adds its own 80 s pull once.
  auto plan = imgpull_plan(imgpull_spec(8), ImageLookup{}, boots);
  ASSERT_TRUE(plan.ok());
  EXPECT_NEAR(plan->estimate.cold_start_s, gpu + 80, 1e-9);
  // A pull longer than the sample clamps at 0; an unknown size is used whole, as before.
  EXPECT_DOUBLE_EQ(provisioning_seconds({"runpod", "RTX_4090", 30, 8e9}), 0);
  EXPECT_DOUBLE_EQ(provisioning_seconds({"runpod", "RTX_4090", 30, 0}), 30);
  std::vector<BootSample> mixed{{"runpod", "RTX_4090", 100, 4e9}, {"runpod", "RTX_4090", 100, 0}};
  EXPECT_NE(estimate_boot(mixed, "runpod", "", prior).note(prior).find("provisioning + image pull"),
            std::string::npos);
}

TEST(PlanImagePull, ABootSampleFromASlowLinkDropsThePullAtThatLinksRate) {
  // A run on a 100 Mb/s host pulled its 5 GB image in 400 s of its 500 s boot: provisioning was
  // 100 s. Taken off at the 100 MB/s prior, 450 s would stay, and every later plan on the provider
  // would carry it.
  const double link = 100e6 / 8;
  EXPECT_NEAR(provisioning_seconds({"vast", "RTX_4090", 500, 5e9, link}), 100, 1e-9);
  EXPECT_NEAR(provisioning_seconds({"vast", "RTX_4090", 500, 5e9}), 450, 1e-9);
  // A link faster than the prior pulls at the prior, as the plan priced it.
  EXPECT_NEAR(provisioning_seconds({"vast", "RTX_4090", 500, 5e9, 10e9}), 450, 1e-9);
  // The plan records the rate it priced the pull at in the job's facts, which the sample reads.
  PipelineSpec spec = imgpull_spec(5);
  PlanInput in = runpod_4090_plan_input();
  in.image = image_pull_for(spec, ImageLookup{});
  in.gpu_offers[0].download_bps = link;
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const ReportFacts facts =
      report_facts_from_json(report_facts_to_json(report_facts_from_plan(spec, *plan)));
  EXPECT_DOUBLE_EQ(facts.image_bytes, 5e9);
  EXPECT_DOUBLE_EQ(facts.image_link_bps, link);
}

TEST(PlanImagePull, SpecImageSizeGbIsReadAndChecked) {
  const std::string base = "version: 1\nname: t\nrun: echo\nimage: runpod/pytorch:2.1\n";
  std::vector<SpecError> errors;
  auto ok = parse_spec(base + "image_size_gb: 7.9\n", "p.yaml", &errors, provider_names());
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_TRUE(ok->image_size_gb);
  EXPECT_DOUBLE_EQ(*ok->image_size_gb, 7.9);
  for (const std::string bad : {"-1", "0", "lots", "20000"}) {
    errors.clear();
    auto r = parse_spec(base + "image_size_gb: " + bad + "\n", "p.yaml", &errors, provider_names());
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message.rfind("p.yaml:5:", 0), 0u) << r.error().message;
    EXPECT_NE(r.error().message.find("image_size_gb"), std::string::npos) << r.error().message;
  }
}

// Issue 29: `image: 127.0.0.1:18446/x/y:1` made `burst plan` connect to that port. In automatic
// mode (no BURST_IMAGE_REGISTRY) a registry that is not on the public internet is not asked; the
// plan goes on without the image's size and says why.
TEST(PlanImagePull, AutomaticModeAsksNoLocalRegistryAndThePlanGoesOnWithoutTheSize) {
  FakeRegistry registry;
  FakeClock clock;
  ImageLookup lookup = imgpull_lookup(nullptr, registry, clock);
  lookup.registry.base_url = "";  // automatic: each image's own registry
  lookup.registry.resolve = [](const std::string& host) -> Result<std::vector<std::string>> {
    if (host == "localhost") return std::vector<std::string>{"127.0.0.1", "::1"};
    return std::vector<std::string>{"10.1.2.3"};  // a name on the office network
  };
  for (const char* image : {"127.0.0.1:18446/x/y:1", "localhost:5000/x/y:1", "[::1]:5000/x/y:1",
                            "registry.internal.example/x/y:1"}) {
    PipelineSpec spec = imgpull_spec(std::nullopt);
    spec.image = image;
    auto plan = imgpull_plan(spec, lookup);
    ASSERT_TRUE(plan.ok()) << image << ": " << plan.error().message;
    EXPECT_DOUBLE_EQ(plan->image_bytes, 0) << image;
    EXPECT_TRUE(imgpull_has_note(*plan, "image size unknown (invalid: image ")) << image;
    EXPECT_TRUE(imgpull_has_note(*plan, "is not a public address")) << image;
    EXPECT_TRUE(imgpull_has_note(*plan, "set BURST_IMAGE_REGISTRY to a URL")) << image;
  }
  EXPECT_TRUE(registry.requests.empty());
}

}  // namespace
}  // namespace burst

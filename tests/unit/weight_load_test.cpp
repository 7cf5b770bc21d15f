// Weight load from the storage and the loader (burst/weight_load.h, plan/weight_source.h,
// docs/cost-model.md "Weight load"): each input moves the load in the documented direction, a
// provider's registry row supplies its volume's storage, and the plan prices what the spec names.
#include "burst/weight_load.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "cost/streaming_loader.h"
#include "fakes/runpod_plan_input.h"
#include "plan/planner.h"
#include "plan/weight_source.h"
#include "registry.h"

namespace burst {
namespace {

constexpr double kWlBytes = 16e9;  // Llama 3 8B in bf16

double wl_seconds(const std::string& kind, const std::string& engine = "", int gpus = 1) {
  return weight_load(kWlBytes, storage_read_bps(kind), engine, gpus).seconds();
}

TEST(WeightLoad, EachStorageMovesTheLoadInTheDocumentedDirection) {
  // Local NVMe beats a network volume, which beats a download from the hub.
  EXPECT_LT(wl_seconds(kStorageLocalDisk), wl_seconds(kStorageNetwork));
  EXPECT_LT(wl_seconds(kStorageNetwork), wl_seconds(kStorageHub));
  // An in-region object store beats the hub and loses to the local disk.
  EXPECT_LT(wl_seconds(kStorageS3), wl_seconds(kStorageHub));
  EXPECT_GT(wl_seconds(kStorageS3), wl_seconds(kStorageLocalDisk));
  EXPECT_EQ(storage_read_bps("tape"), 0);
}

TEST(WeightLoad, TheLoaderAndItsGpusMoveTheLoaderShareOnly) {
  const WeightLoad vllm = weight_load(kWlBytes, 4e9, "vllm", 1);
  const WeightLoad torch = weight_load(kWlBytes, 4e9, "pytorch", 1);
  EXPECT_DOUBLE_EQ(vllm.read_s, 4.0);
  EXPECT_DOUBLE_EQ(torch.read_s, 4.0);
  // torch.load of a pickle into a module built first costs more per GB than safetensors.
  EXPECT_GT(torch.init_s, vllm.init_s);
  EXPECT_STREQ(loader_cost("pytorch").loader, "pytorch");
  EXPECT_STREQ(loader_cost("").loader, "safetensors");
  EXPECT_STREQ(loader_cost("sglang").loader, "safetensors");
  // Eight GPUs load their shares in parallel: less loader time, the same bytes to read.
  const WeightLoad eight = weight_load(kWlBytes, 4e9, "vllm", 8);
  EXPECT_LT(eight.init_s, vllm.init_s);
  EXPECT_DOUBLE_EQ(eight.read_s, vllm.read_s);
  EXPECT_NEAR(eight.init_s, loader_cost("vllm").fixed_s + loader_cost("vllm").s_per_gb * 2, 1e-9);
  // More bytes, more time; none, nothing.
  EXPECT_GT(weight_load(2 * kWlBytes, 4e9, "", 1).seconds(), vllm.seconds());
  EXPECT_EQ(weight_load(0, 4e9, "", 1).seconds(), 0);
}

TEST(WeightLoad, TheDisksOwnRateMovesTheReadAsDocumented) {
  // docs/cost-model.md "Weight load": a local disk's own rate replaces the 4 GB/s prior, so a
  // slower disk (ServerlessLLM #193's 373 MB/s NVMe) loads slower and a faster one faster...
  const double prior = storage_read_bps(kStorageLocalDisk);
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageLocalDisk, 0), prior);
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageLocalDisk, 373e6), 373e6);
  EXPECT_GT(storage_read_bps(kStorageLocalDisk, 6e9), prior);
  auto local = [](double disk_bps) {
    return weight_load(kWlBytes, storage_read_bps(kStorageLocalDisk, disk_bps), "", 1).seconds();
  };
  EXPECT_GT(local(373e6), local(0));
  EXPECT_LT(local(6e9), local(0));
  // ...up to the ceiling a page-faulting loader reaches: past it a faster disk changes nothing.
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageLocalDisk, 29.4e9), kLocalDiskLoaderCeilingBps);
  EXPECT_DOUBLE_EQ(local(29.4e9), local(50e9));
  EXPECT_LE(local(50e9), local(6e9));
  // A network file system's measured rate is read as a local disk's: above the prior and below
  // it (rows 335-336: Lustre at 640 MB/s and 4.8 GB/s), up to the same ceiling.
  const double net = storage_read_bps(kStorageNetwork);
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageNetwork, 640e6), 640e6);
  EXPECT_GT(storage_read_bps(kStorageNetwork, 640e6), net);
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageNetwork, 100e6), 100e6);
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageNetwork, 50e9), kLocalDiskLoaderCeilingBps);
  // Downloads ignore the disk.
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageHub, 6e9), storage_read_bps(kStorageHub));
}

TEST(WeightLoad, HuggingFaceHubsHttpDownloaderFetchesSeveralFilesAtOnceAsDocumented) {
  // docs/cost-model.md "Weight load": before Xet (--loader http), huggingface_hub fetches up to
  // 8 files at once, one stream each; a safetensors checkpoint is 5 GB files, a GGUF one file up
  // to 50 GB.
  const double stream = storage_read_bps(kStorageHub);
  EXPECT_DOUBLE_EQ(hub_http_download_bps(0, ""), stream);
  EXPECT_DOUBLE_EQ(hub_http_download_bps(std::numeric_limits<double>::infinity(), ""), stream);
  EXPECT_DOUBLE_EQ(hub_http_download_bps(4e9, ""), stream);            // one file
  EXPECT_DOUBLE_EQ(hub_http_download_bps(16e9, ""), stream * 16 / 5);  // four files, 5 GB each
  EXPECT_DOUBLE_EQ(hub_http_download_bps(40e9, ""), stream * 8);
  EXPECT_DOUBLE_EQ(hub_http_download_bps(700e9, "vllm"), stream * 8);    // never more than 8
  EXPECT_DOUBLE_EQ(hub_http_download_bps(48.9e9, "llama.cpp"), stream);  // one GGUF file
  EXPECT_DOUBLE_EQ(hub_http_download_bps(100e9, "llama.cpp"), stream * 2);
  // A bigger checkpoint never downloads faster than a smaller one takes in all.
  EXPECT_GT(16e9 / hub_http_download_bps(16e9, ""), 4e9 / hub_http_download_bps(4e9, ""));
}

TEST(WeightLoad, AHubDownloadThroughXetIsAFixedCostPlusItsBytesAndNeverSlowerThanHttp) {
  // huggingface_hub 0.32.0 and later download through Xet, chunks in parallel: a fixed cost plus
  // the bytes at one rate (bench/README.md, "Hub downloads through Xet").
  const double rate = hub_download_bps(0, "");
  EXPECT_GT(rate, storage_read_bps(kStorageHub) * kHubParallelFiles);
  const double t1 = 1e9 / hub_download_bps(1e9, "");
  const double t16 = 16e9 / hub_download_bps(16e9, "");
  const double t140 = 140e9 / hub_download_bps(140e9, "");
  EXPECT_NEAR(t16 - t1, 15e9 / rate, 1e-6);  // the same fixed cost in both
  EXPECT_GT(t1, 1e9 / rate);                 // a small file pays it
  EXPECT_LT(t16, t140);
  // Faster than the HTTP downloader on every size the fit set holds, one file or many...
  for (double bytes : {0.65e9, 4e9, 16e9, 145e9, 700e9})
    EXPECT_GE(hub_download_bps(bytes, ""), hub_http_download_bps(bytes, "")) << bytes;
  // ...and the loaders name the same download: streaming (hf_transfer, HF_XET_HIGH_PERFORMANCE)
  // reads the hub at the default's parallel rate.
  EXPECT_DOUBLE_EQ(cost::streaming_read_bps(kStorageHub, 0), rate);
}

TEST(WeightLoad, AStreamingLoaderReadsEachStorageAsDocumented) {
  // docs/cost-model.md "Streaming loaders": a fast disk and a provisioned volume at their own
  // rates, past the default loader's ceiling...
  EXPECT_DOUBLE_EQ(cost::streaming_read_bps(kStorageLocalDisk, 29.4e9), 29.4e9);
  EXPECT_GT(cost::streaming_read_bps(kStorageLocalDisk, 29.4e9),
            storage_read_bps(kStorageLocalDisk, 29.4e9));
  EXPECT_DOUBLE_EQ(cost::streaming_read_bps(kStorageNetwork, 20e9), 20e9);
  EXPECT_GT(cost::streaming_read_bps(kStorageNetwork, 20e9),
            storage_read_bps(kStorageNetwork, 20e9));
  EXPECT_DOUBLE_EQ(cost::streaming_read_bps(kStorageLocalDisk, 0),
                   storage_read_bps(kStorageLocalDisk));
  // ...an object store and the hub faster than one download stream a file (hf_transfer's ranged
  // requests), the page cache slower than an mmap read of it.
  EXPECT_GT(cost::streaming_read_bps(kStorageS3, 0), storage_read_bps(kStorageS3));
  EXPECT_GT(cost::streaming_read_bps(kStorageHub, 0), storage_read_bps(kStorageHub));
  EXPECT_LT(cost::streaming_read_bps(kStoragePageCache, 0), storage_read_bps(kStoragePageCache));
  EXPECT_EQ(cost::streaming_read_bps("tape", 0), 0);
  // Its own cost is smaller than the default loader's, and shared by the GPUs loading.
  const WeightLoad one = cost::streaming_weight_load(kWlBytes, 4e9, 1);
  EXPECT_DOUBLE_EQ(one.read_s, 4.0);
  EXPECT_LT(one.init_s, weight_load(kWlBytes, 4e9, "vllm", 1).init_s);
  EXPECT_LE(cost::streaming_weight_load(kWlBytes, 4e9, 8).init_s, one.init_s);
  EXPECT_EQ(cost::streaming_weight_load(0, 4e9, 1).seconds(), 0);
  EXPECT_TRUE(cost::known_loader("streaming"));
  EXPECT_TRUE(cost::known_loader("default"));
  EXPECT_TRUE(cost::known_loader("http"));
  EXPECT_FALSE(cost::known_loader("tensorizer"));
}

TEST(WeightLoad, ThePageCacheBeatsEveryDisk) {
  // A checkpoint served from RAM (just written or read) loads faster than from any disk, the
  // loader's own work still paid; `burst estimate --weights-from page-cache` only.
  EXPECT_TRUE(known_weight_source("page-cache"));
  EXPECT_GT(storage_read_bps(kStoragePageCache), kLocalDiskLoaderCeilingBps);
  EXPECT_LT(wl_seconds(kStoragePageCache), wl_seconds(kStorageLocalDisk));
  EXPECT_GT(wl_seconds(kStoragePageCache), loader_cost("").fixed_s);
}

TEST(WeightLoad, EachRankReadsItsShareAtItsOwnRateUpToTheDisks) {
  // docs/cost-model.md "Weight load": the ranks of one group read their shares at once, each at
  // its own loader's ceiling and page-cache rate (vLLM #52462: 5.54 s at TP 1, 1.70 s at TP 4
  // from the page cache), so four ranks read a 29.4 GB/s disk at its own rate where one rank
  // stops at the ceiling; a slow disk is as slow for four ranks as for one.
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageLocalDisk, 29.4e9, 4), 29.4e9);
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageLocalDisk, 29.4e9, 2), 2 * kLocalDiskLoaderCeilingBps);
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageLocalDisk, 373e6, 8), 373e6);
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageNetwork, 50e9, 4), 4 * kLocalDiskLoaderCeilingBps);
  EXPECT_DOUBLE_EQ(storage_read_bps(kStoragePageCache, 0, 4),
                   4 * storage_read_bps(kStoragePageCache));
  EXPECT_DOUBLE_EQ(cost::streaming_read_bps(kStoragePageCache, 0, 4),
                   4 * cost::streaming_read_bps(kStoragePageCache, 0));
  // Priors without a stated rate, and the hub and object stores, do not scale with the ranks.
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageNetwork, 0, 8), storage_read_bps(kStorageNetwork));
  EXPECT_DOUBLE_EQ(storage_read_bps(kStorageS3, 0, 8), storage_read_bps(kStorageS3));
  EXPECT_DOUBLE_EQ(cost::streaming_read_bps(kStorageLocalDisk, 29.4e9, 4), 29.4e9);
  // A plan's ranks: four GPUs of one model's group load 16 GB from the page cache sooner than one.
  auto cached = [](int gpus) {
    return weight_load(kWlBytes, storage_read_bps(kStoragePageCache, 0, gpus), "", gpus).seconds();
  };
  EXPECT_LT(cached(4), cached(1));
  EXPECT_GT(cached(4), loader_cost("").fixed_s);
  // Zero or negative ranks read as one.
  EXPECT_DOUBLE_EQ(storage_read_bps(kStoragePageCache, 0, 0), storage_read_bps(kStoragePageCache));
  // The planner's source passes its ranks through for the offer's own disk.
  const ProviderTraits& vast = *find_provider_traits("vast");
  EXPECT_DOUBLE_EQ(
      weight_source_for("local-disk", vast, false, 29.4e9, kWlBytes, "", 0, 4).prior_bps, 29.4e9);
  EXPECT_DOUBLE_EQ(weight_source_for("local-disk", vast, false, 29.4e9, kWlBytes).prior_bps,
                   kLocalDiskLoaderCeilingBps);
}

TEST(WeightLoad, TheVolumeIsWhatTheProvidersRowSaysItIs) {
  const ProviderTraits& runpod = *find_provider_traits("runpod");
  const ProviderTraits& vast = *find_provider_traits("vast");
  const ProviderTraits& lambda = *find_provider_traits("lambda");
  // RunPod's network volume at its measured rate; Lambda's file system at the network prior;
  // Vast's volume is the host's own disk.
  const WeightSource rp = weight_source_for("volume", runpod, false);
  EXPECT_EQ(rp.kind, kStorageNetwork);
  EXPECT_DOUBLE_EQ(rp.prior_bps, 237e6);
  EXPECT_TRUE(rp.learns && rp.warm);
  EXPECT_DOUBLE_EQ(weight_source_for("volume", lambda, false).prior_bps,
                   storage_read_bps(kStorageNetwork));
  const WeightSource va = weight_source_for("volume", vast, false);
  EXPECT_EQ(va.kind, kStorageLocalDisk);
  EXPECT_DOUBLE_EQ(va.prior_bps, storage_read_bps(kStorageLocalDisk));
  // Unset: the volume when the store shows it warm there, else a hub download.
  EXPECT_EQ(weight_source_for("", runpod, true).from, "volume");
  const WeightSource cold = weight_source_for("", runpod, false);
  EXPECT_EQ(cold.from, "hub");
  EXPECT_TRUE(cold.learns && !cold.warm);
  // The container disk and an object store learn nothing from volume reads or downloads.
  EXPECT_FALSE(weight_source_for("local-disk", runpod, true).learns);
  EXPECT_FALSE(weight_source_for("s3", runpod, true).learns);
}

TEST(WeightLoad, TheOffersOwnDiskReplacesThePriorWhereTheWeightsAreReadFromIt) {
  // An offer that states its host's disk rate (Vast's disk_bw) is read at that rate for the
  // local disk and for a volume on that disk; a network volume and a download ignore it.
  const ProviderTraits& runpod = *find_provider_traits("runpod");
  const ProviderTraits& vast = *find_provider_traits("vast");
  const WeightSource slow = weight_source_for("local-disk", runpod, false, 373e6);
  EXPECT_DOUBLE_EQ(slow.prior_bps, 373e6);
  EXPECT_TRUE(slow.host_disk);
  EXPECT_DOUBLE_EQ(weight_source_for("volume", vast, false, 6e9).prior_bps, 6e9);
  EXPECT_DOUBLE_EQ(weight_source_for("volume", vast, false, 29.4e9).prior_bps,
                   kLocalDiskLoaderCeilingBps);
  EXPECT_DOUBLE_EQ(weight_source_for("volume", runpod, false, 6e9).prior_bps, 237e6);
  EXPECT_FALSE(weight_source_for("volume", runpod, false, 6e9).host_disk);
  EXPECT_DOUBLE_EQ(weight_source_for("hub", vast, false, 6e9).prior_bps, hub_download_bps(0, ""));
  EXPECT_DOUBLE_EQ(weight_source_for("local-disk", vast, false, 0).prior_bps,
                   storage_read_bps(kStorageLocalDisk));
}

TEST(WeightLoad, TheOffersDownloadLinkBoundsADownloadAndNothingElse) {
  // Vast states each host's download rate (inet_down): a hub or object-store download, prior or
  // learned, goes no faster; a volume or the local disk is not read over it.
  const ProviderTraits& vast = *find_provider_traits("vast");
  const double link = 100e6 / 8;  // 100 Mb/s
  const WeightSource hub = weight_source_for("hub", vast, false, 0, 16e9, "", link);
  EXPECT_DOUBLE_EQ(hub.prior_bps, link);
  EXPECT_DOUBLE_EQ(hub.link_bps, link);
  EXPECT_DOUBLE_EQ(weight_source_for("s3", vast, false, 0, 16e9, "", link).prior_bps, link);
  EXPECT_DOUBLE_EQ(weight_source_for("volume", vast, false, 6e9, 16e9, "", link).prior_bps, 6e9);
  EXPECT_EQ(weight_source_for("local-disk", vast, false, 0, 16e9, "", link).link_bps, 0);
  // A link faster than the prior leaves the prior.
  EXPECT_DOUBLE_EQ(weight_source_for("hub", vast, false, 0, 16e9, "", 10e9).prior_bps,
                   hub_download_bps(16e9, ""));
  // A rate learned on the provider's other machines is capped by this one's link.
  LoadRate learned;
  learned.bytes_per_s = 400e6;
  learned.runs = 3;
  EXPECT_DOUBLE_EQ(within_link(learned, hub).bytes_per_s, link);
  EXPECT_DOUBLE_EQ(within_link(learned, weight_source_for("hub", vast, false)).bytes_per_s, 400e6);
}

PipelineSpec wl_spec(const std::string& weights_from, const std::string& engine = "") {
  PipelineSpec s;
  s.name = "serve";
  s.run = "python serve.py";
  s.workload.kind = "custom";
  s.workload.params_b = 8;  // 16 GB of bf16 weights
  s.workload.reference = WorkloadReference{"RTX_4090", 600, ""};
  s.workload.weights_from = weights_from;
  s.workload.engine = engine;
  return s;
}

double wl_cold_start(const PipelineSpec& spec, std::string* note = nullptr, double disk_bps = 0,
                     double link_bps = 0) {
  PlanInput in = runpod_4090_plan_input();
  for (Offer& o : in.gpu_offers) {
    o.disk_read_bps = disk_bps;
    o.download_bps = link_bps;
  }
  auto plan = make_plan(spec, in);
  EXPECT_TRUE(plan.ok()) << plan.error().message;
  if (!plan.ok()) return -1;
  if (note) *note = plan->weight_load;
  return plan->estimate.cold_start_s;
}

TEST(PlanWeightSource, TheSpecsWeightsFromMovesTheColdStartAsDocumented) {
  const double boot = find_provider_traits("runpod")->boot_s;
  std::string note;
  const double hub = wl_cold_start(wl_spec(""), &note);
  EXPECT_NEAR(hub, boot + weight_load(16e9, hub_download_bps(16e9, ""), "", 1).seconds(), 1e-6);
  EXPECT_NE(note.find("downloaded on first use"), std::string::npos) << note;
  EXPECT_DOUBLE_EQ(wl_cold_start(wl_spec("hub")), hub);
  const double volume = wl_cold_start(wl_spec("volume"), &note);
  EXPECT_NEAR(volume, boot + weight_load(16e9, 237e6, "", 1).seconds(), 1e-6);
  EXPECT_NE(note.find("237 MB/s (warm volume)"), std::string::npos) << note;
  const double local = wl_cold_start(wl_spec("local-disk"), &note);
  EXPECT_EQ(note,
            "weight load 16.0 GB from the local disk at 4000 MB/s (prior), 11 s with the loader");
  // The offer's own disk: a slow one lengthens the cold start, a fast one shortens it.
  EXPECT_GT(wl_cold_start(wl_spec("local-disk"), &note, 373e6), local);
  EXPECT_EQ(note,
            "weight load 16.0 GB from the local disk at 373 MB/s (the offer's disk), 50 s with the "
            "loader");
  EXPECT_LT(wl_cold_start(wl_spec("local-disk"), nullptr, 6e9), local);
  const double s3 = wl_cold_start(wl_spec("s3"));
  EXPECT_LT(local, volume);
  // A download through Xet at its prior (about 1.2 GB/s) outruns RunPod's network volume at its
  // measured 237 MB/s and an object store read by the default loader: the plan prices what the
  // pod will do, even where staging the weights on the volume does not pay.
  EXPECT_LT(hub, volume);
  EXPECT_LT(hub, s3);
  // An offer whose host states a 100 Mb/s link downloads the 16 GB at 12.5 MB/s: 1280 s more or
  // less, where the hub's own rate would take about 20 s.
  const double slow_link = wl_cold_start(wl_spec("hub"), &note, 0, 100e6 / 8);
  EXPECT_NEAR(slow_link, boot + weight_load(16e9, 100e6 / 8, "", 1).seconds(), 1e-6);
  EXPECT_GT(slow_link - hub, 1000);
  EXPECT_EQ(note,
            "weight load 16.0 GB from the hub at 12.5 MB/s (the offer's download link, 100 Mb/s), "
            "1287 s with the loader");
  EXPECT_DOUBLE_EQ(wl_cold_start(wl_spec("hub"), nullptr, 0, 10e9), hub);  // a fast link
  EXPECT_DOUBLE_EQ(wl_cold_start(wl_spec("volume"), nullptr, 0, 100e6 / 8), volume);
  // Two offers of one price that differ by their links: the plan takes the faster.
  PlanInput two = runpod_4090_plan_input();
  two.gpu_offers.push_back(two.gpu_offers[0]);
  two.gpu_offers[0].region = "slow link";
  two.gpu_offers[0].download_bps = 100e6 / 8;
  two.gpu_offers[1].region = "fast link";
  two.gpu_offers[1].download_bps = 1e9 / 8;
  auto picked = make_plan(wl_spec("hub"), two);
  ASSERT_TRUE(picked.ok()) << picked.error().message;
  EXPECT_EQ(picked->gpu.region, "fast link");
  // So do two offers of one type whose host disks differ (each offer's own cold start, not the
  // first one's for its type).
  two.gpu_offers[0].region = "slow disk";
  two.gpu_offers[0].disk_read_bps = 373e6;
  two.gpu_offers[1].region = "fast disk";
  two.gpu_offers[1].disk_read_bps = 6e9;
  picked = make_plan(wl_spec("local-disk"), two);
  ASSERT_TRUE(picked.ok()) << picked.error().message;
  EXPECT_EQ(picked->gpu.region, "fast disk");
  // Meta's original loader (engine pytorch) takes longer than vLLM's from the same disk.
  EXPECT_GT(wl_cold_start(wl_spec("local-disk", "pytorch")),
            wl_cold_start(wl_spec("local-disk", "vllm")));
}

}  // namespace
}  // namespace burst

// The CLI surface a user meets first: help, version, validate, and bad input creating nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "burst/store.h"
#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

TEST(E2ECli, HelpOnEverySubcommandAndVersion) {
  BurstHome home;
  std::string out;
  for (const char* sub :
       {"run", "validate", "reap", "jobs", "plan", "gpus", "estimate", "volumes"}) {
    EXPECT_EQ(run_burst(home, {sub, "--help"}, &out, nullptr), 0) << sub;
    EXPECT_NE(out.find("Usage"), std::string::npos) << sub << ": " << out;
  }
  EXPECT_EQ(run_burst(home, {"--version"}, &out, nullptr), 0);
  EXPECT_EQ(out.rfind("burst ", 0), 0u) << out;
}

TEST(E2ECli, ValidateAcceptsTheExample) {
  BurstHome home;
  std::string out, err;
  EXPECT_EQ(
      run_burst(home, {"validate", std::string(BURST_SOURCE_DIR) + "/examples/tts-render.yaml"},
                &out, &err),
      0)
      << err;
  EXPECT_NE(out.find("ok (pipeline tts-render)"), std::string::npos) << out;
}

TEST(E2ECli, BadSpecExits2NamesFileLineColumnFieldAndCreatesNothing) {
  BurstHome home;
  std::string spec =
      home.write("bad.yaml", "name: x\nrun: echo hi\nresources:\n  max_usd_per_hour: cheap\n");
  std::string out, err;
  for (const char* cmd : {"validate", "run"}) {
    EXPECT_EQ(run_burst(home, {cmd, spec}, &out, &err), 2) << cmd;
    EXPECT_EQ(err, spec + ":4:21: resources.max_usd_per_hour: expected a number, got \"cheap\"\n")
        << cmd;
  }
  EXPECT_FALSE(std::filesystem::exists(home.state())) << "nothing may be created for a bad spec";
}

TEST(E2ECli, PlanPricesTheExampleFromTheOfflineTableAndNeverPicksAnH100) {
  BurstHome home;
  std::string out, err;
  const std::string spec = std::string(BURST_SOURCE_DIR) + "/examples/tts-render.yaml";
  ASSERT_EQ(run_burst(home, {"plan", spec, "--provider", "runpod", "--json", "--all"}, &out, &err),
            0)
      << err;
  auto plan = nlohmann::json::parse(out);
  EXPECT_EQ(plan["chosen"]["provider"], "runpod");
  const std::string gpu = plan["chosen"]["gpu"];
  EXPECT_EQ(gpu.find("H100"), std::string::npos) << gpu;
  bool saw_h100_reason = false;
  for (const auto& c : plan["candidates"]) {
    if (c["gpu"] == gpu && c["rejected"] == "") {
      EXPECT_EQ(c["bound"], "compute");  // a flow-matching render of 40 s answers
    }
    if (std::string(c["gpu"]).find("H100") != std::string::npos) {
      EXPECT_NE(c["rejected"], "") << "an H100 is never a candidate for this render";
      saw_h100_reason = true;
    }
  }
  EXPECT_TRUE(saw_h100_reason) << "the plan says why the H100 is out";
  EXPECT_FALSE(std::filesystem::exists(home.state())) << "planning creates nothing";
}

TEST(E2ECli, GpusListsTheCatalog) {
  BurstHome home;
  std::string out;
  ASSERT_EQ(run_burst(home, {"gpus", "--json"}, &out, nullptr), 0);
  auto gpus = nlohmann::json::parse(out);
  EXPECT_GE(gpus.size(), 25u);
}

TEST(E2ECli, EstimateWithoutASpecPrintsMemoryTableAndServingCost) {
  BurstHome home;
  std::string out, err;
  ASSERT_EQ(
      run_burst(home, {"estimate", "--params", "7B", "--mode", "train", "--precision", "bf16"},
                &out, &err),
      0)
      << err;
  EXPECT_NE(out.find("weights 13.0 GiB, gradients 26.1, optimizer 78.2, activations 9.2"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("total 126.6 GiB"), std::string::npos) << out;
  EXPECT_NE(out.find("training: full, gradient checkpointing off, micro-batch 1 x 2048 tokens"),
            std::string::npos)
      << out;
  ASSERT_EQ(
      run_burst(home, {"estimate", "--params", "7B", "--mode", "train", "--json"}, &out, &err), 0);
  // Named: a range-for over parse(out)["gpus"] iterates a temporary already destroyed (ASan).
  const nlohmann::json train = nlohmann::json::parse(out);
  for (const auto& g : train["gpus"]) {
    if (g["gpu"] == "H100_SXM") {
      EXPECT_EQ(g["count"], 2) << "two 80 GB cards hold 155.8 GiB after headroom";
    }
  }
  // The training inputs reach the model and come back resolved; one that does not apply is a
  // usage error naming the flag.
  ASSERT_EQ(run_burst(home,
                      {"estimate", "--model", "llama-3-8b", "--mode", "train", "--method", "lora",
                       "--lora-rank", "64", "--lora-targets", "q,v", "--gradient-checkpointing",
                       "off", "--json"},
                      &out, &err),
            0)
      << err;
  const nlohmann::json lora = nlohmann::json::parse(out);
  EXPECT_EQ(lora["training"]["lora_rank"], 64);
  EXPECT_EQ(lora["training"]["lora_targets"], nlohmann::json({"q", "v"}));
  EXPECT_EQ(lora["training"]["gradient_checkpointing"], false);
  EXPECT_EQ(run_burst(home, {"estimate", "--params", "7B", "--mode", "train", "--lora-rank", "8"},
                      &out, &err),
            2);
  EXPECT_NE(err.find("--lora-rank and --lora-targets only apply to --method lora or qlora"),
            std::string::npos)
      << err;
  // Guidance in turn: two denoiser calls a step, each paying the per-call floor, so one F5-TTS
  // answer (floor-bound on an L40) takes twice the steps' time of the batched default.
  auto tts_step = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"estimate",  "--model",         "f5-tts", "--mode",
                                     "diffusion", "--audio-seconds", "10",     "--steps",
                                     "32",        "--items",         "1",      "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_EQ(run_burst(home, args, &out, &err), 0) << err;
    const nlohmann::json est = nlohmann::json::parse(out);
    for (const auto& g : est["gpus"])
      if (g["gpu"] == "L40")
        return std::make_pair(est["diffusion"]["calls_per_step"].get<int>(),
                              g["step_s"].get<double>());
    ADD_FAILURE() << "no L40 in " << out;
    return std::make_pair(0, 0.0);
  };
  const auto batched = tts_step({});
  const auto in_turn = tts_step({"--guidance-batched", "off"});
  EXPECT_EQ(batched.first, 1);
  EXPECT_EQ(in_turn.first, 2);
  EXPECT_DOUBLE_EQ(in_turn.second, 2 * batched.second);
  EXPECT_EQ(run_burst(home,
                      {"estimate", "--model", "f5-tts", "--mode", "diffusion", "--audio-seconds",
                       "10", "--guidance-batched", "maybe"},
                      &out, &err),
            2);
  EXPECT_NE(err.find("--guidance-batched: \"maybe\" is not one of on, off"), std::string::npos)
      << err;

  ASSERT_EQ(run_burst(home,
                      {"estimate", "--params", "8B", "--mode", "infer", "--tokens", "1M",
                       "--context", "4096", "--concurrency", "8", "--json"},
                      &out, &err),
            0)
      << err;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["kind"], "llm-inference");
  ASSERT_GE(j["gpus"].size(), 25u);
  const auto& first = j["gpus"][0];  // cheapest first
  EXPECT_TRUE(first["fits"].get<bool>());
  EXPECT_GT(first["rent_usd_per_mtok"].get<double>(), 0);
  EXPECT_GT(first["own_usd_per_mtok"].get<double>(), 0);
  EXPECT_GT(first["breakeven_utilization"].get<double>(), 0);
  for (size_t i = 1; i < j["gpus"].size(); ++i) {
    const auto& g = j["gpus"][i];
    if (g["usd"].is_null()) break;
    EXPECT_LE(j["gpus"][i - 1]["usd"].get<double>(), g["usd"].get<double>());
  }

  EXPECT_EQ(run_burst(home, {"estimate", "--params", "-7B", "--mode", "train"}, &out, &err), 2);
  EXPECT_EQ(err, "burst: --params: must be > 0 (got -7B)\n");
  EXPECT_EQ(run_burst(home, {"estimate", "--params", "7B", "--mode", "train", "--precision", "fp7"},
                      &out, &err),
            2);
  EXPECT_NE(err.find("unknown precision \"fp7\""), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(home.state())) << "estimating creates nothing";
}

TEST(E2ECli, PlanTakesOffersFromAFileAndShowsTheCurve) {
  BurstHome home;
  const std::string offers = home.write(
      "offers.json",
      R"([{"provider": "acme", "gpu_type": "RTX_4090", "gpu_count": 1, "usd_per_hour": 0.5},
          {"provider": "acme", "gpu_type": "H100_SXM", "gpu_count": 1, "usd_per_hour": 2.5,
           "region": "eu", "available": true},
          {"provider": "zeta", "gpu_type": "L4", "usd_per_hour": 0.3, "spot_usd_per_hour": 0.1}])");
  const std::string spec = home.write(
      "job.yaml",
      "name: items\nrun: echo hi\nworkload: {kind: diffusion, params_b: 0.5, precision: bf16, "
      "items: 300, steps: 2000, batch: 8, tokens: 16}\n");
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"plan", spec, "--offers", offers, "--json", "--all"}, &out, &err), 0)
      << err;
  auto plan = nlohmann::json::parse(out);
  // Bandwidth-bound with the diffusion fit's per-step overhead (docs/cost-model.md): zeta's L4
  // at $0.30/h edges out acme's RTX 4090 at $0.50/h.
  EXPECT_EQ(plan["chosen"]["provider"], "zeta");
  EXPECT_EQ(plan["chosen"]["gpu"], "L4");
  EXPECT_GT(plan["chosen"]["curve"].size(), 10u);
  EXPECT_EQ(plan["chosen"]["curve"][0]["workers"], 1);
  EXPECT_EQ(plan["candidates"].size(), 3u);
  for (const auto& c : plan["candidates"]) {
    if (c["gpu"] == "L4") continue;
    EXPECT_NE(std::string(c["why"]).find("x the chosen plan"), std::string::npos) << c["why"];
  }
  ASSERT_EQ(run_burst(home, {"plan", spec, "--offers", offers}, &out, &err), 0) << err;
  EXPECT_NE(out.find("go wide or tall (zeta L4"), std::string::npos) << out;
  EXPECT_NE(out.find("chosen: zeta L4 x1"), std::string::npos) << out;

  const std::string bad = home.write("bad.json", R"([{"provider": "acme", "gpu_type": "L4"}])");
  EXPECT_EQ(run_burst(home, {"plan", spec, "--offers", bad}, &out, &err), 2);
  EXPECT_EQ(err, "burst: " + bad + ": offer 0: usd_per_hour is required\n");
  EXPECT_FALSE(std::filesystem::exists(home.state())) << "planning creates nothing";
}

// Three finished runs of this pipeline took 1.5x the model's time: `burst plan` prices with the
// calibrated run time and says so, as `burst run` does.
// The issue 18 acceptance commands: a model by name, its KV cache from its 8 KV heads, QLoRA
// memory near torchtune's measured 7.4 GiB, the decode table and rent vs buy.
TEST(E2ECli, EstimateWeightsFromMovesTheWeightLoadAndRefusesAnUnknownSource) {
  // docs/cost-model.md "Weight load": the local disk beats a network volume, which beats the
  // hub's HTTP downloader but not a download through Xet; torch.load (engine pytorch) is slower
  // than a safetensors loader from the same disk.
  BurstHome home;
  auto load = [&](std::vector<std::string> extra) {
    std::string out, err;
    std::vector<std::string> args = {"estimate",   "--json", "--model",
                                     "llama-3-8b", "--mode", "infer"};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_EQ(run_burst(home, args, &out, &err), 0) << err;
    return nlohmann::json::parse(out)["weight_load_s"];
  };
  const auto hub = load({});
  EXPECT_EQ(hub["from"], "hub");
  EXPECT_NEAR(hub["seconds"].get<double>(), hub["cold"].get<double>(), 1e-9);
  const double volume = load({"--weights-from", "volume"})["seconds"].get<double>();
  const double local = load({"--weights-from", "local-disk"})["seconds"].get<double>();
  EXPECT_LT(local, volume);
  // A hub download through Xet (huggingface_hub's default since 0.32.0) outruns a network volume
  // at its prior; huggingface_hub's HTTP downloader (--loader http: one stream a file) does not.
  EXPECT_LT(hub["seconds"].get<double>(), volume);
  const auto http = load({"--weights-from", "hub", "--loader", "http"});
  EXPECT_GT(http["seconds"].get<double>(), volume);
  EXPECT_LT(http["read_bytes_per_s"].get<double>(), hub["read_bytes_per_s"].get<double>());
  EXPECT_GT(load({"--weights-from", "local-disk", "--engine", "pytorch"})["seconds"].get<double>(),
            local);
  // The disk's own rate: a slow disk loads slower than the prior says, a fast one faster; the
  // page cache beats them all.
  const auto slow = load({"--weights-from", "local-disk", "--disk-read-mbps", "373"});
  EXPECT_DOUBLE_EQ(slow["read_bytes_per_s"].get<double>(), 373e6);
  EXPECT_GT(slow["seconds"].get<double>(), local);
  const double fast =
      load({"--weights-from", "local-disk", "--disk-read-mbps", "6000"})["seconds"].get<double>();
  EXPECT_LT(fast, local);
  EXPECT_LT(load({"--weights-from", "page-cache"})["seconds"].get<double>(), fast);
  std::string out, err;
  EXPECT_EQ(run_burst(home,
                      {"estimate", "--model", "llama-3-8b", "--mode", "infer", "--weights-from",
                       "local-disk", "--disk-read-mbps", "0"},
                      &out, &err),
            2);
  EXPECT_NE(err.find("--disk-read-mbps must be > 0"), std::string::npos) << err;
  EXPECT_EQ(run_burst(home,
                      {"estimate", "--model", "llama-3-8b", "--mode", "infer", "--weights-from",
                       "s3", "--loader", "http"},
                      &out, &err),
            2);
  EXPECT_NE(err.find("--loader http: names the hub's downloader; it needs --weights-from hub, not "
                     "\"s3\""),
            std::string::npos)
      << err;
  EXPECT_EQ(
      run_burst(home,
                {"estimate", "--model", "llama-3-8b", "--mode", "infer", "--weights-from", "nfs"},
                &out, &err),
      2);
  EXPECT_NE(err.find("--weights-from: \"nfs\" is not one of hub, s3, volume, local-disk"),
            std::string::npos)
      << err;
}

TEST(E2ECli, EstimateStreamingLoaderReadsAtTheStoragesOwnRateAndRefusesAnUnknownLoader) {
  // docs/cost-model.md "Streaming loaders": a streaming loader (Run:ai Model Streamer,
  // ServerlessLLM Store, fastsafetensors) reads a fast disk, a volume and an object store at their
  // own rates, where the default loader stops at its page-faulting ceiling; from the hub it is a
  // parallel downloader (hf_transfer), never slower than huggingface_hub's streams; from the page
  // cache it is slower than a memory-mapped read.
  BurstHome home;
  auto load = [&](std::vector<std::string> extra) {
    std::string out, err;
    std::vector<std::string> args = {"estimate",   "--json", "--model",
                                     "llama-3-8b", "--mode", "infer"};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_EQ(run_burst(home, args, &out, &err), 0) << err;
    return nlohmann::json::parse(out)["weight_load_s"];
  };
  const std::vector<std::string> nvme = {"--weights-from", "local-disk", "--disk-read-mbps",
                                         "29400"};
  auto with = [](std::vector<std::string> a, std::vector<std::string> b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const auto streamed = load(with(nvme, {"--loader", "streaming"}));
  EXPECT_EQ(streamed["loader"], "streaming");
  EXPECT_DOUBLE_EQ(streamed["read_bytes_per_s"].get<double>(), 29.4e9);
  EXPECT_LT(streamed["seconds"].get<double>(), load(nvme)["seconds"].get<double>());
  EXPECT_EQ(load(with(nvme, {"--loader", "default"}))["loader"], "safetensors");
  for (const char* from : {"s3", "volume", "hub"}) {
    const std::vector<std::string> src = {"--weights-from", from, "--disk-read-mbps", "2000"};
    EXPECT_LT(load(with(src, {"--loader", "streaming"}))["seconds"].get<double>(),
              load(src)["seconds"].get<double>())
        << from;
  }
  const std::vector<std::string> cached = {"--weights-from", "page-cache"};
  EXPECT_GT(load(with(cached, {"--loader", "streaming"}))["read_s"].get<double>(),
            load(cached)["read_s"].get<double>());
  std::string out, err;
  EXPECT_EQ(
      run_burst(home,
                {"estimate", "--model", "llama-3-8b", "--mode", "infer", "--loader", "tensorizer"},
                &out, &err),
      2);
  EXPECT_NE(err.find("--loader: \"tensorizer\" is not one of default, streaming"),
            std::string::npos)
      << err;
}

TEST(E2ECli, EstimateByModelNameUsesItsShape) {
  BurstHome home;
  std::string out, err;
  ASSERT_EQ(run_burst(home,
                      {"estimate", "--model", "llama-3-70b", "--mode", "infer", "--concurrency",
                       "8", "--context", "4096"},
                      &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("KV cache 10.0;"), std::string::npos) << out;
  EXPECT_NE(out.find("2 x 80 layers x 8 KV heads x 128 dims x 4096 tokens x 8 sequences"),
            std::string::npos)
      << out;
  ASSERT_EQ(
      run_burst(home, {"estimate", "--mode", "train", "--method", "qlora", "--model", "llama-3-8b"},
                &out, &err),
      0)
      << err;
  EXPECT_NE(out.find("total 9.9 GiB"), std::string::npos) << out;
  ASSERT_EQ(run_burst(home,
                      {"estimate", "--params", "7B", "--mode", "infer", "--precision", "fp16",
                       "--efficiency", "0.7", "--utilization", "0.7"},
                      &out, &err),
            0)
      << err;
  // Columns are as wide as the catalog's longest name: the row, whatever its padding.
  EXPECT_TRUE(std::regex_search(out, std::regex("\nH100_SXM +239\\.3 +167\\.5\n"))) << out;
  EXPECT_NE(out.find("rent vs buy over 3 years at 70% utilization"), std::string::npos) << out;
  EXPECT_EQ(run_burst(home, {"estimate", "--model", "llama-9", "--mode", "infer"}, &out, &err), 2);
  EXPECT_NE(err.find("unknown model \"llama-9\""), std::string::npos) << err;
  // The prompt's work from the shape: Llama 3 8B's weights and its causal attention over 8192
  // tokens (32 layers of 32 heads of 128): 2 x 8.03e9 x 8192 + 2 x 32 x 32 x 128 x 8192^2.
  ASSERT_EQ(run_burst(home,
                      {"estimate", "--model", "llama-3-8b", "--mode", "infer", "--context", "8193",
                       "--tokens", "1", "--json"},
                      &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("\"prompt_tokens\": 8192"), std::string::npos) << out;
  const auto at = out.find("\"flops_per_sequence\": ");
  ASSERT_NE(at, std::string::npos) << out;
  const double flops = std::stod(out.substr(at + 22));
  EXPECT_NEAR(flops, 2 * 8.03e9 * 8192 + 2.0 * 32 * 32 * 128 * 8192.0 * 8192, 1e9);
}

// A mixture of experts' estimate says what a decode step reads of its experts: Mixtral's 2 of 8 a
// token, about 8 (1 - 0.75^8) = 7.2 at 8 sequences, at the experts' share of the rate; a dense
// model prints no such line.
TEST(E2ECli, EstimateOfAMixtureOfExpertsSaysWhatItsStepsRead) {
  BurstHome home;
  std::string out, err;
  ASSERT_EQ(run_burst(home,
                      {"estimate", "--model", "mixtral-8x7b", "--mode", "infer", "--concurrency",
                       "8", "--tokens", "800"},
                      &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("experts: 8 per layer, 2 a token; a decode step of 8 sequences touches about "
                     "7.2 of each layer's (uniform routing), read at 72% of a dense layer's "
                     "bandwidth efficiency"),
            std::string::npos)
      << out;
  ASSERT_EQ(run_burst(home, {"estimate", "--model", "llama-3-8b", "--mode", "infer"}, &out, &err),
            0)
      << err;
  EXPECT_EQ(out.find("experts:"), std::string::npos) << out;
}

TEST(E2ECli, EstimateTensorParallelShardsOneCopyAndRefusesTooFewGpus) {
  BurstHome home;
  std::string out, err;
  const std::vector<std::string> ask = {"estimate", "--model",  "llama-3.1-70b", "--precision",
                                        "fp8",      "--mode",   "infer",         "--engine",
                                        "vllm",     "--tokens", "2048"};
  std::vector<std::string> tp = ask;
  tp.insert(tp.end(), {"--tensor-parallel", "8"});
  ASSERT_EQ(run_burst(home, tp, &out, &err), 0) << err;
  EXPECT_NE(out.find("tensor parallel 8: each copy of the model is sharded over 8 GPUs"),
            std::string::npos)
      << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("\nMI300X +8  bandwidth"))) << out;
  tp.push_back("--json");
  ASSERT_EQ(run_burst(home, tp, &out, &err), 0) << err;
  EXPECT_NE(out.find("\"gpus_per_copy\": 8"), std::string::npos) << out;
  std::vector<std::string> few = ask;
  few.insert(few.end(), {"--tensor-parallel", "8", "--gpus", "4"});
  EXPECT_EQ(run_burst(home, few, &out, &err), 2);
  EXPECT_NE(err.find("--gpus 4 is fewer than --tensor-parallel 8"), std::string::npos) << err;
}

TEST(E2ECli, PlanUsesTheRunTimeCalibratedFromThisPipelinesHistory) {
  BurstHome home;
  const std::string offers = home.write(
      "offers.json", R"([{"provider": "acme", "gpu_type": "RTX_4090", "usd_per_hour": 0.5}])");
  const std::string spec = home.write(
      "job.yaml",
      "name: items\nrun: echo hi\nworkload: {kind: diffusion, params_b: 0.5, precision: bf16, "
      "items: 300, steps: 2000, batch: 8, tokens: 16}\n");
  std::string before, out, err;
  ASSERT_EQ(run_burst(home, {"plan", spec, "--offers", offers, "--json"}, &before, &err), 0) << err;
  EXPECT_EQ(before.find("calibrated"), std::string::npos) << before;

  std::filesystem::create_directories(home.state());
  {
    auto store = open_sqlite_store(home.state() + "/burst.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    for (int i = 0; i < 3; ++i) {
      JobRecord job;
      job.id = "j" + std::to_string(i);
      job.pipeline = "items";
      job.created_ms = 1000 + i;
      ASSERT_TRUE((*store)->create_job(job).ok());
      CalibrationRecord c;
      c.job_id = job.id;
      c.pipeline = "items";
      c.gpu_type = "RTX_4090";
      c.workload_kind = "diffusion";
      c.units = 300;
      c.measured_s = 1500;
      c.predicted_s = 1000;
      c.recorded_ms = 2000 + i;
      ASSERT_TRUE((*store)->add_calibration(c).ok());
    }
  }
  ASSERT_EQ(run_burst(home, {"plan", spec, "--offers", offers, "--json"}, &out, &err), 0) << err;
  auto a = nlohmann::json::parse(before), b = nlohmann::json::parse(out);
  EXPECT_NE(
      std::string(b["chosen"]["basis"]).find("calibrated from 3 runs on RTX_4090 (run time x1.50)"),
      std::string::npos)
      << b["chosen"]["basis"];
  EXPECT_GT(double(b["chosen"]["usd"]), double(a["chosen"]["usd"]));
  ASSERT_EQ(run_burst(home, {"plan", spec, "--offers", offers}, &out, &err), 0) << err;
  EXPECT_NE(out.find("calibrated from 3 runs"), std::string::npos) << out;
}

TEST(E2ECli, PlanExitCodesForInvalidWorkloadsAndUnmeetableLimits) {
  BurstHome home;
  const std::string offers = home.write(
      "offers.json", R"([{"provider": "acme", "gpu_type": "RTX_4090", "usd_per_hour": 0.5}])");
  auto spec = [&](const std::string& extra) {
    return home.write("job.yaml",
                      "name: x\nrun: echo hi\nworkload: {kind: diffusion, params_b: 0.5, items: "
                      "300, steps: 8}\n" +
                          extra);
  };
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"plan", spec("resources: {gpus: [RTX_9090]}\n"), "--offers", offers},
                      &out, &err),
            2);
  EXPECT_EQ(err,
            "burst: resources.gpus: \"RTX_9090\" is not in the GPU catalog (`burst gpus` lists "
            "the names)\n");
  EXPECT_EQ(
      run_burst(home, {"plan", spec("budget: {deadline: 10s}\n"), "--offers", offers}, &out, &err),
      1);
  EXPECT_NE(err.find("acme RTX_4090: misses the deadline"), std::string::npos) << err;
  EXPECT_EQ(run_burst(home, {"plan", spec("budget: {max_usd: 0.0001}\n"), "--offers", offers}, &out,
                      &err),
            2);
  EXPECT_NE(err.find("over budget.max_usd"), std::string::npos) << err;
  EXPECT_EQ(run_burst(home, {"plan", spec("workload2: 1\n"), "--offers", offers}, &out, &err), 2);
}

TEST(E2ECli, UnknownSubcommandIsAUsageError) {
  BurstHome home;
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"launch"}, &out, &err), 2);
}

}  // namespace
}  // namespace burst::testing
